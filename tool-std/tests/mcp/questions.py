"""The official MCP Python SDK answering a tool's own questions (`Session::elicit`, a form).

Usage: questions.py MODE TRANSPORT ADDRESS
       (MODE: auto | legacy; TRANSPORT: stdio | http | http-sessions)
       questions.py relay PORT

With TRANSPORT stdio, ADDRESS is the port of a loopback socket on which the Rust test serves
MCP's stdio framing (newline-delimited JSON-RPC); the SDK's stdio client spawns this script as
`relay PORT`, which copies its stdin to that socket and the socket to its stdout. With http
(stateless) or http-sessions (sessions for 2025-11-25 clients), ADDRESS is the streamable
HTTP URL.

Each check prints `ok <name>`; the first failed assertion ends the script with a traceback and
a non-zero exit, which the Rust test (tests/mcp_questions.rs) reports.
"""

import asyncio
import base64
import os
import socket
import sys
import threading

from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from common import text


def relay(port: str) -> None:
    """stdin to the socket, the socket to stdout, until either side closes."""
    sock = socket.create_connection(("127.0.0.1", int(port)))

    def up() -> None:
        while data := os.read(0, 65536):
            sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)

    threading.Thread(target=up, daemon=True).start()
    while data := sock.recv(65536):
        while data:
            data = data[os.write(1, data):]


if sys.argv[1] == "relay":
    relay(sys.argv[2])
    sys.exit(0)

mode, transport, address = sys.argv[1:4]
answers: list = []
asked: list = []


async def on_elicitation(context, params):
    asked.append(params)
    return answers.pop(0)


async def on_sampling(context, params):
    prompt = params.messages[-1].content.text
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"echo: {prompt}"),
        model="test-model",
        stop_reason="endTurn",
    )


async def on_list_roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])


def accept(**content) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


def connect(answering: bool = True, sampling: bool = True) -> Client:
    if transport == "stdio":
        server = StdioServerParameters(command=sys.executable, args=[__file__, "relay", address])
    else:
        server = streamable_http_client(address)
    if answering:
        return Client(
            server,
            mode=mode,
            elicitation_callback=on_elicitation,
            sampling_callback=on_sampling if sampling else None,
            list_roots_callback=on_list_roots,
        )
    return Client(server, mode=mode)


async def main() -> None:
    async with connect() as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.protocol_version == expected, client.protocol_version

        answers.append(accept(name="Ada"))
        result = await client.call_tool("q_greet", {})
        assert result.is_error is False, result
        assert text(result) == "Hello, Ada!", result
        assert asked[-1].message == "What is your name?", asked[-1]
        assert asked[-1].requested_schema["required"] == ["name"], asked[-1]
        print("ok question answered")

        answers.append(types.ElicitResult(action="decline"))
        result = await client.call_tool("q_greet", {})
        assert text(result) == "declined", result
        print("ok question declined")

        before = len(asked)
        answers.extend([accept(name="Ada"), accept(color="blue")])
        result = await client.call_tool("q_two", {})
        assert text(result) == "Ada likes blue", result
        assert [q.message for q in asked[before:]] == ["Name?", "Color?"], asked[before:]
        print("ok two questions")

        # At 2026-07-28 the tool runs twice (its first run stops at the question), and what
        # it does after asking happens once.
        answers.append(accept(go=True))
        result = await client.call_tool("q_act", {})
        assert text(result) == "acted 1 time", result
        print("ok acted once")

        result = await client.call_tool("q_sample_and_roots", {})
        assert result.is_error is False, result
        assert text(result) == "echo: Name a color. / file:///work/project (project)", result
        print("ok sampled and listed roots")

        if mode == "auto":
            await rounds_by_hand(client)
            await approval_then_question(client)
            await after_pending(client)

    async with connect(answering=False) as client:
        result = await client.call_tool("q_greet", {})
        assert result.is_error is True, result
        assert "did not declare the elicitation capability" in text(result), result
        print("ok refused without elicitation")

        if mode == "auto":
            # Stateless, a call that needs what the client did not declare is the protocol's
            # MissingRequiredClientCapability error.
            try:
                await client.call_tool("q_sample_and_roots", {})
            except MCPError as error:
                assert error.error.code == -32021, error.error
                assert "sampling" in error.error.data["requiredCapabilities"], error.error
            else:
                raise AssertionError("a call needing sampling must be refused with -32021")
        else:
            result = await client.call_tool("q_sample_and_roots", {})
            assert result.is_error is True, result
            # The tool reads the roots' error first.
            assert "did not declare the roots capability" in text(result), result
        print("ok refused without sampling or roots")

    async with connect(sampling=False) as client:
        # The tool went on without the client's model and failed for a reason of its own:
        # that is its result, not the missing capability.
        result = await client.call_tool("q_sample_then_fail", {})
        assert result.is_error is True, result
        assert "a reason of its own" in text(result), result
        print("ok a tool failing for a reason of its own gets its result")

        if mode == "auto":
            # Asked at once for the user's answer and the model's message, which this client
            # cannot give: refused before the user answers a round for nothing.
            before = len(asked)
            answers.append(accept(name="Ada"))
            try:
                await client.call_tool("q_ask_and_sample", {})
            except MCPError as error:
                assert error.error.code == -32021, error.error
                assert "sampling" in error.error.data["requiredCapabilities"], error.error
            else:
                raise AssertionError("a call needing sampling must be refused with -32021")
            assert len(asked) == before, asked[before:]
            answers.clear()
            print("ok refused before asking when a capability is missing")


