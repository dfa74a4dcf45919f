"""Two clients of `toolbox serve --http`, each in a session of its own: 2025-11-25 clients with
`--legacy-sessions` (MODE legacy), or clients named by their bearer tokens with
`--client-tokens-file` (MODE auto, 2026-07-28, stateless; TOKEN_A and TOKEN_B given).

Usage: sessions_http.py URL WORKSPACE MODE [TOKEN_A TOKEN_B]

Client A approves `write_file` "for the session", so its second write is not asked; client B is
asked about its own write and rejects it (A's grant is not B's). A's background job is not
listed for B, nor readable by it. Prints `choices <const,...>`, the decisions offered to A,
then `ok isolated`.
"""

import asyncio
import os
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from common import accept, text

url, workspace, mode = sys.argv[1:4]
tokens = sys.argv[4:6] if len(sys.argv) > 5 else [None, None]
asked = {"a": 0, "b": 0}
offered: list[str] = []


def answering(name: str, decision: str):
    async def on_elicitation(context, params):
        asked[name] += 1
        if name == "a" and not offered:
            choices = params.requested_schema["properties"]["decision"]["oneOf"]
            offered.extend(choice["const"] for choice in choices)
        return accept(decision)

    return on_elicitation


async def main() -> None:
    headers = [{"Authorization": f"Bearer {token}"} if token else None for token in tokens]
    async with (
        create_mcp_http_client(headers=headers[0]) as http_a,
        create_mcp_http_client(headers=headers[1]) as http_b,
        Client(streamable_http_client(url, http_client=http_a), mode=mode, elicitation_callback=answering("a", "session")) as session_a,
        Client(streamable_http_client(url, http_client=http_b), mode=mode, elicitation_callback=answering("b", "reject")) as session_b,
    ):
        for name in ("a1.md", "a2.md"):
            result = await session_a.call_tool("write_file", {"path": name, "content": "a\n"})
            assert result.is_error is False, result
        assert asked["a"] == 1, asked  # the grant for the session held for A's second write
        result = await session_b.call_tool("write_file", {"path": "b1.md", "content": "b\n"})
        assert result.is_error is True, result
        assert asked["b"] == 1, asked  # B was asked: A's grant is A's
        assert not os.path.exists(os.path.join(workspace, "b1.md"))

        started = await session_a.call_tool("run_shell", {"command": "sleep 30", "run_in_background": True})
        assert started.is_error is False, started
        job = started.structured_content["job_id"]
        listed = await session_a.call_tool("list_shells", {})
        assert job in text(listed), text(listed)
        listed = await session_b.call_tool("list_shells", {})
        assert job not in text(listed), text(listed)
        output = await session_b.call_tool("shell_output", {"bash_id": job})
        assert output.is_error is True, output
    print("choices " + ",".join(offered))
    print("ok isolated")


asyncio.run(main())
