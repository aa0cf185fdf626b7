"""The official MCP Python SDK 1.x client (the 2025-era protocol) drives our `interop-server`.

Usage: python client.py --url URL                (streamable HTTP)
       python client.py --stdio -- COMMAND ARGS...  (spawns the server, talks over stdio)

Everything goes through the SDK's public client API (`ClientSession` over
`streamable_http_client` or `stdio_client`); no JSON-RPC is written by hand.
The SDK opens with `initialize` (it asks for its latest version, 2025-11-25,
and accepts what the server answers if it supports it), sends
`notifications/initialized`, and over HTTP keeps the session the server
opened (MCP-Session-Id). Then:

a. records what the server answered to `initialize`: protocolVersion,
   serverInfo, capabilities (the version must be 2025-11-25, 2025-06-18 or
   2025-03-26);
b. lists the tools (expects `add`, `book_table` and `checkout`) and prompts (`haiku`);
c. calls `add` {a: 2, b: 3}, which must answer the text "5";
d. from a client that declares elicitation (the SDK does so when it is given
   an elicitation callback), calls `book_table` {restaurant: "Chez Rust"}: the
   server asks through `elicitation/create` requests, which the callback below
   answers by the requested schema's property name (guests -> 4,
   sitting -> "late"); the result must be "Booked Chez Rust for 4, late
   sitting." after exactly two callbacks;
e. gets the prompt `haiku`, whose elicitation asks for `topic` ("rust"): one
   user message "Write a haiku about rust.";
f. from a second client whose callback declines, calls `book_table`: "No
   table booked." after one callback;
g. pings;
h. from a third client without an elicitation callback (so it declares no
   elicitation capability), calls `book_table`: it must answer within 15 s
   with isError and a text that mentions elicitation;
j. from a fourth client (whose callback declares form and URL mode), calls
   `checkout` {euros: 40}: the server asks one URL-mode `elicitation/create`
   (a URL on pay.example.com, with an `elicitationId`), which the callback
   accepts; the server marks the payment done and sends
   `notifications/elicitation/complete` for that id, which the SDK parses
   into an `ElicitCompleteNotification` for the session's message handler;
   the result must be "Paid 40 EUR.";
i. over HTTP: the SDK ends the first session with DELETE when its context
   exits (`terminate_on_close`, on by default); an httpx event hook on the
   HTTP client handed to the SDK checks that it was sent with the session id
   and answered 2xx (or 405: the server does not let clients end sessions).
   The SDK offers no way to send a request with a session id of our choosing
   once its context has exited (it answers a 404 on a request inside a live
   context with its own "Session terminated" error, but the session cannot be
   ended under it through the public API), so the check that the ended
   session is refused with 404 repeats the bodiless DELETE with plain httpx
   (no JSON-RPC involved).

Over HTTP the summary also carries `http`: every HTTP exchange the SDK made
(method, JSON-RPC method or kind, status, response content type and the MCP
headers sent), which shows what this client sends and expects.

Prints a JSON summary on stdout and exits 0 when every check passed;
otherwise prints each mismatch on stderr (after the summary) and exits 1.
The whole run is bounded by 60 s.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from importlib.metadata import version
from typing import Any

import anyio
import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.session import ElicitationFnT, MessageHandlerFnT
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.context import RequestContext
from mcp.shared.exceptions import McpError

LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"]
RESTAURANT = "Chez Rust"
EXPECTED_ADD_TEXT = "5"
EXPECTED_TOOL_TEXT = "Booked Chez Rust for 4, late sitting."
EXPECTED_PROMPT_TEXT = "Write a haiku about rust."
EXPECTED_DECLINED_TEXT = "No table booked."
EXPECTED_PAID_TEXT = "Paid 40 EUR."
ANSWERS: dict[str, dict[str, str | int | float | bool | list[str] | None]] = {
    "guests": {"guests": 4},
    "sitting": {"sitting": "late"},
    "topic": {"topic": "rust"},
}
# The whole script, every connection included, must finish within this bound.
OVERALL_TIMEOUT_SECONDS = 60
# A call that cannot be completed (no elicitation capability) must end within this bound.
REFUSAL_TIMEOUT_SECONDS = 15


class Problems(list[str]):
    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.append(what)


class Answering:
    """An elicitation callback that answers the form by its (single) property
    name, recording every request it got."""

    def __init__(self, problems: Problems, decline: bool = False) -> None:
        self.asked: list[dict[str, Any]] = []
        self.problems = problems
        self.decline = decline

    async def __call__(
        self, context: RequestContext[ClientSession, Any], params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        record: dict[str, Any] = {"mode": params.mode, "message": params.message}
        self.asked.append(record)
        if not isinstance(params, types.ElicitRequestFormParams):
            self.problems.append(f"expected a form elicitation, got {params!r}")
            return types.ElicitResult(action="decline")
        schema = dict(params.requestedSchema)
        record["requestedSchema"] = schema
        fields = list(schema.get("properties", {}))
        record["fields"] = fields
        if self.decline:
            return types.ElicitResult(action="decline")
        answer = ANSWERS.get(fields[0]) if len(fields) == 1 else None
        if answer is None:
            self.problems.append(f"unexpected elicitation form with fields {fields}: {params!r}")
            return types.ElicitResult(action="decline")
        record["answer"] = answer
        return types.ElicitResult(action="accept", content=answer)


def texts(content: list[Any]) -> list[str]:
    return [c.text for c in content if isinstance(c, types.TextContent)]


class HttpTrace:
    """httpx event hooks recording each exchange the SDK makes (the HTTP client is
    handed to the SDK through its public `http_client` parameter)."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []

    async def on_response(self, response: httpx.Response) -> None:
        request = response.request
        entry: dict[str, Any] = {"method": request.method}
        if request.method == "POST":
            try:
                body = json.loads(request.content)
            except (ValueError, httpx.RequestNotRead):
                body = None
            if isinstance(body, dict):
                if "method" in body:
                    entry["jsonrpc"] = body["method"] + (" (request)" if "id" in body else " (notification)")
                else:
                    entry["jsonrpc"] = "error response" if "error" in body else "response"
        entry["status"] = response.status_code
        entry["contentType"] = response.headers.get("content-type")
        if response.status_code >= 400:
            # The SDK raises without reading an error's body; read it here so reports show it.
            entry["body"] = (await response.aread()).decode("utf-8", "replace")[:1000]
        for header in ("accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"):
            if header in request.headers:
                entry[header] = request.headers[header]
        if "mcp-session-id" in response.headers:
            entry["response mcp-session-id"] = response.headers["mcp-session-id"]
        self.exchanges.append(entry)

    def client(self) -> httpx.AsyncClient:
        # The SDK's own defaults (mcp.shared._httpx_utils.create_mcp_http_client): 30 s, 300 s reads.
        return httpx.AsyncClient(
            timeout=httpx.Timeout(30, read=300),
            event_hooks={"response": [self.on_response]},
        )


