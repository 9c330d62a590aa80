"""A Google ADK agent served over A2A, as the ADK docs build one: `LiteLlm` on any
OpenAI-compatible endpoint, an `McpToolset` on a Streamable HTTP server, `to_a2a` and uvicorn.
Configured only by its environment:

    OPENAI_BASE_URL, OPENAI_API_KEY, MODEL   the model (LiteLLM's `openai/` provider)
    MCP_URL, MCP_AUTH                        the MCP server and its Authorization header
    PORT                                     where it serves A2A (127.0.0.1)
"""

import os

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import LlmAgent
from google.adk.models.lite_llm import LiteLlm
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams

port = int(os.environ.get("PORT", "8001"))
root_agent = LlmAgent(
    name="adk_assistant",
    model=LiteLlm(
        model="openai/" + os.environ.get("MODEL", "gpt-4o-mini"),
        api_base=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
    ),
    instruction="You are the user's personal assistant. Use your tools (mail, calendar, profile).",
    tools=[
        McpToolset(
            connection_params=StreamableHTTPConnectionParams(
                url=os.environ["MCP_URL"], headers={"Authorization": os.environ["MCP_AUTH"]}
            )
        )
    ],
)
a2a_app = to_a2a(root_agent, host="127.0.0.1", port=port)

if __name__ == "__main__":
    uvicorn.run(a2a_app, host="127.0.0.1", port=port)
