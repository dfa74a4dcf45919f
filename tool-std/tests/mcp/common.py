"""What the Python client scripts here share: a user's answer to an approval question, a
result's text, and the checks every transport passes (each prints `ok <name>`)."""

from mcp import Client, types
from mcp.shared.exceptions import MCPError


def accept(decision: str, guidance: str | None = None) -> types.ElicitResult:
    """The user accepting the approval form with `decision` (once, session, reject)."""
    content = {"decision": decision}
    if guidance is not None:
        content["guidance"] = guidance
    return types.ElicitResult(action="accept", content=content)


def text(result) -> str:
    """A tool result's text parts, joined."""
    return "\n".join(part.text for part in result.content)


def check_protocol(client: Client, mode: str) -> None:
    """Auto mode speaks 2026-07-28; legacy mode 2025-11-25."""
    expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
    assert client.protocol_version == expected, client.protocol_version
    print(f"ok protocol {client.protocol_version}")


async def check_list(client: Client) -> dict:
    """tools/list: read_file read-only (destructiveHint explicit), its schema; the tools by name."""
    listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert "read_file" in tools and "todo_write" in tools, sorted(tools)
    read = tools["read_file"]
    assert read.annotations.read_only_hint is True, read.annotations
    assert read.annotations.destructive_hint is False, read.annotations
    assert read.input_schema["properties"]["path"]["type"] == "string", read.input_schema
    print("ok list")
    return tools


async def check_calls(client: Client, todo: str) -> None:
    """A call, structured output, a tool's error, and an unknown tool."""
    result = await client.call_tool("read_file", {"path": "notes.md"})
    assert result.is_error is False, result
    assert "buy milk" in result.content[0].text, result.content
    print("ok call")

    todos = [{"content": todo, "status": "in_progress"}]
    result = await client.call_tool("todo_write", {"todos": todos})
    assert result.is_error is False, result
    assert result.structured_content["todos"][0]["content"] == todo, result
    print("ok structured")

    result = await client.call_tool("read_file", {"path": "missing.md"})
    assert result.is_error is True, result
    assert "missing.md" in result.content[0].text, result.content
    print("ok tool error")

    try:
        await client.call_tool("no_such_tool", {})
    except MCPError as error:
        assert error.error.code == -32602, error.error
        print("ok unknown tool")
    else:
        raise AssertionError("an unknown tool must be a JSON-RPC error")