class Target:
    """Where the server is: a URL, or a command to spawn for stdio."""

    def __init__(self, url: str | None, command: list[str] | None) -> None:
        self.url = url
        self.command = command
        self.trace = HttpTrace()
        self.session_ids: list[str | None] = []

    @asynccontextmanager
    async def connect(
        self, elicitation: ElicitationFnT | None, on_message: MessageHandlerFnT | None = None
    ) -> AsyncIterator[tuple[ClientSession, types.InitializeResult]]:
        client_info = types.Implementation(name="mcp-interop-python-v1-client", version="1.0.0")
        if self.url is not None:
            async with (
                self.trace.client() as http,
                streamable_http_client(self.url, http_client=http) as (read, write, session_id),
                ClientSession(
                    read, write, elicitation_callback=elicitation, message_handler=on_message, client_info=client_info
                ) as session,
            ):
                result = await session.initialize()
                self.session_ids.append(session_id())
                yield session, result
        else:
            assert self.command is not None
            params = StdioServerParameters(command=self.command[0], args=self.command[1:])
            async with (
                stdio_client(params, errlog=sys.stderr) as (read, write),
                ClientSession(
                    read, write, elicitation_callback=elicitation, message_handler=on_message, client_info=client_info
                ) as session,
            ):
                yield session, await session.initialize()


