import unittest

from stats import mean, median


class MeanTest(unittest.TestCase):
    def test_mean_of_three(self):
        self.assertEqual(mean([1, 2, 3]), 2)

    def test_mean_of_one(self):
        self.assertEqual(mean([5]), 5)


class MedianTest(unittest.TestCase):
    def test_median_of_unsorted_values(self):
        self.assertEqual(median([3, 1, 2]), 2)

    def test_median_of_an_even_count(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)


if __name__ == "__main__":
    unittest.main()
