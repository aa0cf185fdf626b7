// The official MCP TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.x) on both sides of
// an OAuth 2.1 flow with this workspace's protected `conformance-server` in the middle:
// the SDK's demo authorization server (`setupAuthServer`, exported by the package under
// `examples/server/demoInMemoryOAuthProvider.js`: dynamic client registration,
// authorization code with PKCE, a token endpoint and an RFC 7662 introspection
// endpoint, all in memory) and the SDK's 2025-era client with an `OAuthClientProvider`.
//
// Usage: node oauth.mjs --url http://127.0.0.1:PORT/mcp --issuer http://127.0.0.1:AS_PORT/
//
// The server at --url must be `conformance-server --protect ISSUER --introspection-url
// ISSUER/introspect --required-scope mcp:tools`, started before this script (it reaches
// the authorization server only when a token arrives). This script:
//
// a. starts the demo authorization server on ISSUER's port, strict about the `resource`
//    parameter (RFC 8707: the code is only exchanged for --url's resource), and waits
//    for its metadata document;
// b. connects a `Client` over `StreamableHTTPClientTransport` with an in-memory
//    `OAuthClientProvider` and no token: the server must answer 401, and the SDK must
//    follow the challenge's `resource_metadata` to our metadata document, from there to
//    the authorization server's metadata, register a client, and hand the provider an
//    authorization URL; `connect` then rejects with `UnauthorizedError`;
// c. plays the user agent: GETs the authorization URL without following redirects
//    (the demo server approves at once) and takes the code from the 302's `Location`,
//    checking the `state` it echoes; `transport.finishAuth(code)` exchanges it (PKCE)
//    for an access token;
// d. connects again with the token: `initialize` at a 2025-era version, a session, and
//    `test_input_required_result_multi_round`, whose two input-required rounds the
//    server bridges to two `elicitation/create` requests (name "Ada", colour "teal");
//    the result must be "Hello Ada, whose favorite color is teal!";
// e. sends requests of its own: no token and a forged one (401 with `invalid_token`),
//    and the issued token to the metadata document (which needs none).
//
// Every HTTP exchange of the SDK (through the transport's public `fetch` option, which
// the SDK also uses for its OAuth requests) is in the summary's `http`: method, URL path,
// status, whether an Authorization header was sent (its scheme, never its value) and the
// challenge the server answered; the summary's `token` has the issued access token, so
// that the test can check the server's log for it. Prints a JSON summary on stdout and exits 0 when every check
// passed; otherwise prints each mismatch on stderr and exits 1. Bounded by 60 s.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setupAuthServer } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const TOOL = 'test_input_required_result_multi_round';
const ANSWERS = { name: { name: 'Ada' }, color: { color: 'teal' } };
const EXPECTED_TEXT = 'Hello Ada, whose favorite color is teal!';
const SCOPE = 'mcp:tools';
/** Where the demo authorization server sends the user back (never listened on: the
 * script reads the code from the redirect itself). */
const REDIRECT_URL = 'http://127.0.0.1:1/callback';
const OVERALL_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
const STARTUP_TIMEOUT_MS = 10_000;

const USAGE = 'usage: node oauth.mjs --url MCP_URL --issuer ISSUER_URL';
const argv = process.argv.slice(2);
if (argv.length !== 4 || argv[0] !== '--url' || argv[2] !== '--issuer') {
    console.error(USAGE);
    process.exit(2);
}
const url = new URL(argv[1]);
const issuer = new URL(argv[3]);

// The demo server logs with console.log; stdout is for the summary only.
const printSummary = console.log.bind(console);
console.log = (...args) => console.error(...args);

function sdkVersion() {
    try {
        const manifest = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
        return JSON.parse(readFileSync(manifest, 'utf8')).version;
    } catch {
        return 'unknown';
    }
}
const summary = { sdk: `@modelcontextprotocol/sdk ${sdkVersion()}`, url: url.href, issuer: issuer.href };
const problems = [];
const expect = (ok, what) => {
    if (!ok) problems.push(what);
};
let step = 'start';

function finish() {
    summary.http = exchanges;
    summary.problems = problems;
    printSummary(JSON.stringify(summary, null, 2));
    if (problems.length > 0) {
        console.error(`oauth.mjs: ${problems.length} mismatch(es):`);
        for (const p of problems) console.error(`  - ${p}`);
        process.exit(1);
    }
    console.error('oauth.mjs: all checks passed');
    process.exit(0);
}

setTimeout(() => {
    problems.push(`not done within the overall bound of ${OVERALL_TIMEOUT_MS} ms (last step: ${step})`);
    finish();
}, OVERALL_TIMEOUT_MS).unref();

// --- HTTP trace --------------------------------------------------------------------------

