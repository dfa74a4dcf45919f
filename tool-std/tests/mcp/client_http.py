"""The official MCP Python SDK as a client of `toolbox serve --http`.

Usage: client_http.py URL MODE [TOKEN]   (MODE: auto | legacy)

With TOKEN, every request carries `Authorization: Bearer TOKEN`. Each check prints
`ok <name>`; the first failed assertion ends the script with a traceback and a non-zero exit,
which the Rust test (tests/mcp_http.rs) reports.
"""

import asyncio
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

url, mode = sys.argv[1], sys.argv[2]
token = sys.argv[3] if len(sys.argv) > 3 else None


async def main() -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            await checks(client)


async def checks(client: Client) -> None:
    expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
    assert client.protocol_version == expected, client.protocol_version
    print(f"ok protocol {client.protocol_version}")

    listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert "read_file" in tools and "todo_write" in tools, sorted(tools)
    read = tools["read_file"]
    assert read.annotations.read_only_hint is True, read.annotations
    assert read.annotations.destructive_hint is False, read.annotations
    assert read.input_schema["properties"]["path"]["type"] == "string", read.input_schema
    print("ok list")

    result = await client.call_tool("read_file", {"path": "notes.md"})
    assert result.is_error is False, result
    assert "buy milk" in result.content[0].text, result.content
    print("ok call")

    todos = [{"content": "Serve over HTTP", "status": "in_progress"}]
    result = await client.call_tool("todo_write", {"todos": todos})
    assert result.is_error is False, result
    assert result.structured_content["todos"][0]["content"] == "Serve over HTTP", result
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


asyncio.run(main())
