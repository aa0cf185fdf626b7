"""Checks a 2025-era peer server's interop tool set with the official MCP Python SDK 1.x client.

Usage: python check_server.py --url URL                   (streamable HTTP)
       python check_server.py --stdio -- COMMAND ARGS...  (spawns the server over stdio)

Drives the tool set every peer server serves (see tests/interop/*/server.*) through
`ClientSession`, with elicitation and sampling callbacks:
elicit_name (accept -> "Hello, Ada!", then decline -> "declined"), sample
("sampled: hi there"), progress (three progress notifications, "done"),
add_tool (notifications/tools/list_changed, `added` listed and answering
"added", a second call "ok"), resources/subscribe + bump
(notifications/resources/updated for test://counter), slow cancelled with
notifications/cancelled (cancelled_count goes up by one).

Prints one line per check and exits 0 when all passed. Bounded by 60 s.
"""

from __future__ import annotations

import argparse
import sys

import anyio
from pydantic import AnyUrl

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

failures: list[str] = []


def check(what: str, ok: bool, detail: object = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what} {detail}", flush=True)
    if not ok:
        failures.append(what)


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def run(session: ClientSession, answers: list[str], notes: list[types.ServerNotification]) -> None:
    init = await session.initialize()
    check("initialize", init.protocolVersion.startswith("2025"), init.protocolVersion)

    answers[:] = ["accept"]
    check("elicit_name accept", text_of(await session.call_tool("elicit_name")) == "Hello, Ada!")
    answers[:] = ["decline"]
    check("elicit_name decline", text_of(await session.call_tool("elicit_name")) == "declined")
    check("sample", (t := text_of(await session.call_tool("sample"))) == "sampled: hi there", t)

    steps: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append((progress, total, message))

    done = text_of(await session.call_tool("progress", progress_callback=on_progress))
    check("progress", done == "done" and steps == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")], steps)

    check("add_tool", text_of(await session.call_tool("add_tool")) == "ok")
    with anyio.move_on_after(5):
        while not any(isinstance(n.root, types.ToolListChangedNotification) for n in notes):
            await anyio.sleep(0.05)
    check("tools/list_changed", any(isinstance(n.root, types.ToolListChangedNotification) for n in notes))
    names = [t.name for t in (await session.list_tools()).tools]
    check("added listed", "added" in names, names)
    check("added answers", text_of(await session.call_tool("added")) == "added")
    check("add_tool again", text_of(await session.call_tool("add_tool")) == "ok")

    await session.subscribe_resource(AnyUrl("test://counter"))
    await session.call_tool("bump")
    with anyio.move_on_after(5):
        while not any(isinstance(n.root, types.ResourceUpdatedNotification) for n in notes):
            await anyio.sleep(0.05)
    check("resources/updated", any(isinstance(n.root, types.ResourceUpdatedNotification) for n in notes))
    read = await session.read_resource(AnyUrl("test://counter"))
    check("read counter", read.contents[0].text.isdigit(), read.contents[0].text)

    before = int(text_of(await session.call_tool("cancelled_count")))
    request_id = session._request_id  # the id the next request gets
    async with anyio.create_task_group() as tg:

        async def call_slow() -> None:
            with anyio.move_on_after(5):
                await session.call_tool("slow")

        tg.start_soon(call_slow)
        await anyio.sleep(0.5)
        await session.send_notification(
            types.ClientNotification(
                types.CancelledNotification(params=types.CancelledNotificationParams(requestId=request_id))
            )
        )
        tg.cancel_scope.cancel()
    after = before
    with anyio.move_on_after(5):
        while after == before:
            after = int(text_of(await session.call_tool("cancelled_count")))
            await anyio.sleep(0.1)
    check("slow cancelled", after == before + 1, f"{before} -> {after}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url")
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    answers: list[str] = ["accept"]
    notes: list[types.ServerNotification] = []

    async def on_elicit(context, params: types.ElicitRequestParams):
        action = answers[0]
        return types.ElicitResult(action=action, content={"name": "Ada"} if action == "accept" else None)

    async def on_sample(context, params: types.CreateMessageRequestParams):
        ok = params.maxTokens == 50 and params.messages[0].content.text == "Say hi"
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="hi there" if ok else "bad"), model="m"
        )

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification):
            notes.append(message)

    def session(read, write) -> ClientSession:
        return ClientSession(
            read, write, elicitation_callback=on_elicit, sampling_callback=on_sample, message_handler=on_message
        )

    with anyio.fail_after(60):
        if args.url:
            async with streamablehttp_client(args.url) as (read, write, _), session(read, write) as s:
                await run(s, answers, notes)
        else:
            params = StdioServerParameters(command=args.command[0], args=args.command[1:])
            async with stdio_client(params) as (read, write), session(read, write) as s:
                await run(s, answers, notes)


if __name__ == "__main__":
    anyio.run(main)
    sys.exit(1 if failures else 0)
