"""The official MCP Python SDK's client drives our `interop-server`.

Usage: python client.py URL

Connects to URL over streamable HTTP with `mcp.Client` (protocol revision
2026-07-28, discovered with `server/discover`), lists the tools and prompts,
then:

- calls the tool `book_table` with `{"restaurant": "Chez Rust"}`, which asks
  for `guests` (a form with an integer 1..12) and then `sitting` (a form with
  the choice early|late); the SDK's input-required loop hands each request to
  the elicitation callback below, which answers 4 and "late";
- gets the prompt `haiku`, which asks for `topic` (a form with a string);
  the callback answers "rust";
- calls `book_table` once more, from a client whose callback declines, which
  must end in "No table booked.".

Every answer goes through the SDK's elicitation callback; no JSON is written by
hand. Prints a JSON summary on stdout and exits 0 when every check passed;
otherwise prints each mismatch on stderr (after the summary) and exits 1.
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib.metadata import version
from typing import Any

import anyio
from mcp import Client, types
from mcp.client.session import ClientRequestContext

PROTOCOL_VERSION = "2026-07-28"
RESTAURANT = "Chez Rust"
EXPECTED_TOOL_TEXT = "Booked Chez Rust for 4, late sitting."
EXPECTED_PROMPT_TEXT = "Write a haiku about rust."
EXPECTED_DECLINED_TEXT = "No table booked."
# The whole script, connection included, must finish within this bound.
OVERALL_TIMEOUT_SECONDS = 60


class Elicitations:
    """The elicitation callback: answers the forms our server asks for, and
    records every request it got and every problem it saw."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.problems: list[str] = []

    def _check(self, ok: bool, what: str) -> None:
        if not ok:
            self.problems.append(what)

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        key = str(context.request_id)
        record: dict[str, Any] = {"key": key, "mode": getattr(params, "mode", None)}
        self.calls.append(record)
        if not isinstance(params, types.ElicitRequestFormParams):
            self.problems.append(f"request {key!r}: expected a form elicitation, got {params!r}")
            return types.ElicitResult(action="decline")
        record["message"] = params.message
        schema = dict(params.requested_schema)
        record["requestedSchema"] = schema
        properties: dict[str, Any] = schema.get("properties", {})
        self._check(
            list(properties) == [key],
            f"request {key!r}: the form should ask exactly for {key!r}, asks for {list(properties)}",
        )
        field: dict[str, Any] = properties.get(key, {})
        content: dict[str, str | int | float | bool | list[str] | None]
        if key == "guests":
            self._check(field.get("type") == "integer", f"guests: type should be integer: {field}")
            self._check(field.get("minimum") == 1, f"guests: minimum should be 1: {field}")
            self._check(field.get("maximum") == 12, f"guests: maximum should be 12: {field}")
            content = {"guests": 4}
        elif key == "sitting":
            self._check(field.get("type") == "string", f"sitting: type should be string: {field}")
            choices = field.get("enum") or [c.get("const") for c in field.get("oneOf", [])]
            self._check(choices == ["early", "late"], f"sitting: choices should be early|late: {field}")
            content = {"sitting": "late"}
        elif key == "topic":
            self._check(field.get("type") == "string", f"topic: type should be string: {field}")
            content = {"topic": "rust"}
        else:
            self.problems.append(f"unexpected input request key {key!r}: {params!r}")
            return types.ElicitResult(action="decline")
        self._check(key in schema.get("required", []), f"{key}: should be required: {schema}")
        record["answer"] = content
        return types.ElicitResult(action="accept", content=content)


def texts(content: list[Any]) -> list[str]:
    return [c.text for c in content if isinstance(c, types.TextContent)]


