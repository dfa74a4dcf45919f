"""The official MCP Python SDK asking and answering through `toolbox serve --http`.

Usage: approvals_http.py MODE WORKSPACE URL_A URL_B URL_OTHER   (MODE: auto | legacy)

URL_A and URL_B are two instances serving WORKSPACE with the same approval-state key (as behind
a load balancer); URL_OTHER serves it with a key of its own. Checks, each printing `ok <name>`:
a progress notification, an approval by elicitation (accepted, and rejected with guidance), and,
at 2026-07-28, a round trip begun on one instance and finished on the other, which a server with
another key refuses. The first failed assertion ends the script with a traceback and a non-zero
exit, which the Rust test (tests/mcp_http.rs) reports.
"""

import asyncio
import os
import sys

from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from common import accept, text

mode, workspace, url_a, url_b, url_other = sys.argv[1:6]
answers: list = []
questions: list[str] = []


async def on_elicitation(context, params):
    questions.append(params.message)
    return answers.pop(0)


def client(url: str) -> Client:
    return Client(streamable_http_client(url), mode=mode, elicitation_callback=on_elicitation)


async def main() -> None:
    async with client(url_a) as a:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert a.protocol_version == expected, a.protocol_version

        reports = []

        async def on_progress(progress, total, message):
            reports.append((progress, total, message))

        result = await a.call_tool(
            "run_shell", {"command": "echo warming up; sleep 2.5"}, progress_callback=on_progress
        )
        assert result.is_error is False, result
        assert reports, "no progress notification arrived"
        assert reports[0][1] == 120, reports
        print("ok progress")

        if mode == "legacy":
            # Over stateless HTTP a 2025-11-25 client cannot be asked (its answer to
            # elicitation/create would need a session): refused, saying so.
            result = await a.call_tool("write_file", {"path": "refused.md", "content": "no\n"})
            assert result.is_error is True, result
            assert "stateless HTTP" in text(result) and "2026-07-28" in text(result), result
            assert not questions, questions
            assert not os.path.exists(os.path.join(workspace, "refused.md"))
            print("ok legacy refused over stateless HTTP")
            return

        answers.append(accept("once"))
        result = await a.call_tool("write_file", {"path": "approved.md", "content": "yes\n"})
        assert result.is_error is False, result
        assert "approved.md" in questions[-1], questions
        with open(os.path.join(workspace, "approved.md")) as written:
            assert written.read() == "yes\n"
        print("ok elicitation accepted")

        answers.append(accept("reject", "write to notes.md instead"))
        result = await a.call_tool("write_file", {"path": "rejected.md", "content": "no\n"})
        assert result.is_error is True, result
        assert "write to notes.md instead" in text(result), result
        assert not os.path.exists(os.path.join(workspace, "rejected.md"))
        print("ok elicitation rejected with guidance")

        # Begun on A ...
        arguments = {"path": "across.md", "content": "x\n"}
        first = await a.session.call_tool("write_file", arguments, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult), first
        approve = {"approval": accept("once").model_dump(by_alias=True, exclude_none=True)}

    # ... refused by an instance with another key ...
    async with client(url_other) as other:
        try:
            await other.session.call_tool(
                "write_file", arguments, input_responses=approve,
                request_state=first.request_state, allow_input_required=True,
            )
        except MCPError as error:
            assert error.error.code == -32602 and "integrity" in error.error.message, error.error
        else:
            raise AssertionError("a server with another key must refuse the state")
        assert not os.path.exists(os.path.join(workspace, "across.md"))
        print("ok another key refused")

    # ... and finished on B, which shares A's key.
    async with client(url_b) as b:
        result = await b.session.call_tool(
            "write_file", arguments, input_responses=approve,
            request_state=first.request_state, allow_input_required=True,
        )
        assert isinstance(result, types.CallToolResult) and result.is_error is False, result
        assert os.path.exists(os.path.join(workspace, "across.md"))
        print("ok round trip across instances")


asyncio.run(main())