async def main_session(target: Target, summary: dict[str, Any], problems: Problems) -> None:
    answering = Answering(problems)
    async with target.connect(answering) as (session, init):
        # a. What the server answered.
        summary["initialize"] = init.model_dump(mode="json", exclude_none=True)
        summary["protocolVersion"] = str(init.protocolVersion)
        problems.check(
            init.protocolVersion in LEGACY_VERSIONS,
            f"initialize: negotiated {init.protocolVersion!r}, expected one of {LEGACY_VERSIONS}",
        )
        problems.check(init.serverInfo.name == "interop-server", f"initialize: serverInfo {init.serverInfo!r}")

        # b. Listing.
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        prompts = sorted(p.name for p in (await session.list_prompts()).prompts)
        summary["listed"] = {"tools": tools, "prompts": prompts}
        problems.check(
            tools == ["add", "book_table", "checkout"],
            f"tools/list: expected add, book_table and checkout, got {tools}",
        )
        problems.check(prompts == ["haiku"], f"prompts/list: expected haiku, got {prompts}")

        # c. A plain tool.
        added = await session.call_tool("add", {"a": 2, "b": 3})
        summary["add"] = {"texts": texts(added.content), "isError": bool(added.isError)}
        problems.check(
            texts(added.content) == [EXPECTED_ADD_TEXT] and not added.isError,
            f"add: expected {[EXPECTED_ADD_TEXT]}, got {added!r}",
        )

        # d. Two elicitation rounds, answered.
        tool = await session.call_tool("book_table", {"restaurant": RESTAURANT})
        summary["tool"] = {
            "texts": texts(tool.content),
            "isError": bool(tool.isError),
            "elicitations": len(answering.asked),
            "asked": answering.asked,
        }
        problems.check(
            texts(tool.content) == [EXPECTED_TOOL_TEXT] and not tool.isError,
            f"book_table: expected {[EXPECTED_TOOL_TEXT]}, got {tool!r}",
        )
        fields = [a.get("fields") for a in answering.asked]
        problems.check(
            fields == [["guests"], ["sitting"]],
            f"book_table: the callback should be asked guests then sitting, was asked {fields}",
        )

        # e. A prompt with one elicitation round.
        answering.asked = []
        prompt = await session.get_prompt("haiku")
        messages = [
            {"role": m.role, "text": m.content.text if isinstance(m.content, types.TextContent) else None}
            for m in prompt.messages
        ]
        summary["prompt"] = {"messages": messages, "elicitations": len(answering.asked), "asked": answering.asked}
        problems.check(
            messages == [{"role": "user", "text": EXPECTED_PROMPT_TEXT}],
            f"haiku: expected one user message {EXPECTED_PROMPT_TEXT!r}, got {messages}",
        )
        fields = [a.get("fields") for a in answering.asked]
        problems.check(fields == [["topic"]], f"haiku: the callback should be asked topic once, was asked {fields}")

        # g. ping.
        await session.send_ping()
        summary["ping"] = True


