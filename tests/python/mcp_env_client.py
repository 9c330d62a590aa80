"""Drives converse-tui's MCP environment server with the official `mcp` client.

Usage: python mcp_env_client.py URL TOKEN MODE CALLS_JSON
MODE is "legacy" (initialize handshake) or a modern revision such as "2026-07-28".
CALLS_JSON is a list of [tool, arguments]. Prints one JSON object: the negotiated
version, the listed tool names and each call's text and isError.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main(url, token, mode, calls):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        tools = await client.list_tools()
        results = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = "".join(block.text for block in result.content if getattr(block, "type", "") == "text")
            results.append({"text": text, "is_error": bool(result.is_error)})
        print(json.dumps({
            "version": client.protocol_version,
            "tools": [tool.name for tool in tools.tools],
            "results": results,
        }))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])))
