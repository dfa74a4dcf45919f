"""The official MCP Python SDK as a client of `toolbox serve --http`.

Usage: client_http.py URL MODE [TOKEN]   (MODE: auto | legacy)

With TOKEN, every request carries `Authorization: Bearer TOKEN`. Each check prints
`ok <name>`; the first failed assertion ends the script with a traceback and a non-zero exit,
which the Rust test (tests/mcp_http.rs) reports.
"""

import asyncio
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from common import check_calls, check_list, check_protocol

url, mode = sys.argv[1], sys.argv[2]
token = sys.argv[3] if len(sys.argv) > 3 else None


async def main() -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            await checks(client)


async def checks(client: Client) -> None:
    check_protocol(client, mode)
    await check_list(client)
    await check_calls(client, "Serve over HTTP")


asyncio.run(main())