def check_session_end(target: Target, summary: dict[str, Any], problems: Problems) -> None:
    """i. The SDK's DELETE when the first session's context exited (HTTP only)."""
    session_id = target.session_ids[0] if target.session_ids else None
    deletes = [e for e in target.trace.exchanges if e["method"] == "DELETE"]
    ended: dict[str, Any] = {"sessionId": session_id, "deletes": deletes}
    summary["sessionEnd"] = ended
    problems.check(session_id is not None, "initialize: the server opened no session (no MCP-Session-Id)")
    mine = [e for e in deletes if e.get("mcp-session-id") == session_id]
    problems.check(len(mine) == 1, f"session end: expected the SDK to send one DELETE for {session_id}, saw {deletes}")
    if mine:
        status = mine[0]["status"]
        ended["status"] = status
        problems.check(200 <= status < 300 or status == 405, f"session end: DELETE answered {status}")


async def check_ended_session_refused(target: Target, summary: dict[str, Any], problems: Problems) -> None:
    """i. The ended session is refused with 404 (plain HTTP, see the header comment)."""
    ended = summary["sessionEnd"]
    if ended.get("status") is None or ended["status"] == 405 or target.url is None:
        ended["afterEnd"] = "skipped: the session was not ended"
        return
    headers = {"mcp-session-id": ended["sessionId"], "mcp-protocol-version": summary["protocolVersion"]}
    async with httpx.AsyncClient(timeout=httpx.Timeout(15)) as http:
        response = await http.delete(target.url, headers=headers)
    ended["afterEnd"] = {"method": "DELETE", "status": response.status_code}
    problems.check(
        response.status_code == 404,
        f"session end: a DELETE with the ended session id should get 404, got {response.status_code}",
    )


async def declining_session(target: Target, summary: dict[str, Any], problems: Problems) -> None:
    """f. A user who declines the first form: the server must finish without a booking."""
    declining = Answering(problems, decline=True)
    async with target.connect(declining) as (session, _):
        declined = await session.call_tool("book_table", {"restaurant": RESTAURANT})
        fields = [a.get("fields") for a in declining.asked]
        summary["declined"] = {"texts": texts(declined.content), "elicitations": len(fields), "asked": fields}
        problems.check(
            texts(declined.content) == [EXPECTED_DECLINED_TEXT] and fields == [["guests"]],
            f"book_table declined: expected {[EXPECTED_DECLINED_TEXT]} after one declined guests form, "
            f"got {declined!r} after {fields}",
        )


async def incapable_session(target: Target, summary: dict[str, Any], problems: Problems) -> None:
    """h. A client that declared no elicitation: the tool call ends, promptly, as an error result."""
    async with target.connect(None) as (session, _):
        started = anyio.current_time()
        try:
            refused = await session.call_tool(
                "book_table",
                {"restaurant": RESTAURANT},
                read_timeout_seconds=timedelta(seconds=REFUSAL_TIMEOUT_SECONDS),
            )
        except McpError as error:
            summary["noElicitation"] = {"error": error.error.model_dump(mode="json", exclude_none=True)}
            problems.append(f"book_table without elicitation: expected an isError result, got error {error.error!r}")
            return
        text = " ".join(texts(refused.content))
        summary["noElicitation"] = {
            "isError": bool(refused.isError),
            "text": text,
            "seconds": round(anyio.current_time() - started, 3),
        }
        problems.check(bool(refused.isError), f"book_table without elicitation: isError is not set: {refused!r}")
        problems.check(
            "elicitation" in text.lower(),
            f"book_table without elicitation: the text should mention elicitation: {text!r}",
        )


