"""The official MCP Python SDK as a client of `toolbox serve` over stdio.

Usage: client_stdio.py TOOLBOX WORKSPACE MODE   (MODE: auto | legacy)

Each check prints `ok <name>`; the first failed assertion ends the script with a traceback and
a non-zero exit, which the Rust test (tests/mcp_python.rs) reports.
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters

from common import check_calls, check_list, check_protocol

toolbox, workspace, mode = sys.argv[1], sys.argv[2], sys.argv[3]


async def main() -> None:
    server = StdioServerParameters(command=toolbox, args=["serve", "--workspace", workspace])
    async with Client(server, mode=mode) as client:
        check_protocol(client, mode)
        tools = await check_list(client)
        assert "run_shell" in tools, sorted(tools)
        assert tools["write_file"].annotations.read_only_hint is False

        if mode != "legacy":
            # The toolset is fixed while served: cacheable for an hour, the same for everyone.
            raw = await client.session.list_tools()
            assert raw.ttl_ms == 3_600_000 and raw.cache_scope == "public", raw
            print("ok list caching")

        await check_calls(client, "Check the MCP server")

        # A union of objects as the output schema (run_shell: finished, or a background job):
        # the SDK checks structured content against the declared schema.
        assert tools["run_shell"].output_schema["type"] == "object", tools["run_shell"].output_schema
        result = await client.call_tool("run_shell", {"command": "echo hi"})
        assert result.is_error is False, result
        assert result.structured_content["output"] == "hi\n", result.structured_content
        print("ok union output schema")

        # A command still running reports its progress every second.
        reports = []

        async def on_progress(progress, total, message):
            reports.append((progress, total, message))

        result = await client.call_tool(
            "run_shell", {"command": "echo warming up; sleep 2.5"}, progress_callback=on_progress
        )
        assert result.is_error is False, result
        assert reports, "no progress notification arrived"
        progress, total, message = reports[0]
        assert progress >= 1 and total == 120, reports
        assert "warming up" in message, reports
        print("ok progress")

        result = await client.call_tool("read_file", {"file": "notes.md"})
        assert result.is_error is True, result
        assert "path" in result.content[0].text, result.content
        print("ok invalid arguments")

        result = await client.call_tool("write_file", {"path": "new.md", "content": "x"})
        assert result.is_error is True, result
        assert "approval" in result.content[0].text, result.content
        # This client declared no elicitation capability: the model reads that nobody can be asked.
        assert "elicitation capability" in result.content[0].text, result.content
        print("ok approval refused")


asyncio.run(main())