const exchanges = [];
async function tracingFetch(input, init) {
    const response = await fetch(input, init);
    const target = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    const entry = {
        method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
        origin: target.origin === url.origin ? 'server' : target.origin === issuer.origin ? 'authorization-server' : target.origin,
        path: target.pathname,
        status: response.status,
        authorization: headers.has('authorization') ? headers.get('authorization').split(' ')[0] : null
    };
    if (typeof init?.body === 'string' && entry.origin === 'server') {
        try {
            entry.jsonrpc = JSON.parse(init.body)?.method ?? 'response';
        } catch {
            // not JSON: leave it out
        }
    }
    const challenge = response.headers.get('www-authenticate');
    if (challenge) entry.challenge = challenge;
    exchanges.push(entry);
    return response;
}

// --- The OAuth client provider: in memory, and a user agent that approves ------------------

class HeadlessProvider {
    constructor() {
        this.information = undefined;
        this.saved = undefined;
        this.verifier = undefined;
        this.code = undefined;
        this.authorizationUrl = undefined;
        this.expectedState = `state-${Math.random().toString(36).slice(2)}`;
    }
    get redirectUrl() {
        return REDIRECT_URL;
    }
    get clientMetadata() {
        return {
            client_name: 'mcp-interop-typescript-v1-oauth',
            redirect_uris: [REDIRECT_URL],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_post',
            scope: SCOPE
        };
    }
    state() {
        return this.expectedState;
    }
    clientInformation() {
        return this.information;
    }
    saveClientInformation(information) {
        this.information = information;
    }
    tokens() {
        return this.saved;
    }
    saveTokens(tokens) {
        this.saved = tokens;
    }
    saveCodeVerifier(verifier) {
        this.verifier = verifier;
    }
    codeVerifier() {
        if (this.verifier === undefined) throw new Error('no code verifier saved');
        return this.verifier;
    }
    /** The user agent: the demo server approves at once and redirects with the code. */
    async redirectToAuthorization(authorizationUrl) {
        this.authorizationUrl = authorizationUrl;
        const response = await tracingFetch(authorizationUrl.href, { redirect: 'manual' });
        const location = response.headers.get('location');
        if (response.status !== 302 || !location) {
            throw new Error(`authorization answered ${response.status} without a redirect: ${await response.text()}`);
        }
        const back = new URL(location);
        if (back.searchParams.get('state') !== this.expectedState) {
            throw new Error(`the redirect's state ${back.searchParams.get('state')} is not ours`);
        }
        this.code = back.searchParams.get('code') ?? undefined;
    }
}

function answering() {
    const handler = async request => {
        const params = request.params ?? {};
        const fields = Object.keys(params.requestedSchema?.properties ?? {});
        handler.asked.push({ message: params.message ?? null, fields });
        const answer = fields.length === 1 ? ANSWERS[fields[0]] : undefined;
        if (answer === undefined) {
            problems.push(`unexpected elicitation form with fields ${JSON.stringify(fields)}: ${JSON.stringify(params)}`);
            return { action: 'decline' };
        }
        return { action: 'accept', content: answer };
    };
    handler.asked = [];
    return handler;
}

const timeout = { timeout: REQUEST_TIMEOUT_MS };
const describe = error => `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
const newClient = () => new Client({ name: 'mcp-interop-typescript-v1-oauth', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });

// --- The steps ---------------------------------------------------------------------------

/** a. The demo authorization server, and its metadata once it answers. */
async function startAuthorizationServer() {
    setupAuthServer({ authServerUrl: issuer, mcpServerUrl: url, strictResource: true });
    const metadataUrl = new URL('/.well-known/oauth-authorization-server', issuer);
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
        try {
            const response = await fetch(metadataUrl);
            if (response.ok) return await response.json();
        } catch {
            // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`the authorization server did not answer ${metadataUrl} within ${STARTUP_TIMEOUT_MS} ms`);
        await new Promise(resolve => setTimeout(resolve, 50));
    }
}

/** b, c. The unauthenticated attempt, the user agent's round trip and the code exchange. */
async function authorize(provider) {
    step = 'unauthenticated connect';
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: tracingFetch });
    const client = newClient();
    let refusal = null;
    try {
        await client.connect(transport, timeout);
        problems.push('connect without a token succeeded; expected UnauthorizedError');
    } catch (error) {
        refusal = describe(error);
        expect(error instanceof UnauthorizedError, `connect without a token: expected UnauthorizedError, got ${refusal}`);
    }
    const first = exchanges.find(e => e.origin === 'server');
    summary.unauthenticated = { refusal, firstStatus: first?.status ?? null, challenge: first?.challenge ?? null };
    expect(first?.status === 401, `the first request to the server: expected 401, got ${first?.status}`);
    expect(
        /resource_metadata="[^"]+"/.test(first?.challenge ?? ''),
        `the 401's WWW-Authenticate must name resource_metadata: ${first?.challenge}`
    );
    expect(provider.information?.client_id !== undefined, 'no client was registered (dynamic client registration)');
    const authorizationUrl = provider.authorizationUrl;
    expect(authorizationUrl !== undefined, 'the SDK never asked the provider to authorize');
    if (authorizationUrl) {
        summary.authorizationRequest = {
            resource: authorizationUrl.searchParams.get('resource'),
            scope: authorizationUrl.searchParams.get('scope'),
            codeChallengeMethod: authorizationUrl.searchParams.get('code_challenge_method')
        };
    }
    expect(provider.code !== undefined, 'the authorization server gave no code');

    step = 'finishAuth';
    await transport.finishAuth(provider.code);
    await transport.close().catch(() => {});
    const tokens = provider.tokens();
    summary.token = {
        tokenType: tokens?.token_type ?? null,
        scope: tokens?.scope ?? null,
        expiresIn: tokens?.expires_in ?? null,
        opaque: typeof tokens?.access_token === 'string' && tokens.access_token.split('.').length !== 3,
        // A demo token of a test-local server, printed so the test can check that the
        // protected server never logs it.
        accessToken: tokens?.access_token ?? null,
        clientId: provider.information?.client_id ?? null
    };
    expect(typeof tokens?.access_token === 'string', 'finishAuth saved no access token');
}

