"""A pydantic-ai agent served over A2A by fasta2a, as pydantic-ai's docs build one: an
`OpenAIChatModel` on any OpenAI-compatible endpoint, an `MCPToolset` on a Streamable HTTP server,
`agent_to_a2a` (fasta2a's replacement for `Agent.to_a2a()`) and uvicorn. Configured only by
its environment:

    OPENAI_BASE_URL, OPENAI_API_KEY, MODEL   the model
    MCP_URL, MCP_AUTH                        the MCP server and its Authorization header
    PORT                                     where it serves A2A (127.0.0.1)
"""

import os

import uvicorn
from fasta2a.pydantic_ai import agent_to_a2a
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

port = int(os.environ.get("PORT", "8000"))
model = OpenAIChatModel(
    os.environ.get("MODEL", "gpt-4o-mini"),
    provider=OpenAIProvider(base_url=os.environ["OPENAI_BASE_URL"], api_key=os.environ["OPENAI_API_KEY"]),
)
toolset = MCPToolset(os.environ["MCP_URL"], headers={"Authorization": os.environ["MCP_AUTH"]})
agent = Agent(
    model,
    name="pydantic-ai-assistant",
    instructions="You are the user's personal assistant. Use your tools (mail, calendar, profile).",
    toolsets=[toolset],
)
app = agent_to_a2a(agent, url=f"http://127.0.0.1:{port}")

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=port)
