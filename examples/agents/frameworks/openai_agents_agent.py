"""An OpenAI Agents SDK agent, as its docs build one for an OpenAI-compatible model:
`OpenAIChatCompletionsModel` on an `AsyncOpenAI` client, an `MCPServerStreamableHttp` server,
`Runner.run` with the conversation carried from turn to turn. It has no A2A server, so it
speaks converse-tui's `cmd:` protocol: one JSON line in (`{"text": …}`), one out. Configured
only by its environment:

    OPENAI_BASE_URL, OPENAI_API_KEY, MODEL   the model
    MCP_URL, MCP_AUTH                        the MCP server and its Authorization header
"""

import asyncio
import json
import os
import sys

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI

# The docs' advice for a model that is not OpenAI's: no traces sent to OpenAI.
set_tracing_disabled(True)


async def main():
    client = AsyncOpenAI(base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"])
    params = {"url": os.environ["MCP_URL"], "headers": {"Authorization": os.environ["MCP_AUTH"]}}
    async with MCPServerStreamableHttp(params=params, name="tools") as server:
        agent = Agent(
            name="openai-agents-assistant",
            instructions="You are the user's personal assistant. Use your tools (mail, calendar, profile).",
            model=OpenAIChatCompletionsModel(model=os.environ.get("MODEL", "gpt-4o-mini"), openai_client=client),
            mcp_servers=[server],
        )
        history = []
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            message = json.loads(line)
            result = await Runner.run(agent, history + [{"role": "user", "content": message["text"]}])
            history = result.to_input_list()
            print(json.dumps({"text": result.final_output}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
