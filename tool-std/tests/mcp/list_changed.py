"""The official MCP Python SDK hearing that a served toolset changed.

Usage: list_changed.py TARGET MODE TOOL

TARGET is an http:// URL, or `stdio:` followed by a JSON list (a command line to spawn).
MODE is `auto` (2026-07-28: the changes arrive on `subscriptions/listen`) or `legacy`
(2025-11-25: `notifications/tools/list_changed`). TOOL is the name under which the added tool
is listed.

The Rust test (tests/mcp_list_changed.rs) changes the served toolset when asked: the script
prints `step NAME` and waits for `done NAME` on stdin. Steps: `unchanged` (an update that
changes nothing), `add` (TOOL added), `remove` (TOOL removed). Each check prints `ok <name>`.
"""

import asyncio
import json
import sys

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.subscriptions import ToolsListChanged

target, mode, added = sys.argv[1], sys.argv[2], sys.argv[3]

# How long "nothing arrives" is waited for. Announcements are coalesced for 50 ms by the
# server (twice that through a chain), so a second is far beyond any announcement.
QUIET = 1.0
# How long an announcement may take to arrive on a loaded machine.
PATIENCE = 30.0


async def step(name: str) -> None:
    """Asks the Rust test to change the toolset, and waits until it has."""
    print(f"step {name}", flush=True)
    line = await anyio.to_thread.run_sync(sys.stdin.readline)
    assert line.strip() == f"done {name}", line


async def hears_nothing(next_event, behaviour: str) -> None:
    """Passes, printing `ok <behaviour>`, when `next_event` brings nothing within QUIET."""
    try:
        event = await asyncio.wait_for(next_event, QUIET)
    except TimeoutError:
        print(f"ok {behaviour}")
    else:
        raise AssertionError(f"expected that {behaviour}, but got {event}")


async def names(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def check_added(client: Client) -> None:
    assert added in await names(client), await names(client)
    result = await client.call_tool(added, {})
    assert result.is_error is False, result
    assert "extra" in result.content[0].text, result.content


async def listen(client: Client) -> None:
    """2026-07-28: one stream asks for tool list changes, another only for prompts."""
    assert added not in await names(client)
    async with client.listen(prompts_list_changed=True) as deaf, client.listen(tools_list_changed=True) as heard:
        assert heard.honored.tools_list_changed is True, heard.honored
        assert not deaf.honored.tools_list_changed, deaf.honored
        print("ok listen acknowledged")

        await step("unchanged")
        await hears_nothing(heard.__anext__(), "no announcement for an unchanged list")

        await step("add")
        event = await asyncio.wait_for(heard.__anext__(), PATIENCE)
        assert isinstance(event, ToolsListChanged), event
        await check_added(client)
        print("ok added tool announced")

        await hears_nothing(deaf.__anext__(), "a stream without toolsListChanged hears nothing")

        await step("remove")
        event = await asyncio.wait_for(heard.__anext__(), PATIENCE)
        assert isinstance(event, ToolsListChanged), event
        assert added not in await names(client)
        print("ok removed tool announced")


async def legacy(client: Client, heard: asyncio.Queue) -> None:
    """2025-11-25: `notifications/tools/list_changed` on the connection."""
    assert added not in await names(client)
    await step("unchanged")
    await hears_nothing(heard.get(), "no announcement for an unchanged list")

    await step("add")
    await asyncio.wait_for(heard.get(), PATIENCE)
    await check_added(client)
    print("ok added tool announced")

    await step("remove")
    await asyncio.wait_for(heard.get(), PATIENCE)
    assert added not in await names(client)
    print("ok removed tool announced")


def is_list_changed(message) -> bool:
    message = getattr(message, "root", message)
    return getattr(message, "method", None) == "notifications/tools/list_changed"


async def main() -> None:
    heard: asyncio.Queue = asyncio.Queue()

    async def on_message(message) -> None:
        if is_list_changed(message):
            heard.put_nowait(message)

    async def checks(client: Client) -> None:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.protocol_version == expected, client.protocol_version
        if mode == "legacy":
            await legacy(client, heard)
        else:
            await listen(client)

    if target.startswith("stdio:"):
        command = json.loads(target[len("stdio:"):])
        server = StdioServerParameters(command=command[0], args=command[1:])
        async with Client(server, mode=mode, message_handler=on_message) as client:
            await checks(client)
    else:
        async with create_mcp_http_client() as http:
            transport = streamable_http_client(target, http_client=http)
            async with Client(transport, mode=mode, message_handler=on_message) as client:
                await checks(client)


asyncio.run(main())
