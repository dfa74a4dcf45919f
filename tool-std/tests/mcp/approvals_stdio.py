"""The official MCP Python SDK answering `toolbox serve`'s approval questions over stdio.

Usage: approvals_stdio.py TOOLBOX WORKSPACE MODE   (MODE: auto | legacy)

`write_file` needs the user's approval in the default mode, so the server asks the client by
elicitation: `elicitation/create` on 2025-11-25 (legacy), the `input_required` round trip on
2026-07-28 (auto), which the SDK drives through the same elicitation callback. Each check
prints `ok <name>`; the first failed assertion ends the script with a traceback and a non-zero
exit, which the Rust test (tests/mcp_python.rs) reports.
"""

import asyncio
import os
import sys

from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError

from common import accept, text

toolbox, workspace, mode = sys.argv[1], sys.argv[2], sys.argv[3]

# What the user answers next (an `asyncio.Event` for an answer held until it is set: a user
# still thinking), and every question they were shown.
answers: list = []
questions: list[str] = []
asked_and_holding = asyncio.Event()


async def on_elicitation(context, params):
    questions.append(params.message)
    assert params.requested_schema["required"] == ["decision"], params.requested_schema
    answer = answers.pop(0)
    if isinstance(answer, asyncio.Event):
        asked_and_holding.set()
        await answer.wait()
        return accept("once")
    return answer


async def main() -> None:
    server = StdioServerParameters(command=toolbox, args=["serve", "--workspace", workspace])
    async with Client(server, mode=mode, elicitation_callback=on_elicitation) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.protocol_version == expected, client.protocol_version

        answers.append(accept("once"))
        result = await client.call_tool("write_file", {"path": "approved.md", "content": "yes\n"})
        assert result.is_error is False, result
        assert "write_file" in questions[-1] and "approved.md" in questions[-1], questions
        with open(os.path.join(workspace, "approved.md")) as written:
            assert written.read() == "yes\n"
        print("ok elicitation accepted")

        answers.append(accept("reject", "write to notes.md instead"))
        result = await client.call_tool("write_file", {"path": "rejected.md", "content": "no\n"})
        assert result.is_error is True, result
        assert "rejected" in text(result) and "write to notes.md instead" in text(result), result
        assert not os.path.exists(os.path.join(workspace, "rejected.md"))
        print("ok elicitation rejected with guidance")

        answers.append(types.ElicitResult(action="decline"))
        result = await client.call_tool("write_file", {"path": "declined.md", "content": "no\n"})
        assert result.is_error is True, result
        assert "declined" in text(result), result
        assert not os.path.exists(os.path.join(workspace, "declined.md"))
        print("ok elicitation declined")

        # A plan asked about from inside the running tool (Session::ask): a 2025-11-25 client
        # is asked; a 2026-07-28 round trip cannot wait for a question a running tool asks.
        asked = len(questions)
        answers.append(accept("once"))
        result = await client.call_tool("present_plan", {"plan": "1. Write the notes"})
        if mode == "legacy":
            assert result.is_error is False, result
            assert "approved your plan" in text(result), result
            assert "1. Write the notes" in questions[-1], questions
            print("ok plan asked")
        else:
            answers.clear()
            assert len(questions) == asked, "nobody is asked mid-tool on 2026-07-28"
            assert "2026-07-28" in text(result), result
            print("ok plan refused mid-tool")

        if mode != "legacy":
            await round_trip_by_hand(client)
        else:
            await cancelled_while_asking(client)

        # Last, as it changes the session: approved for the session, write_file is not asked
        # about again.
        answers.append(accept("session"))
        result = await client.call_tool("write_file", {"path": "first.md", "content": "1\n"})
        assert result.is_error is False, result
        asked = len(questions)
        result = await client.call_tool("write_file", {"path": "second.md", "content": "2\n"})
        assert result.is_error is False, result
        assert len(questions) == asked, "a session approval covers the next call"
        print("ok session approval")


async def cancelled_while_asking(client: Client) -> None:
    """A call cancelled while its user is being asked stops waiting: an approval arriving
    after the cancellation runs nothing."""
    release = asyncio.Event()
    answers.append(release)
    call = asyncio.create_task(
        client.call_tool("write_file", {"path": "cancelled.md", "content": "late\n"})
    )
    await asked_and_holding.wait()
    call.cancel()  # the SDK sends notifications/cancelled
    try:
        await call
    except asyncio.CancelledError:
        pass
    release.set()  # the user approves, too late
    # Requests are handled in order: by the time this call is answered, the late approval
    # has reached the server.
    result = await client.call_tool("read_file", {"path": "approved.md"})
    assert result.is_error is False, result
    await asyncio.sleep(0.5)  # and the write it would have started has had time to happen
    assert not os.path.exists(os.path.join(workspace, "cancelled.md"))
    print("ok cancelled while asking")


async def round_trip_by_hand(client: Client) -> None:
    """The 2026-07-28 round trip driven by hand: the request state is sealed."""
    arguments = {"path": "by_hand.md", "content": "x\n"}
    first = await client.session.call_tool("write_file", arguments, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert set(first.input_requests) == {"approval"}, first.input_requests
    state = first.request_state
    approve = {"approval": accept("once").model_dump(by_alias=True, exclude_none=True)}

    tampered = state[:-1] + ("A" if state[-1] != "A" else "B")
    try:
        await client.session.call_tool(
            "write_file", arguments, input_responses=approve, request_state=tampered,
            allow_input_required=True,
        )
    except MCPError as error:
        assert error.error.code == -32602, error.error
        assert "integrity" in error.error.message, error.error
    else:
        raise AssertionError("a tampered request state must be refused")
    assert not os.path.exists(os.path.join(workspace, "by_hand.md"))
    print("ok tampered state refused")

    other = {"path": "elsewhere.md", "content": "x\n"}
    try:
        await client.session.call_tool(
            "write_file", other, input_responses=approve, request_state=state,
            allow_input_required=True,
        )
    except MCPError as error:
        assert error.error.code == -32602, error.error
        assert "another call" in error.error.message, error.error
    else:
        raise AssertionError("a request state moved to other arguments must be refused")
    assert not os.path.exists(os.path.join(workspace, "elsewhere.md"))
    print("ok state of another call refused")

    result = await client.session.call_tool(
        "write_file", arguments, input_responses=approve, request_state=state,
        allow_input_required=True,
    )
    assert isinstance(result, types.CallToolResult) and result.is_error is False, result
    assert os.path.exists(os.path.join(workspace, "by_hand.md"))
    print("ok round trip by hand")


asyncio.run(main())
