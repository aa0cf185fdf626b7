"""A server written with the official MCP Python SDK, for our client to drive.

Usage: python server.py [PORT]   (default 0: the OS picks a free port)

Serves streamable HTTP on 127.0.0.1 with the SDK's high-level `MCPServer` and
prints `listening on http://127.0.0.1:PORT/mcp` on stderr once it accepts
requests. Handlers that need the user return the SDK's `InputRequiredResult`
(protocol revision 2026-07-28); `requestState` is sealed and verified by the
SDK's default `RequestStateBoundary` (AES-GCM under a process-local key), so a
handler only ever reads back the plaintext it minted.

- tool `plan_trip(city)`: asks `nights` (a form with an integer 1..14), then
  `breakfast` (a form with a boolean), carrying the first answer to the
  second round in `requestState`; completes with
  "Booked N night(s) in CITY with|without breakfast."
- prompt `greeting` (no arguments): asks `name` (a form with a string), then
  returns one user message "Say hello to NAME."
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel, Field, ValidationError

PATH = "/mcp"

server = MCPServer("python-interop-server", version="0.0.1")


class Nights(BaseModel):
    nights: int = Field(ge=1, le=14, description="How many nights?")


class Breakfast(BaseModel):
    breakfast: bool = Field(description="Breakfast included?")


class Name(BaseModel):
    name: str = Field(min_length=1, description="Whom to greet?")


def ask(key: str, message: str, form: type[BaseModel], state: dict[str, Any]) -> InputRequiredResult:
    """One form elicitation under `key`, with `state` to read back on the retry."""
    request = ElicitRequest(
        params=ElicitRequestFormParams(message=message, requested_schema=render_elicitation_schema(form))
    )
    return InputRequiredResult(input_requests={key: request}, request_state=json.dumps(state))


def answer(ctx: Context, key: str, form: type[BaseModel]) -> BaseModel | str | None:
    """The accepted, valid answer under `key`; "decline"/"cancel"; or None (missing or invalid)."""
    response = (ctx.input_responses or {}).get(key)
    if not isinstance(response, ElicitResult):
        return None
    if response.action != "accept":
        return response.action
    try:
        return form.model_validate(response.content or {})
    except ValidationError:
        return None


def read_state(ctx: Context) -> dict[str, Any]:
    """The plaintext state this server minted (the SDK verified the seal), or {} on a first call."""
    if ctx.request_state is None:
        return {}
    state = json.loads(ctx.request_state)
    return state if isinstance(state, dict) else {}


@server.tool()
async def plan_trip(city: str, ctx: Context) -> str | InputRequiredResult:
    """Books a hotel in a city, asking how many nights and whether to include breakfast."""
    state = read_state(ctx)
    if state.get("step") == "breakfast":
        nights = int(state["nights"])
        got = answer(ctx, "breakfast", Breakfast)
        if isinstance(got, Breakfast):
            plural = "night" if nights == 1 else "nights"
            extra = "with" if got.breakfast else "without"
            return f"Booked {nights} {plural} in {city} {extra} breakfast."
        if isinstance(got, str):
            return "Nothing booked."
        return ask_breakfast(nights)
    if state.get("step") == "nights":
        got = answer(ctx, "nights", Nights)
        if isinstance(got, Nights):
            return ask_breakfast(got.nights)
        if isinstance(got, str):
            return "Nothing booked."
    return ask("nights", f"How many nights in {city}?", Nights, {"step": "nights"})


def ask_breakfast(nights: int) -> InputRequiredResult:
    return ask("breakfast", f"{nights} nights: breakfast included?", Breakfast, {"step": "breakfast", "nights": nights})


@server.prompt()
async def greeting(ctx: Context) -> list[UserMessage] | InputRequiredResult:
    """A greeting for someone the user names."""
    got = answer(ctx, "name", Name)
    if isinstance(got, Name):
        return [UserMessage(f"Say hello to {got.name}.")]
    if isinstance(got, str):
        return [UserMessage("Say hello to nobody in particular.")]
    return ask("name", "Whom should I greet?", Name, {"step": "name"})


async def serve(port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    host, bound_port = sock.getsockname()
    app = server.streamable_http_app(streamable_http_path=PATH, host=host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)

    async def announce() -> None:
        while not web.started:
            if web.should_exit:
                return
            await anyio.sleep(0.02)
        print(f"listening on http://{host}:{bound_port}{PATH}", file=sys.stderr, flush=True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await web.serve(sockets=[sock])


def main() -> int:
    if len(sys.argv) > 2:
        print("usage: server.py [PORT]", file=sys.stderr)
        return 2
    port = int(sys.argv[1]) if len(sys.argv) == 2 else 0
    anyio.run(serve, port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
