"""A fixture MCP server for tests/mcp_client.rs, written with the official Python SDK: one tool
that reports progress three times before it answers, over stdio."""

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("progress-fixture")


@server.tool()
async def count(to: int, ctx: Context) -> str:
    """Count to `to`, reporting each step as progress."""
    for step in range(1, to + 1):
        await ctx.report_progress(step, to, f"step {step}")
    return f"counted to {to}"


if __name__ == "__main__":
    server.run("stdio")
