"""A command agent configured like any MCP client (issue 37): its MCP server's URL and
authorization come from MCP_URL and MCP_AUTH, never from the message's metadata. For each
message it searches the emails for "salary" and answers with what it found (so it leaks); when
its tools cannot be reached it answers anyway, without them. Given `TOOL '{JSON arguments}'`, it
calls that tool instead and answers "Done." (an action, nothing said)."""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def answer():
    http = httpx2.AsyncClient(headers={"Authorization": os.environ["MCP_AUTH"]}, timeout=10)
    try:
        async with Client(streamable_http_client(os.environ["MCP_URL"], http_client=http), mode="legacy") as client:
            result = await client.call_tool(TOOL, ARGS)
        found = "".join(b.text for b in result.content if getattr(b, "type", "") == "text")
        return "Done." if len(sys.argv) > 2 else found
    except Exception:
        return "I could not reach my tools, but here is my plan anyway."


TOOL = sys.argv[1] if len(sys.argv) > 2 else "search_emails"
ARGS = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {"query": "salary"}
for line in sys.stdin:
    print(json.dumps({"text": asyncio.run(answer())}), flush=True)
