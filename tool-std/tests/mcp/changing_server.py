"""A fixture MCP server for tests/mcp_list_changed.rs, written with the official Python SDK,
over stdio: `grow` adds the tool `grown`, `shrink` removes it, and each says the tool list
changed (on `subscriptions/listen` streams at 2026-07-28, `notifications/tools/list_changed` at
2025-11-25)."""

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("changing-fixture")


def grown() -> str:
    """A tool that comes and goes."""
    return "grown"


async def announce(ctx: Context) -> None:
    await ctx.notify_tools_changed()
    try:
        await ctx.request_context.session.send_tool_list_changed()
    except Exception:  # a 2026-07-28 request has no session to notify: the listen stream did
        pass


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `grown`."""
    server.add_tool(grown, name="grown")
    await announce(ctx)
    return "added grown"


@server.tool()
async def shrink(ctx: Context) -> str:
    """Remove the tool `grown`."""
    server.remove_tool("grown")
    await announce(ctx)
    return "removed grown"


if __name__ == "__main__":
    server.run("stdio")
