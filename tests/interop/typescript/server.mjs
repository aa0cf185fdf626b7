// A small MCP server written with the official TypeScript SDK, served over
// streamable HTTP on 127.0.0.1 (protocol revision 2026-07-28), for this
// workspace's client to drive in the interop tests.
//
// Usage: node server.mjs [PORT]    (default 0: any free port)
//
// Prints `listening on http://127.0.0.1:PORT/mcp` to stderr once it accepts
// connections, and one `round ...` line per handler entry.
//
// - tool `plan_trip` {city}: asks, in two rounds, how many nights (form,
//   integer field `nights`, 1..14) under key `nights`, then how to travel
//   (form, enum field `transport`: train|plane) under key `transport`. The
//   first answer rides to the last round in `requestState`, sealed with the
//   SDK's own HMAC codec (createRequestStateCodec) and verified by the SDK
//   before the handler runs. Completes with
//   `Trip to CITY: N nights, by TRANSPORT.`
// - prompt `limerick` (no arguments): asks for a subject (form, string field
//   `subject`) under key `subject`; completes with one user message
//   `Write a limerick about SUBJECT.`

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Readable } from 'node:stream';

import {
    acceptedContent,
    createMcpHandler,
    createRequestStateCodec,
    hostHeaderValidationResponse,
    inputRequired,
    localhostAllowedHostnames,
    McpServer
} from '@modelcontextprotocol/server';
import * as z from 'zod';

const HOST = '127.0.0.1';
const PATH = '/mcp';
const port = Number(process.argv[2] ?? 0);
let boundPort = port;

const NightsForm = z.object({ nights: z.number().int().min(1).max(14).describe('How many nights?') });
const TransportForm = z.object({ transport: z.enum(['train', 'plane']).describe('How do you travel?') });
const SubjectForm = z.object({ subject: z.string().min(1).describe('The limerick subject') });

// One key for the process: every round of a flow is served by this process.
// The state is bound to the method it was minted for.
const stateCodec = createRequestStateCodec({
    key: randomBytes(32),
    ttlSeconds: 600,
    bind: ctx => ctx.mcpReq.method
});

const log = line => process.stderr.write(`${line}\n`);

function askNights(city, ctx) {
    return stateCodec.mint({ step: 'nights', city }, ctx).then(requestState =>
        inputRequired({
            inputRequests: {
                nights: inputRequired.elicit({ message: `How many nights in ${city}?`, requestedSchema: NightsForm })
            },
            requestState
        })
    );
}

function askTransport(city, nights, ctx) {
    return stateCodec.mint({ step: 'transport', city, nights }, ctx).then(requestState =>
        inputRequired({
            inputRequests: {
                transport: inputRequired.elicit({
                    message: `${nights} nights in ${city}: train or plane?`,
                    requestedSchema: TransportForm
                })
            },
            requestState
        })
    );
}

function buildServer() {
    const server = new McpServer(
        { name: 'interop-typescript-server', version: '1.0.0' },
        { requestState: { verify: stateCodec.verify } }
    );

    server.registerTool(
        'plan_trip',
        {
            description: 'Plans a trip, asking how many nights and how to travel.',
            inputSchema: z.object({ city: z.string().describe('Where to') })
        },
        async ({ city }, ctx) => {
            // Verified and decoded by the SDK (requestState.verify) before this runs.
            const state = ctx.mcpReq.requestState();
            log(`round plan_trip state=${JSON.stringify(state ?? null)} responses=${JSON.stringify(ctx.mcpReq.inputResponses ?? null)}`);
            if (state === undefined) return askNights(city, ctx);
            if (state.city !== city) {
                return { isError: true, content: [{ type: 'text', text: 'requestState belongs to another trip' }] };
            }
            if (state.step === 'nights') {
                const answer = acceptedContent(ctx.mcpReq.inputResponses, 'nights', NightsForm);
                return answer === undefined ? askNights(city, ctx) : askTransport(city, answer.nights, ctx);
            }
            if (state.step === 'transport') {
                const answer = acceptedContent(ctx.mcpReq.inputResponses, 'transport', TransportForm);
                if (answer === undefined) return askTransport(city, state.nights, ctx);
                return {
                    content: [{ type: 'text', text: `Trip to ${city}: ${state.nights} nights, by ${answer.transport}.` }]
                };
            }
            return { isError: true, content: [{ type: 'text', text: `unknown step ${state.step}` }] };
        }
    );

    server.registerPrompt('limerick', { description: 'A limerick on a subject the user is asked for.' }, async ctx => {
        log(`round limerick responses=${JSON.stringify(ctx.mcpReq.inputResponses ?? null)}`);
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'subject', SubjectForm);
        if (answer === undefined) {
            return inputRequired({
                inputRequests: {
                    subject: inputRequired.elicit({ message: 'What should the limerick be about?', requestedSchema: SubjectForm })
                }
            });
        }
        return {
            messages: [{ role: 'user', content: { type: 'text', text: `Write a limerick about ${answer.subject}.` } }]
        };
    });

    return server;
}

const handler = createMcpHandler(() => buildServer(), {
    legacy: 'reject',
    onerror: error => log(`mcp handler error: ${error?.stack ?? error}`)
});

/** node:http request -> web-standard Request. */
function toWebRequest(req) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        else if (value !== undefined) headers.set(name, value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    return new Request(`http://${req.headers.host ?? `${HOST}:${boundPort}`}${req.url}`, {
        method: req.method,
        headers,
        ...(hasBody && { body: Readable.toWeb(req), duplex: 'half' })
    });
}

/** web-standard Response -> node:http response (streams SSE bodies as they come). */
async function sendWebResponse(response, res) {
    res.statusCode = response.status;
    for (const [name, value] of response.headers) res.setHeader(name, value);
    if (!response.body) {
        res.end();
        return;
    }
    res.flushHeaders();
    for await (const chunk of response.body) res.write(chunk);
    res.end();
}

const httpServer = createServer(async (req, res) => {
    try {
        const url = new URL(req.url ?? '/', `http://${HOST}`);
        if (url.pathname !== PATH) {
            res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
            return;
        }
        const request = toWebRequest(req);
        const response = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? (await handler.fetch(request));
        await sendWebResponse(response, res);
    } catch (error) {
        log(`http error: ${error?.stack ?? error}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
    }
});

httpServer.listen(port, HOST, () => {
    boundPort = httpServer.address().port;
    log(`listening on http://${HOST}:${boundPort}${PATH}`);
});

const shutdown = () => {
    httpServer.close();
    handler.close().finally(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
