// The official MCP TypeScript SDK v1 client (`@modelcontextprotocol/sdk` 1.x, the 2025-era
// protocol) driving this workspace's `interop-server`.
//
// Usage: node client.mjs --url http://127.0.0.1:PORT/mcp        (streamable HTTP)
//        node client.mjs --stdio -- COMMAND ARGS...            (spawns the server, stdio)
//
// Everything goes through the SDK's public client API (`Client` over
// `StreamableHTTPClientTransport` or `StdioClientTransport`); no JSON-RPC is written by
// hand. The SDK opens with `initialize` (asking for its latest version, 2025-11-25, and
// accepting any version it supports in the answer), sends `notifications/initialized`,
// and over HTTP keeps the session the server opened (MCP-Session-Id). Then:
//
// a. records what the server answered to `initialize` (protocolVersion, serverInfo,
//    capabilities), seen through the transport's public `onmessage` hook, which the
//    SDK chains to; the version must be 2025-11-25, 2025-06-18 or 2025-03-26;
// b. lists the tools (expects `add`, `book_table` and `checkout`) and prompts (`haiku`);
// c. calls `add` {a: 2, b: 3}, which must answer the text "5";
// d. from a client that declares the elicitation capability and registers an
//    `elicitation/create` handler, calls `book_table` {restaurant: "Chez Rust"}: the
//    handler answers by the requested schema's property name (guests -> 4,
//    sitting -> "late"); the result must be "Booked Chez Rust for 4, late sitting."
//    after exactly two handler calls;
// e. gets the prompt `haiku`, whose elicitation asks for `topic` ("rust"): one user
//    message "Write a haiku about rust.";
// g. pings;
// i. over HTTP: ends the session with `transport.terminateSession()` (DELETE, which
//    must be answered 2xx, or 405 when the server does not let clients end sessions),
//    then, from a fresh transport given the ended session id (the public `sessionId`
//    option; `connect` then skips `initialize`), pings: the server must refuse it with
//    HTTP 404, which the SDK reports as a StreamableHTTPError with code 404;
// f. from a second client whose handler declines, calls `book_table`: "No table
//    booked." after one handler call;
// h. from a third client that declares no elicitation capability, calls `book_table`:
//    it must answer within 15 s with isError and a text that mentions elicitation;
// j. from a fourth client that declares URL-mode elicitation, calls `checkout`
//    {euros: 40}: the server asks one URL-mode `elicitation/create` (a URL on
//    pay.example.com, with an `elicitationId`), which the handler accepts; the server
//    marks the payment done and sends `notifications/elicitation/complete` for that
//    id, seen by a handler registered with the SDK's ElicitationCompleteNotificationSchema;
//    the result must be "Paid 40 EUR.".
//
// Over HTTP the summary also carries `http`: every HTTP exchange the SDK made (through
// the transport's public `fetch` option): method, JSON-RPC method or kind, status,
// response content type and the MCP headers sent.
//
// Prints a JSON summary on stdout and exits 0 when every check passed; otherwise prints
// each mismatch on stderr and exits 1. The whole run is bounded by 60 s.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const RESTAURANT = 'Chez Rust';
const EXPECTED_ADD_TEXT = '5';
const EXPECTED_TOOL_TEXT = 'Booked Chez Rust for 4, late sitting.';
const EXPECTED_PROMPT_TEXT = 'Write a haiku about rust.';
const EXPECTED_DECLINED_TEXT = 'No table booked.';
const EXPECTED_PAID_TEXT = 'Paid 40 EUR.';
const ANSWERS = { guests: { guests: 4 }, sitting: { sitting: 'late' }, topic: { topic: 'rust' } };
/** The whole script, every connection included, must finish within this bound. */
const OVERALL_TIMEOUT_MS = 60_000;
/** A call that cannot be completed (no elicitation capability) must end within this bound. */
const REFUSAL_TIMEOUT_MS = 15_000;
/** Any other request. */
const REQUEST_TIMEOUT_MS = 30_000;

const USAGE = 'usage: node client.mjs --url URL | node client.mjs --stdio -- COMMAND [ARGS...]';
const argv = process.argv.slice(2);
let url = null;
let command = null;
if (argv.length === 2 && argv[0] === '--url') {
    url = argv[1];
} else if (argv.length >= 3 && argv[0] === '--stdio' && argv[1] === '--') {
    command = argv.slice(2);
} else {
    console.error(USAGE);
    process.exit(2);
}

