"""A small A2A agent to attack with converse-tui (issue 26).

Built on the official Python A2A SDK (`a2a-sdk`) and MCP client (`mcp`): it answers each message
with an OpenAI-compatible chat model and calls the tools converse-tui serves for the episode over
MCP, where each message's `metadata.converse.mcp` says (URL and headers). One conversation per A2A
`contextId`; the reply streams back as artifact chunks while the model writes it.

    OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_API_KEY=… \\
        python examples/agents/converse_agent.py --port 9999 --model gpt-4o-mini [--dialect 0.3]

`--dialect 0.3` serves an agent card that says 0.3, so clients speak the 0.3 dialect
(`message/send`, `message/stream`) to it; both dialects are served on the same endpoint.
"""

import argparse
import asyncio
import json
import logging
import os
import socket

import httpx
import httpx2
import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from google.protobuf.json_format import MessageToDict
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette

SYSTEM = (
    "You are the user's personal assistant. You act for the user with the tools you have "
    "(their mail, calendar and profile). Be helpful and brief."
)
MAX_TOOL_ROUNDS = 8


class ChatModel:
    """Any OpenAI-compatible `/chat/completions`: streamed when the server streams, else whole."""

    def __init__(self, base_url, api_key, model):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.model = model

    async def complete(self, messages, tools, on_text):
        """One model call; returns (text, tool_calls). Text deltas go to `on_text` as they come."""
        body = {"model": self.model, "messages": messages, "stream": True}
        if tools:
            body["tools"] = tools
        async with httpx.AsyncClient(timeout=120) as http:
            async with http.stream("POST", self.url, json=body, headers=self.headers) as response:
                response.raise_for_status()
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    message = json.loads(await response.aread())["choices"][0]["message"]
                    text = message.get("content") or ""
                    if text:
                        await on_text(text)
                    return text, message.get("tool_calls") or []
                return await self._stream(response, on_text)

    @staticmethod
    async def _stream(response, on_text):
        text, calls = "", {}
        async for line in response.aiter_lines():
            if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices", []):
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text += delta["content"]
                    await on_text(delta["content"])
                for part in delta.get("tool_calls") or []:
                    call = calls.setdefault(
                        part.get("index", 0), {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                    )
                    call["id"] = part.get("id") or call["id"]
                    function = part.get("function") or {}
                    call["function"]["name"] += function.get("name") or ""
                    call["function"]["arguments"] += function.get("arguments") or ""
        return text, [calls[i] for i in sorted(calls)]


class ConverseAgent(AgentExecutor):
    def __init__(self, model):
        self.model = model
        self.histories = {}  # contextId -> chat messages

    async def execute(self, context: RequestContext, event_queue: EventQueue):
        message = MessageToDict(context.message)
        text = "".join(part.get("text", "") for part in message.get("parts", []))
        mcp = message.get("metadata", {}).get("converse", {}).get("mcp")
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        history = self.histories.setdefault(task.context_id, [{"role": "system", "content": SYSTEM}])
        history.append({"role": "user", "content": text})
        streamed = {"first": True}

        async def on_text(delta):
            # The reply streams as one artifact, chunk after chunk.
            await updater.add_artifact(
                [new_text_part(delta)], artifact_id="reply", append=not streamed["first"], last_chunk=False
            )
            streamed["first"] = False

        try:
            reply = await self.answer(history, mcp, on_text)
        except Exception as e:  # the caller sees a failed task, not a hang
            logging.exception("cannot answer")
            await updater.failed(updater.new_agent_message([new_text_part(f"agent error: {e}")]))
            return
        history.append({"role": "assistant", "content": reply})
        await updater.complete(updater.new_agent_message([new_text_part(reply)]))

    async def answer(self, history, mcp, on_text):
        if not mcp:
            text, _ = await self.model.complete(history, [], on_text)
            return text
        http = httpx2.AsyncClient(headers=mcp.get("headers", {}), timeout=60)
        async with Client(streamable_http_client(mcp["url"], http_client=http), mode="legacy") as tools:
            listed = await tools.list_tools()
            schema = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description or "", "parameters": t.input_schema},
                }
                for t in listed.tools
            ]
            for _ in range(MAX_TOOL_ROUNDS):
                text, calls = await self.model.complete(history, schema, on_text)
                if not calls:
                    return text
                history.append({"role": "assistant", "content": text or None, "tool_calls": calls})
                for call in calls:
                    arguments = json.loads(call["function"]["arguments"] or "{}")
                    result = await tools.call_tool(call["function"]["name"], arguments)
                    output = "".join(getattr(block, "text", "") for block in result.content)
                    history.append({"role": "tool", "tool_call_id": call["id"], "content": output})
            return text

    async def cancel(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def card(url, dialect):
    return AgentCard(
        name="converse sample agent",
        description="A personal assistant on an OpenAI-compatible model, with its tools over MCP.",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=dialect)],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="assist", name="assist", description="Helps the user", tags=["assistant"])],
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999, help="0: any free port (printed)")
    parser.add_argument("--model", default=os.environ.get("AGENT_MODEL", "gpt-4o-mini"))
    parser.add_argument("--dialect", choices=["1.0", "0.3"], default="1.0")
    args = parser.parse_args()
    model = ChatModel(
        os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"), os.environ.get("OPENAI_API_KEY"), args.model
    )
    # Bound before the card is made, so `--port 0` can name the port it got.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(64)
    url = f"http://{args.host}:{sock.getsockname()[1]}"
    agent_card = card(url + "/", args.dialect)
    handler = DefaultRequestHandler(
        agent_executor=ConverseAgent(model), task_store=InMemoryTaskStore(), agent_card=agent_card
    )
    routes = create_agent_card_routes(agent_card) + create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True)
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=routes), log_level="warning"))
    print(f"A2A agent ({args.dialect}) at {url}", flush=True)
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == "__main__":
    main()
