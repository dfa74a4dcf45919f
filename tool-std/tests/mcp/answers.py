"""What the Python client scripts here share: a user's answer to an approval question, and a
result's text."""

from mcp import types


def accept(decision: str, guidance: str | None = None) -> types.ElicitResult:
    """The user accepting the approval form with `decision` (once, session, reject)."""
    content = {"decision": decision}
    if guidance is not None:
        content["guidance"] = guidance
    return types.ElicitResult(action="accept", content=content)


def text(result) -> str:
    """A tool result's text parts, joined."""
    return "\n".join(part.text for part in result.content)
