// The official MCP TypeScript SDK client driving this workspace's
// `interop-server` over streamable HTTP (protocol revision 2026-07-28).
//
// Usage: node client.mjs http://127.0.0.1:PORT/mcp
//
// It calls the `book_table` tool and gets the `haiku` prompt. Both answer
// `input_required`; the SDK fulfils the embedded `elicitation/create`
// requests through the handler registered below and retries with the answers
// and the echoed `requestState` on its own. The handler answers by input key:
//   guests -> 4, sitting -> "late", topic -> "rust".
//
// Prints a JSON summary on stdout (final texts, how many times the handler
// ran per call, what it was asked) and exits 1 with the reasons on stderr
// when anything differs from what the server is expected to do.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const PROTOCOL_VERSION = '2026-07-28';
const EXPECTED_TOOL_TEXT = 'Booked Chez Rust for 4, late sitting.';
const EXPECTED_PROMPT_TEXT = 'Write a haiku about rust.';

const url = process.argv[2];
if (!url || process.argv.length !== 3) {
    console.error('usage: node client.mjs http://127.0.0.1:PORT/mcp');
    process.exit(2);
}

const problems = [];
const expect = (ok, what) => {
    if (!ok) problems.push(what);
};

/** The elicitation requests the handler saw during the current call. */
let asked = [];

const ANSWERS = {
    guests: { guests: 4 },
    sitting: { sitting: 'late' },
    topic: { topic: 'rust' }
};

const client = new Client(
    { name: 'mcp-interop-typescript-client', version: '1.0.0' },
    {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
        inputRequired: { autoFulfill: true, maxRounds: 5 }
    }
);

// The SDK dispatches each embedded request of an `input_required` result to
// this handler; `ctx.mcpReq.id` is the request's key in `inputRequests`.
client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const key = String(ctx.mcpReq.id);
    const params = request.params ?? {};
    asked.push({
        key,
        mode: params.mode ?? null,
        message: params.message ?? null,
        requestedSchema: params.requestedSchema ?? null
    });
    const content = ANSWERS[key];
    if (content === undefined) {
        problems.push(`unexpected elicitation key ${JSON.stringify(key)}`);
        return { action: 'decline' };
    }
    return { action: 'accept', content };
});

const textOf = content => (Array.isArray(content) && content.length === 1 && content[0]?.type === 'text' ? content[0].text : null);

/** Checks one asked elicitation: its key, form mode, and the single field's schema. */
function checkAsked(entry, key, field, checkField) {
    if (!entry) {
        problems.push(`no elicitation for key ${key}`);
        return;
    }
    expect(entry.key === key, `expected elicitation key ${key}, got ${entry.key}`);
    // `mode` is optional on form-mode params (schema: ElicitRequestFormParams); absent means form.
    expect(entry.mode === null || entry.mode === 'form', `elicitation ${key}: mode should be form, got ${entry.mode}`);
    expect(typeof entry.message === 'string' && entry.message.length > 0, `elicitation ${key}: no message`);
    const schema = entry.requestedSchema;
    expect(schema?.type === 'object', `elicitation ${key}: requestedSchema.type should be object`);
    const props = schema?.properties ?? {};
    expect(
        JSON.stringify(Object.keys(props)) === JSON.stringify([field]),
        `elicitation ${key}: requestedSchema should have exactly the field ${field}, got ${JSON.stringify(Object.keys(props))}`
    );
    checkField(props[field] ?? {});
}

/** The values a single-select enum schema offers (plain `enum` or titled `oneOf`). */
const enumValues = prop => prop.enum ?? (Array.isArray(prop.oneOf) ? prop.oneOf.map(o => o.const) : null);

const summary = { url, protocolVersion: null, tool: null, prompt: null };

try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    summary.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;

    // --- tools/call book_table: two rounds (guests, then sitting) --------------------------
    asked = [];
    const tool = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Chez Rust' } });
    summary.tool = { text: textOf(tool.content), isError: tool.isError ?? false, handlerCalls: asked.length, asked };
    expect(summary.tool.text === EXPECTED_TOOL_TEXT, `book_table: expected text ${JSON.stringify(EXPECTED_TOOL_TEXT)}, got ${JSON.stringify(tool.content)}`);
    expect(!tool.isError, 'book_table: isError is set');
    expect(asked.length === 2, `book_table: the elicitation handler should run twice, ran ${asked.length} times`);
    checkAsked(asked[0], 'guests', 'guests', prop => {
        expect(prop.type === 'integer', `guests: type should be integer, got ${prop.type}`);
        expect(prop.minimum === 1 && prop.maximum === 12, `guests: range should be 1..12, got ${prop.minimum}..${prop.maximum}`);
    });
    checkAsked(asked[1], 'sitting', 'sitting', prop => {
        const values = enumValues(prop);
        expect(
            JSON.stringify(values) === JSON.stringify(['early', 'late']),
            `sitting: choices should be [early, late], got ${JSON.stringify(prop)}`
        );
    });

    // --- prompts/get haiku: one round (topic) -----------------------------------------------
    asked = [];
    const prompt = await client.getPrompt({ name: 'haiku' });
    const messages = prompt.messages ?? [];
    summary.prompt = {
        messages: messages.length,
        role: messages[0]?.role ?? null,
        text: messages[0]?.content?.type === 'text' ? messages[0].content.text : null,
        handlerCalls: asked.length,
        asked
    };
    expect(messages.length === 1, `haiku: expected one message, got ${messages.length}`);
    expect(summary.prompt.role === 'user', `haiku: the message role should be user, got ${summary.prompt.role}`);
    expect(summary.prompt.text === EXPECTED_PROMPT_TEXT, `haiku: expected text ${JSON.stringify(EXPECTED_PROMPT_TEXT)}, got ${JSON.stringify(messages[0])}`);
    expect(asked.length === 1, `haiku: the elicitation handler should run once, ran ${asked.length} times`);
    checkAsked(asked[0], 'topic', 'topic', prop => {
        expect(prop.type === 'string', `topic: type should be string, got ${prop.type}`);
    });
} catch (error) {
    problems.push(`SDK call failed: ${error?.stack ?? error}`);
} finally {
    await client.close().catch(() => {});
}

console.log(JSON.stringify(summary, null, 2));
if (problems.length > 0) {
    console.error(`client.mjs: ${problems.length} mismatch(es):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
}
console.error('client.mjs: all checks passed');