/** The installed SDK's version (this script runs next to its node_modules, see setup.sh). */
function sdkVersion() {
    try {
        const manifest = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
        return JSON.parse(readFileSync(manifest, 'utf8')).version;
    } catch {
        return 'unknown';
    }
}
const summary = {
    sdk: `@modelcontextprotocol/sdk ${sdkVersion()}`,
    transport: url ? 'streamable-http' : 'stdio',
    target: url ?? command
};
const problems = [];
const expect = (ok, what) => {
    if (!ok) problems.push(what);
};

/** Prints the summary and the problems, and exits. */
function finish() {
    if (url) summary.http = exchanges;
    summary.problems = problems;
    console.log(JSON.stringify(summary, null, 2));
    if (problems.length > 0) {
        console.error(`client.mjs: ${problems.length} mismatch(es):`);
        for (const p of problems) console.error(`  - ${p}`);
        process.exit(1);
    }
    console.error('client.mjs: all checks passed');
    process.exit(0);
}

setTimeout(() => {
    problems.push(`not done within the overall bound of ${OVERALL_TIMEOUT_MS} ms (last step: ${step})`);
    finish();
}, OVERALL_TIMEOUT_MS).unref();

// --- HTTP trace, through the transport's `fetch` option -----------------------------------

const exchanges = [];
async function tracingFetch(input, init) {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    const entry = { method: init?.method ?? 'GET' };
    if (typeof init?.body === 'string') {
        try {
            const body = JSON.parse(init.body);
            if (body && typeof body === 'object' && !Array.isArray(body)) {
                entry.jsonrpc =
                    'method' in body
                        ? `${body.method} (${'id' in body ? 'request' : 'notification'})`
                        : 'error' in body
                          ? 'error response'
                          : 'response';
            }
        } catch {
            // not JSON: leave it out
        }
    }
    entry.status = response.status;
    entry.contentType = response.headers.get('content-type');
    for (const name of ['accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']) {
        if (headers.has(name)) entry[name] = headers.get(name);
    }
    if (response.headers.has('mcp-session-id')) entry['response mcp-session-id'] = response.headers.get('mcp-session-id');
    exchanges.push(entry);
    return response;
}

// --- Connections ------------------------------------------------------------------------

function newTransport(options = {}) {
    if (url) return new StreamableHTTPClientTransport(new URL(url), { fetch: tracingFetch, ...options });
    return new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'inherit' });
}

/**
 * A connected client. `elicit` is the `elicitation/create` handler, or null for a client
 * that declares no elicitation capability; `urlMode` declares URL mode too. Resolves to
 * { client, transport, initialize }.
 */
async function connect(elicit, { urlMode = false } = {}) {
    const elicitation = urlMode ? { form: {}, url: {} } : { form: {} };
    const client = new Client(
        { name: 'mcp-interop-typescript-v1-client', version: '1.0.0' },
        { capabilities: elicit ? { elicitation } : {} }
    );
    if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
    const transport = newTransport();
    // The SDK keeps this hook and calls it before its own handling of every message.
    let initialize = null;
    transport.onmessage = message => {
        if (initialize === null && message?.result?.protocolVersion !== undefined) initialize = message.result;
    };
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    return { client, transport, initialize };
}

/** An elicitation handler answering by the form's single property name; records what it was asked. */
function answering({ decline = false } = {}) {
    const handler = async request => {
        const params = request.params ?? {};
        const fields = Object.keys(params.requestedSchema?.properties ?? {});
        const record = { mode: params.mode ?? null, message: params.message ?? null, requestedSchema: params.requestedSchema ?? null, fields };
        handler.asked.push(record);
        if (decline) return { action: 'decline' };
        const answer = fields.length === 1 ? ANSWERS[fields[0]] : undefined;
        if (answer === undefined) {
            problems.push(`unexpected elicitation form with fields ${JSON.stringify(fields)}: ${JSON.stringify(params)}`);
            return { action: 'decline' };
        }
        record.answer = answer;
        return { action: 'accept', content: answer };
    };
    handler.asked = [];
    return handler;
}

