"""A fixture MCP server for tests/mcp_client.rs, written with the official Python SDK: one tool
that reports progress three times while it works, then answers, over stdio.

Each step takes a moment, as real work does. Reports written back to back with the answer could
reach the client's call out of order or after its end: rmcp hands each notification to a task
of its own and the response to the waiting call at once, and the coordinator keeps only reports
that grow and arrive before the call ends."""

import asyncio

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("progress-fixture")


@server.tool()
async def count(to: int, ctx: Context) -> str:
    """Count to `to`, reporting each step as progress."""
    for step in range(1, to + 1):
        await ctx.report_progress(step, to, f"step {step}")
        await asyncio.sleep(0.05)
    return f"counted to {to}"


if __name__ == "__main__":
    server.run("stdio")
