"""A Strands agent served over A2A, as the Strands docs build one: an `OpenAIModel` on any
OpenAI-compatible endpoint, an `MCPClient` on a Streamable HTTP server, and `A2AServer` with an
agent factory (one agent per A2A context). Configured only by its environment:

    OPENAI_BASE_URL, OPENAI_API_KEY, MODEL   the model
    MCP_URL, MCP_AUTH                        the MCP server and its Authorization header
    PORT                                     where it serves A2A (127.0.0.1)
"""

import os

from strands import Agent
from strands.models.openai import OpenAIModel
from strands.multiagent.a2a import A2AServer
from strands.tools.mcp import MCPClient

model = OpenAIModel(
    client_args={"api_key": os.environ["OPENAI_API_KEY"], "base_url": os.environ["OPENAI_BASE_URL"]},
    model_id=os.environ.get("MODEL", "gpt-4o-mini"),
)
mcp_client = MCPClient(url=os.environ["MCP_URL"], headers={"Authorization": os.environ["MCP_AUTH"]})


def make_agent(context_id):
    return Agent(
        name="strands-assistant",
        description="The user's personal assistant, with their mail, calendar and profile.",
        model=model,
        tools=[mcp_client],
        callback_handler=None,
    )


if __name__ == "__main__":
    A2AServer(agent_factory=make_agent, host="127.0.0.1", port=int(os.environ.get("PORT", "9000"))).serve()