const textsOf = content => (Array.isArray(content) ? content.filter(c => c?.type === 'text').map(c => c.text) : []);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const describe = error =>
    error instanceof StreamableHTTPError ? `HTTP ${error.code}: ${error.message}` : `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
const timeout = { timeout: REQUEST_TIMEOUT_MS };

// --- The steps --------------------------------------------------------------------------

let step = 'start';

async function mainSession() {
    const handler = answering();
    const { client, transport, initialize } = await connect(handler);
    try {
        // a. What the server answered.
        summary.initialize = initialize;
        summary.protocolVersion = initialize?.protocolVersion ?? null;
        expect(
            LEGACY_VERSIONS.includes(summary.protocolVersion),
            `initialize: negotiated ${JSON.stringify(summary.protocolVersion)}, expected one of ${LEGACY_VERSIONS}`
        );
        expect(client.getServerVersion()?.name === 'interop-server', `initialize: serverInfo ${JSON.stringify(client.getServerVersion())}`);
        if (url) {
            summary.sessionId = transport.sessionId ?? null;
            expect(summary.sessionId !== null, 'initialize: the server opened no session (no MCP-Session-Id)');
        }

        // b. Listing.
        step = 'list';
        const tools = (await client.listTools(undefined, timeout)).tools.map(t => t.name).sort();
        const prompts = (await client.listPrompts(undefined, timeout)).prompts.map(p => p.name).sort();
        summary.listed = { tools, prompts };
        expect(same(tools, ['add', 'book_table', 'checkout']), `tools/list: expected add, book_table and checkout, got ${JSON.stringify(tools)}`);
        expect(same(prompts, ['haiku']), `prompts/list: expected haiku, got ${JSON.stringify(prompts)}`);

        // c. A plain tool.
        step = 'add';
        const added = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, undefined, timeout);
        summary.add = { texts: textsOf(added.content), isError: added.isError ?? false };
        expect(same(summary.add.texts, [EXPECTED_ADD_TEXT]) && !added.isError, `add: expected ["5"], got ${JSON.stringify(added)}`);

        // d. Two elicitation rounds, answered.
        step = 'book_table';
        const tool = await client.callTool({ name: 'book_table', arguments: { restaurant: RESTAURANT } }, undefined, timeout);
        summary.tool = { texts: textsOf(tool.content), isError: tool.isError ?? false, elicitations: handler.asked.length, asked: handler.asked };
        expect(
            same(summary.tool.texts, [EXPECTED_TOOL_TEXT]) && !tool.isError,
            `book_table: expected ${JSON.stringify([EXPECTED_TOOL_TEXT])}, got ${JSON.stringify(tool)}`
        );
        const toolFields = handler.asked.map(a => a.fields);
        expect(
            same(toolFields, [['guests'], ['sitting']]),
            `book_table: the handler should be asked guests then sitting, was asked ${JSON.stringify(toolFields)}`
        );

        // e. A prompt with one elicitation round.
        step = 'haiku';
        handler.asked = [];
        const prompt = await client.getPrompt({ name: 'haiku' }, timeout);
        const messages = (prompt.messages ?? []).map(m => ({ role: m.role, text: m.content?.type === 'text' ? m.content.text : null }));
        summary.prompt = { messages, elicitations: handler.asked.length, asked: handler.asked };
        expect(
            same(messages, [{ role: 'user', text: EXPECTED_PROMPT_TEXT }]),
            `haiku: expected one user message ${JSON.stringify(EXPECTED_PROMPT_TEXT)}, got ${JSON.stringify(messages)}`
        );
        const promptFields = handler.asked.map(a => a.fields);
        expect(same(promptFields, [['topic']]), `haiku: the handler should be asked topic once, was asked ${JSON.stringify(promptFields)}`);

        // g. ping.
        step = 'ping';
        await client.ping(timeout);
        summary.ping = true;

        // i. End the session (HTTP only), then check that it is gone.
        if (url) {
            step = 'session end';
            await endSession(transport);
        }
    } finally {
        await client.close().catch(() => {});
    }
}

async function endSession(transport) {
    const sessionId = transport.sessionId;
    const ended = { sessionId };
    summary.sessionEnd = ended;
    const before = exchanges.length;
    try {
        await transport.terminateSession();
    } catch (error) {
        problems.push(`session end: terminateSession failed: ${describe(error)}`);
    }
    const deletes = exchanges.slice(before).filter(e => e.method === 'DELETE');
    ended.deletes = deletes;
    expect(deletes.length === 1 && deletes[0]['mcp-session-id'] === sessionId, `session end: expected one DELETE for ${sessionId}, saw ${JSON.stringify(deletes)}`);
    ended.status = deletes[0]?.status ?? null;
    if (ended.status === 405 || ended.status === null) {
        ended.afterEnd = 'skipped: the session was not ended';
        return;
    }

    // A fresh transport that carries the ended session id: `connect` skips `initialize`.
    const stale = new Client({ name: 'mcp-interop-typescript-v1-client', version: '1.0.0' });
    const staleTransport = newTransport({ sessionId });
    staleTransport.setProtocolVersion(summary.protocolVersion);
    try {
        await stale.connect(staleTransport);
        await stale.ping(timeout);
        ended.afterEnd = { request: 'ping', outcome: 'answered' };
        problems.push('session end: a ping with the ended session id was answered; expected HTTP 404');
    } catch (error) {
        ended.afterEnd = { request: 'ping', outcome: describe(error), status: error instanceof StreamableHTTPError ? error.code : null };
        expect(ended.afterEnd.status === 404, `session end: a ping with the ended session id should get HTTP 404, got ${describe(error)}`);
    } finally {
        await stale.close().catch(() => {});
    }
}

async function decliningSession() {
    const handler = answering({ decline: true });
    const { client } = await connect(handler);
    try {
        const declined = await client.callTool({ name: 'book_table', arguments: { restaurant: RESTAURANT } }, undefined, timeout);
        const fields = handler.asked.map(a => a.fields);
        summary.declined = { texts: textsOf(declined.content), isError: declined.isError ?? false, elicitations: fields.length, asked: fields };
        expect(
            same(summary.declined.texts, [EXPECTED_DECLINED_TEXT]) && same(fields, [['guests']]),
            `book_table declined: expected ${JSON.stringify([EXPECTED_DECLINED_TEXT])} after one declined guests form, got ${JSON.stringify(declined)} after ${JSON.stringify(fields)}`
        );
    } finally {
        await client.close().catch(() => {});
    }
}

async function incapableSession() {
    const { client } = await connect(null);
    try {
        const started = Date.now();
        let refused;
        try {
            refused = await client.callTool({ name: 'book_table', arguments: { restaurant: RESTAURANT } }, undefined, { timeout: REFUSAL_TIMEOUT_MS });
        } catch (error) {
            summary.noElicitation = { error: describe(error), code: error?.code ?? null };
            problems.push(`book_table without elicitation: expected an isError result within ${REFUSAL_TIMEOUT_MS} ms, got ${describe(error)}`);
            return;
        }
        const text = textsOf(refused.content).join(' ');
        summary.noElicitation = { isError: refused.isError ?? false, text, seconds: (Date.now() - started) / 1000 };
        expect(refused.isError === true, `book_table without elicitation: isError is not set: ${JSON.stringify(refused)}`);
        expect(/elicitation/i.test(text), `book_table without elicitation: the text should mention elicitation: ${JSON.stringify(text)}`);
    } finally {
        await client.close().catch(() => {});
    }
}

async function urlStepSession() {
    const asked = [];
    const completed = [];
    const { client } = await connect(
        async request => {
            const params = request.params ?? {};
            asked.push({ mode: params.mode ?? null, message: params.message ?? null, url: params.url ?? null, elicitationId: params.elicitationId ?? null });
            if (params.mode !== 'url') {
                problems.push(`checkout: expected a URL-mode elicitation, got ${JSON.stringify(params)}`);
                return { action: 'decline' };
            }
            return { action: 'accept' };
        },
        { urlMode: true }
    );
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, notification => {
        completed.push(notification.params.elicitationId);
    });
    try {
        const paid = await client.callTool({ name: 'checkout', arguments: { euros: 40 } }, undefined, timeout);
        // The notification precedes the result on the stream; allow its handler a moment.
        for (let waited = 0; completed.length === 0 && waited < 1000; waited += 20) await new Promise(r => setTimeout(r, 20));
        summary.urlStep = { texts: textsOf(paid.content), isError: paid.isError ?? false, asked, completed };
        expect(
            same(summary.urlStep.texts, [EXPECTED_PAID_TEXT]) && !summary.urlStep.isError,
            `checkout: expected ${JSON.stringify([EXPECTED_PAID_TEXT])}, got ${JSON.stringify(paid)}`
        );
        const ids = asked.map(a => a.elicitationId);
        expect(
            ids.length === 1 && typeof ids[0] === 'string' && same(completed, ids),
            `checkout: expected one URL elicitation and its completion, asked ${JSON.stringify(asked)}, completed ${JSON.stringify(completed)}`
        );
    } finally {
        await client.close().catch(() => {});
    }
}

const steps = [
    ['main session', mainSession],
    ['declining session', decliningSession],
    ['session without elicitation', incapableSession],
    ['URL step', urlStepSession]
];
for (const [name, run] of steps) {
    step = name;
    try {
        await run();
    } catch (error) {
        problems.push(`${step}: ${describe(error)}`);
        if (error?.stack) console.error(error.stack);
        // The server does not speak this client's protocol: the rest would fail alike.
        if (!summary.initialize) break;
    }
}
finish();