async def url_step_session(target: Target, summary: dict[str, Any], problems: Problems) -> None:
    """j. A URL-mode step: accepted, announced complete, then paid."""
    asked: list[dict[str, Any]] = []
    completed: list[str] = []

    async def accept_url(
        context: RequestContext[ClientSession, Any], params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        if not isinstance(params, types.ElicitRequestURLParams):
            problems.append(f"checkout: expected a URL-mode elicitation, got {params!r}")
            return types.ElicitResult(action="decline")
        asked.append({"mode": params.mode, "message": params.message, "url": params.url, "elicitationId": params.elicitationId})
        return types.ElicitResult(action="accept")

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(message.root, types.ElicitCompleteNotification):
            completed.append(message.root.params.elicitationId)

    async with target.connect(accept_url, on_message) as (session, _):
        paid = await session.call_tool("checkout", {"euros": 40})
        # The notification precedes the result on the stream; allow its handler a moment.
        with anyio.move_on_after(1):
            while not completed:
                await anyio.sleep(0.02)
        summary["urlStep"] = {
            "texts": texts(paid.content),
            "isError": bool(paid.isError),
            "asked": asked,
            "completed": completed,
        }
        problems.check(
            texts(paid.content) == [EXPECTED_PAID_TEXT] and not paid.isError,
            f"checkout: expected {[EXPECTED_PAID_TEXT]}, got {paid!r}",
        )
        ids = [a["elicitationId"] for a in asked]
        problems.check(
            len(ids) == 1 and completed == ids,
            f"checkout: expected one URL elicitation and its completion, asked {asked}, completed {completed}",
        )


async def run(target: Target) -> tuple[dict[str, Any], Problems]:
    problems = Problems()
    summary: dict[str, Any] = {
        "sdk": f"mcp {version('mcp')}",
        "transport": "streamable-http" if target.url is not None else "stdio",
        "target": target.url if target.url is not None else target.command,
    }
    steps: list[tuple[str, Callable[..., Any]]] = [("main session", main_session)]
    if target.url is not None:
        steps.append(("session end", check_session_end))
        steps.append(("ended session", check_ended_session_refused))
    steps += [
        ("declining session", declining_session),
        ("session without elicitation", incapable_session),
        ("URL step", url_step_session),
    ]
    current = "start"
    try:
        with anyio.fail_after(OVERALL_TIMEOUT_SECONDS):
            for current, step in steps:
                try:
                    outcome = step(target, summary, problems)
                    if outcome is not None:
                        await outcome
                except Exception as error:  # noqa: BLE001 - report, go on with the next step
                    traceback.print_exc()
                    for leaf in leaves(error):
                        problems.append(f"{current}: {type(leaf).__name__}: {describe(leaf)}")
                    if "initialize" not in summary:
                        break  # the server does not speak this client's protocol: the rest would fail alike
    except TimeoutError:
        problems.append(f"{current}: not done within the overall bound of {OVERALL_TIMEOUT_SECONDS} s")
    if target.url is not None:
        summary["http"] = target.trace.exchanges
    return summary, problems


def describe(error: BaseException) -> str:
    if isinstance(error, McpError):
        return f"{error.error.message} (code {error.error.code}, data {error.error.data!r})"
    if isinstance(error, httpx.HTTPStatusError):
        try:
            body = error.response.text[:1000]
        except httpx.ResponseNotRead:
            body = "(not read)"
        return f"HTTP {error.response.status_code} for {error.request.method} {error.request.url}: {body}"
    return str(error)


def leaves(error: BaseException) -> list[BaseException]:
    """The innermost exceptions of `error`, looking through (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def parse(argv: list[str]) -> Target:
    usage = "usage: client.py --url URL | client.py --stdio -- COMMAND [ARGS...]"
    if len(argv) == 2 and argv[0] == "--url":
        return Target(argv[1], None)
    if len(argv) >= 3 and argv[0] == "--stdio" and argv[1] == "--":
        return Target(None, argv[2:])
    print(usage, file=sys.stderr)
    raise SystemExit(2)


def main() -> int:
    target = parse(sys.argv[1:])
    try:
        summary, problems = anyio.run(run, target)
    except BaseException as error:  # noqa: BLE001 - report any failure, then exit non-zero
        traceback.print_exc()
        for leaf in leaves(error):
            print(f"client.py: FAILED: {type(leaf).__name__}: {describe(leaf)}", file=sys.stderr)
        return 1
    summary["problems"] = list(problems)
    print(json.dumps(summary, indent=2))
    for p in problems:
        print(f"client.py: MISMATCH: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