def tamper(state: str) -> str:
    """`state` with one byte of its sealed body changed, re-encoded: a well-formed state that
    only the seal's check can refuse (changing the last character of the tag may only flip
    base64 padding bits, and be refused by the decoding instead)."""
    version, body, tag = state.split(".")
    raw = bytearray(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw[len(raw) // 2] ^= 0x01
    changed = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    assert changed != body
    return ".".join([version, changed, tag])


async def approval_then_question(client: Client) -> None:
    """A tool the policy asks about and that asks a question of its own: the approval round,
    then the question's round, whose run takes the approval from the sealed state; an
    `approval` response sent along in the question's round is not taken."""
    dump = lambda result: result.model_dump(by_alias=True, exclude_none=True)
    first = await client.session.call_tool("q_guarded", {}, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert set(first.input_requests) == {"approval"}, first.input_requests
    approve = {"approval": dump(accept(decision="once"))}
    second = await client.session.call_tool(
        "q_guarded", {}, input_responses=approve, request_state=first.request_state,
        allow_input_required=True,
    )
    assert isinstance(second, types.InputRequiredResult), second
    assert set(second.input_requests) == {"question-1"}, second.input_requests
    responses = {
        "question-1": dump(accept(name="Ada")),
        # Not asked in this round: a rejection smuggled in must not replace the approval.
        "approval": dump(accept(decision="reject", guidance="stop")),
    }
    last = await client.session.call_tool(
        "q_guarded", {}, input_responses=responses, request_state=second.request_state,
        allow_input_required=True,
    )
    assert isinstance(last, types.CallToolResult), last
    assert last.is_error is False, last
    assert text(last) == "approved, Ada", last
    print("ok approval then question")


async def after_pending(client: Client) -> None:
    """A tool that carries on past a pending question asks nothing more in that run: its
    second question is pending at once, and goes out only once the first is answered."""
    dump = lambda result: result.model_dump(by_alias=True, exclude_none=True)
    first = await client.session.call_tool("q_careless", {}, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert set(first.input_requests) == {"question-1"}, first.input_requests
    second = await client.session.call_tool(
        "q_careless", {}, input_responses={"question-1": dump(accept(name="Ada"))},
        request_state=first.request_state, allow_input_required=True,
    )
    assert isinstance(second, types.InputRequiredResult), second
    assert set(second.input_requests) == {"question-2"}, second.input_requests
    last = await client.session.call_tool(
        "q_careless", {}, input_responses={"question-2": dump(accept(color="red"))},
        request_state=second.request_state, allow_input_required=True,
    )
    assert isinstance(last, types.CallToolResult), last
    assert text(last) == "Ada likes red", last
    print("ok no request after a pending one")


async def rounds_by_hand(client: Client) -> None:
    """The 2026-07-28 rounds driven by hand: one question a round, keyed by order of asking,
    each round's answers sealed in the request state."""
    first = await client.session.call_tool("q_two", {}, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert set(first.input_requests) == {"question-1"}, first.input_requests
    name = {"question-1": accept(name="Bo").model_dump(by_alias=True, exclude_none=True)}

    tampered = tamper(first.request_state)
    try:
        await client.session.call_tool(
            "q_two", {}, input_responses=name, request_state=tampered, allow_input_required=True
        )
    except MCPError as error:
        assert error.error.code == -32602, error.error
        assert "integrity" in error.error.message, error.error
    else:
        raise AssertionError("a tampered request state must be refused")
    print("ok tampered state refused")

    second = await client.session.call_tool(
        "q_two", {}, input_responses=name, request_state=first.request_state,
        allow_input_required=True,
    )
    assert isinstance(second, types.InputRequiredResult), second
    assert set(second.input_requests) == {"question-2"}, second.input_requests
    assert second.request_state != first.request_state
    # The first answer travels in the sealed state: a changed one sent along is not taken.
    responses = {
        "question-1": accept(name="Mallory").model_dump(by_alias=True, exclude_none=True),
        "question-2": accept(color="green").model_dump(by_alias=True, exclude_none=True),
    }
    last = await client.session.call_tool(
        "q_two", {}, input_responses=responses, request_state=second.request_state,
        allow_input_required=True,
    )
    assert isinstance(last, types.CallToolResult), last
    assert text(last) == "Bo likes green", last
    print("ok rounds by hand")


asyncio.run(main())
