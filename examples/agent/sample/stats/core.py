"""The mean and the median of a list of numbers."""


def mean(values):
    """The arithmetic mean of `values`, which must not be empty."""
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / (len(values) - 1)


def median(values):
    """The middle value of `values` once sorted (the mean of the two middle ones for an even count)."""
    if not values:
        raise ValueError("median of an empty list")
    ordered = values
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
