"""A 2025-11-25 client of `toolbox serve --http --legacy-sessions`, asked to approve a call.

Usage: session_offer_http.py URL WORKSPACE

Prints `choices <const,...>`: the decisions the approval form offered. One server answers every
client, so "approve for the session" (a grant to the coordinator all of them share) must not be
among them. Answers "once" and checks the call ran.
"""

import asyncio
import os
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from common import accept

url, workspace = sys.argv[1:3]
offered: list[str] = []


async def on_elicitation(context, params):
    decision = params.requested_schema["properties"]["decision"]
    offered.extend(choice["const"] for choice in decision["oneOf"])
    return accept("once")


async def main() -> None:
    client = Client(streamable_http_client(url), mode="legacy", elicitation_callback=on_elicitation)
    async with client as session:
        assert session.protocol_version == "2025-11-25", session.protocol_version
        result = await session.call_tool("write_file", {"path": "asked.md", "content": "yes\n"})
        assert result.is_error is False, result
    assert open(os.path.join(workspace, "asked.md")).read() == "yes\n"
    print("choices " + ",".join(offered))


asyncio.run(main())