/** d. The authorized session and the two-round tool. */
async function authorizedSession(provider) {
    step = 'authorized connect';
    const handler = answering();
    const client = newClient();
    client.setRequestHandler(ElicitRequestSchema, handler);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: tracingFetch });
    let initialize = null;
    transport.onmessage = message => {
        if (initialize === null && message?.result?.protocolVersion !== undefined) initialize = message.result;
    };
    await client.connect(transport, timeout);
    try {
        summary.protocolVersion = initialize?.protocolVersion ?? null;
        summary.sessionOpened = typeof transport.sessionId === 'string' && transport.sessionId.length > 0;
        expect(LEGACY_VERSIONS.includes(summary.protocolVersion), `initialize: negotiated ${summary.protocolVersion}`);
        expect(summary.sessionOpened, 'initialize: the server opened no session');

        step = TOOL;
        const result = await client.callTool({ name: TOOL, arguments: {} }, undefined, timeout);
        const texts = (result.content ?? []).filter(c => c?.type === 'text').map(c => c.text);
        summary.tool = { texts, isError: result.isError ?? false, asked: handler.asked };
        expect(JSON.stringify(texts) === JSON.stringify([EXPECTED_TEXT]), `${TOOL}: expected ${EXPECTED_TEXT}, got ${JSON.stringify(texts)}`);
        expect(handler.asked.length === 2, `${TOOL}: expected two elicitations, got ${handler.asked.length}`);
    } finally {
        step = 'close';
        await transport.terminateSession().catch(() => {});
        await transport.close().catch(() => {});
    }
}

/** e. Requests of the script's own, outside the SDK. */
async function ownRequests(metadataUrl) {
    step = 'own requests';
    const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'oauth.mjs', version: '1.0.0' } }
    });
    const post = async authorization => {
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        if (authorization) headers.authorization = authorization;
        const response = await fetch(url, { method: 'POST', headers, body: initialize });
        await response.body?.cancel();
        return { status: response.status, challenge: response.headers.get('www-authenticate') };
    };
    summary.own = { noToken: await post(null), forged: await post('Bearer forged-token') };
    expect(summary.own.noToken.status === 401, `no token: expected 401, got ${summary.own.noToken.status}`);
    expect(summary.own.forged.status === 401, `a forged token: expected 401, got ${summary.own.forged.status}`);
    expect(
        (summary.own.forged.challenge ?? '').includes('error="invalid_token"'),
        `a forged token's challenge must say invalid_token: ${summary.own.forged.challenge}`
    );
    if (metadataUrl) {
        const response = await fetch(metadataUrl);
        summary.resourceMetadata = response.ok ? await response.json() : { status: response.status };
    }
}

try {
    step = 'authorization server';
    summary.authorizationServer = await startAuthorizationServer();
    const provider = new HeadlessProvider();
    await authorize(provider);
    await authorizedSession(provider);
    const challenge = summary.unauthenticated?.challenge ?? '';
    await ownRequests(/resource_metadata="([^"]+)"/.exec(challenge)?.[1]);
} catch (error) {
    problems.push(`${step}: ${describe(error)}${error?.stack ? `\n${error.stack}` : ''}`);
}
finish();
