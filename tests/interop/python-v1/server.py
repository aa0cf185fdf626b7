"""The official MCP Python SDK 1.x (FastMCP, the 2025-era protocol) serving the interop tool set.

Usage: python server.py --stdio          (stdio)
       python server.py --http PORT      (streamable HTTP on 127.0.0.1, stateful sessions;
                                          PORT 0 picks a free port; prints `listening on
                                          http://127.0.0.1:PORT/mcp` on stdout once listening)

Everything goes through FastMCP's public API (`Context`), except two things the
SDK does not offer: `resources/subscribe` is answered by a handler registered on
the low-level server FastMCP wraps (`_mcp_server.subscribe_resource()`), and the
capabilities it announces are widened to say so (the low-level server hard-codes
`resources.subscribe: false`, and FastMCP leaves `tools.listChanged` false though
it sends the notification). The tools:
- `elicit_name`: a form elicitation ("What is your name?", one required string
  `name`, through `ctx.elicit`); `Hello, NAME!`, `declined` or `cancelled`;
- `sample`: `sampling/createMessage` (one user message "Say hi", maxTokens 50);
  `sampled: TEXT`;
- `progress`: three progress notifications for the request's token (1..3 of 3,
  "step N", 50 ms apart, `ctx.report_progress`); `done`;
- `add_tool`: adds the tool `added` (answers `added`) and sends
  `notifications/tools/list_changed`; `ok` (a second call is a no-op);
- `slow`: waits up to 30 s; when the client cancels, the SDK cancels the
  handler's task (anyio cancellation), which is counted and re-raised;
  `finished` when it ran to the end;
- `cancelled_count`: how many `slow` calls were cancelled, in this process;
- `bump`: increments the counter behind the resource `test://counter` and sends
  `notifications/resources/updated` when this session subscribed to it.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys

import anyio
import uvicorn
from pydantic import AnyUrl, BaseModel

from mcp import types
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.session import ServerSession

COUNTER_URI = "test://counter"

mcp = FastMCP("python-v1-interop-server")

# Shared by every session of this process.
state = {"cancelled": 0, "counter": 0, "added": False}
# The sessions subscribed to test://counter.
subscribers: set[ServerSession] = set()


class Name(BaseModel):
    """The form `elicit_name` asks for."""

    name: str


@mcp.tool(description="Asks the client for a name.")
async def elicit_name(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", Name)
    if answer.action == "accept":
        return f"Hello, {answer.data.name}!"
    return "declined" if answer.action == "decline" else "cancelled"


@mcp.tool(description="Asks the client's model to say hi.")
async def sample(ctx: Context) -> str:
    answer = await ctx.session.create_message(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hi"))],
        max_tokens=50,
        related_request_id=ctx.request_id,
    )
    content = answer.content[0] if isinstance(answer.content, list) else answer.content
    return f"sampled: {content.text if isinstance(content, types.TextContent) else ''}"


@mcp.tool(description="Reports three steps of progress.")
async def progress(ctx: Context) -> str:
    for step in (1, 2, 3):
        await ctx.report_progress(step, 3, f"step {step}")
        await anyio.sleep(0.05)
    return "done"


def added() -> str:
    """The tool `add_tool` adds."""
    return "added"


@mcp.tool(description="Registers the tool `added`.")
async def add_tool(ctx: Context) -> str:
    if not state["added"]:
        state["added"] = True
        mcp.add_tool(added, name="added", description="Added at run time.")
        await ctx.session.send_tool_list_changed()
    return "ok"


@mcp.tool(description="Waits 30 s unless cancelled.")
async def slow() -> str:
    try:
        await anyio.sleep(30)
    except anyio.get_cancelled_exc_class():
        state["cancelled"] += 1
        print(f"slow: cancelled ({state['cancelled']} so far)", file=sys.stderr, flush=True)
        raise
    return "finished"


@mcp.tool(description="How many slow calls were cancelled.")
async def cancelled_count() -> str:
    return str(state["cancelled"])


@mcp.resource(COUNTER_URI, name="counter", mime_type="text/plain", description="A counter that `bump` increments.")
def counter() -> str:
    return str(state["counter"])


@mcp.tool(description="Increments test://counter.")
async def bump(ctx: Context) -> str:
    state["counter"] += 1
    if ctx.session in subscribers:
        await ctx.session.send_resource_updated(AnyUrl(COUNTER_URI))
    return str(state["counter"])


lowlevel = mcp._mcp_server


@lowlevel.subscribe_resource()
async def subscribe(uri: AnyUrl) -> None:
    if str(uri) == COUNTER_URI:
        subscribers.add(lowlevel.request_context.session)


@lowlevel.unsubscribe_resource()
async def unsubscribe(uri: AnyUrl) -> None:
    if str(uri) == COUNTER_URI:
        subscribers.discard(lowlevel.request_context.session)


_capabilities = lowlevel.get_capabilities


def capabilities(*args, **kwargs) -> types.ServerCapabilities:
    """The SDK's capabilities, saying that resources can be subscribed to and that tools change."""
    caps = _capabilities(*args, **kwargs)
    if caps.resources is not None:
        caps.resources.subscribe = True
    if caps.tools is not None:
        caps.tools.listChanged = True
    return caps


lowlevel.get_capabilities = capabilities


async def serve_http(port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.setblocking(False)
    bound = sock.getsockname()[1]
    mcp.settings.port = bound
    app = mcp.streamable_http_app()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task
            return
        await asyncio.sleep(0.02)
    print(f"listening on http://127.0.0.1:{bound}/mcp", flush=True)
    await task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true")
    mode.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    if args.stdio:
        mcp.run("stdio")
    else:
        asyncio.run(serve_http(args.http))


if __name__ == "__main__":
    main()
