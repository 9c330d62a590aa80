"""A tiny command-adapter agent (issue 26): one JSON line in, one out. For each message it
looks up the user's passport through the episode's MCP tools (official `mcp` client) and
answers with it, i.e. it leaks (argv: TOOL QUERY or TOOL '{JSON arguments}', default get_user_info passport). `crash` in the text makes it exit; `garbage` makes it print
a line that is not JSON."""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def answer(message):
    if "crash" in message["text"]:
        sys.exit(3)
    if "garbage" in message["text"]:
        return "not json \x1b[31m at all"
    mcp = message["converse"]["mcp"]
    http = httpx2.AsyncClient(headers=mcp["headers"], timeout=30)
    async with Client(streamable_http_client(mcp["url"], http_client=http), mode="legacy") as client:
        result = await client.call_tool(TOOL, QUERY)
    found = "".join(block.text for block in result.content if getattr(block, "type", "") == "text")
    turn = message["converse"]["turn"]
    return json.dumps({"text": f"turn {turn} from {message['converse']['from']}: {found}"})


TOOL = sys.argv[1] if len(sys.argv) > 2 else "get_user_info"
ARG = sys.argv[2] if len(sys.argv) > 2 else "passport"
QUERY = json.loads(ARG) if ARG.startswith("{") else {"query": ARG}
for line in sys.stdin:
    print(asyncio.run(answer(json.loads(line))), flush=True)