async def run(url: str) -> tuple[dict[str, Any], list[str]]:
    problems: list[str] = []
    summary: dict[str, Any] = {"sdk": f"mcp {version('mcp')}", "url": url}
    tool_calls = Elicitations()
    prompt_calls = Elicitations()
    current: list[Elicitations] = [tool_calls]

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        return await current[0](context, params)

    with anyio.fail_after(OVERALL_TIMEOUT_SECONDS):
        async with Client(url, elicitation_callback=on_elicit, cache=None) as client:
            summary["protocolVersion"] = client.protocol_version
            info = client.server_info
            summary["serverInfo"] = info.model_dump(exclude_none=True) if info else None
            if client.protocol_version != PROTOCOL_VERSION:
                problems.append(f"negotiated {client.protocol_version!r}, expected {PROTOCOL_VERSION!r}")

            tools = sorted(t.name for t in (await client.list_tools()).tools)
            prompts = [p.name for p in (await client.list_prompts()).prompts]
            summary["listed"] = {"tools": tools, "prompts": prompts}
            if tools != ["add", "book_table", "checkout"] or prompts != ["haiku"]:
                problems.append(
                    f"expected tools ['add', 'book_table', 'checkout'] and prompts ['haiku'], got {tools} and {prompts}"
                )

            tool = await client.call_tool("book_table", {"restaurant": RESTAURANT})
            tool_texts = texts(tool.content)
            summary["tool"] = {
                "texts": tool_texts,
                "isError": tool.is_error,
                "elicitations": len(tool_calls.calls),
                "requests": tool_calls.calls,
            }
            if tool.is_error:
                problems.append(f"book_table returned isError: {tool_texts}")
            if tool_texts != [EXPECTED_TOOL_TEXT]:
                problems.append(f"book_table: expected text {[EXPECTED_TOOL_TEXT]}, got {tool_texts}")
            keys = [c["key"] for c in tool_calls.calls]
            if keys != ["guests", "sitting"]:
                problems.append(f"book_table: expected requests guests then sitting, got {keys}")
            problems.extend(f"book_table: {p}" for p in tool_calls.problems)

            current[0] = prompt_calls
            prompt = await client.get_prompt("haiku")
            messages = [
                {
                    "role": m.role,
                    "text": m.content.text if isinstance(m.content, types.TextContent) else None,
                }
                for m in prompt.messages
            ]
            summary["prompt"] = {
                "messages": messages,
                "elicitations": len(prompt_calls.calls),
                "requests": prompt_calls.calls,
            }
            if messages != [{"role": "user", "text": EXPECTED_PROMPT_TEXT}]:
                problems.append(f"haiku: expected one user message {EXPECTED_PROMPT_TEXT!r}, got {messages}")
            keys = [c["key"] for c in prompt_calls.calls]
            if keys != ["topic"]:
                problems.append(f"haiku: expected one request topic, got {keys}")
            problems.extend(f"haiku: {p}" for p in prompt_calls.problems)

        # A user who declines the first form: the server must finish without a booking.
        declines: list[str] = []

        async def decline(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult | types.ErrorData:
            declines.append(str(context.request_id))
            return types.ElicitResult(action="decline")

        async with Client(url, elicitation_callback=decline, cache=None) as client:
            declined = await client.call_tool("book_table", {"restaurant": RESTAURANT})
            declined_texts = texts(declined.content)
            summary["declined"] = {"texts": declined_texts, "elicitations": len(declines), "keys": declines}
            if declined_texts != [EXPECTED_DECLINED_TEXT] or declines != ["guests"]:
                problems.append(
                    f"book_table declined: expected {[EXPECTED_DECLINED_TEXT]} after one declined 'guests' "
                    f"form, got {declined_texts} after {declines}"
                )
    return summary, problems


def leaves(error: BaseException) -> list[BaseException]:
    """The innermost exceptions of `error`, looking through (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: client.py URL", file=sys.stderr)
        return 2
    try:
        summary, problems = anyio.run(run, sys.argv[1])
    except BaseException as error:  # noqa: BLE001 - report any failure, then exit non-zero
        traceback.print_exc()
        for leaf in leaves(error):
            print(f"client.py: FAILED: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        return 1
    summary["problems"] = problems
    print(json.dumps(summary, indent=2))
    for p in problems:
        print(f"client.py: MISMATCH: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
