// The official MCP TypeScript SDK v1's demo authorization server (`setupAuthServer`,
// exported by `@modelcontextprotocol/sdk` under
// `examples/server/demoInMemoryOAuthProvider.js`), alone, for our own client to sign in
// to: RFC 8414 metadata, dynamic client registration, an authorization endpoint that
// approves at once (it redirects to the registered redirect URI with a code, no user
// interaction), a token endpoint that checks PKCE and, strictly, the RFC 8707
// `resource` (the code is only exchanged for --resource's server), and an RFC 7662
// introspection endpoint. Everything in memory.
//
// Usage: node auth-server.mjs --issuer http://127.0.0.1:AS_PORT/ --resource http://127.0.0.1:PORT/mcp
//
// Prints `listening on ISSUER` on stderr once its metadata answers, then serves until
// killed (the test kills it). Exits 1 when the metadata does not answer within 10 s.

const USAGE = 'usage: node auth-server.mjs --issuer ISSUER_URL --resource MCP_URL';
const argv = process.argv.slice(2);
if (argv.length !== 4 || argv[0] !== '--issuer' || argv[2] !== '--resource') {
    console.error(USAGE);
    process.exit(2);
}
const issuer = new URL(argv[1]);
const resource = new URL(argv[3]);
const STARTUP_TIMEOUT_MS = 10_000;

// The demo server logs with console.log; keep stdout quiet.
console.log = (...args) => console.error(...args);

const { setupAuthServer } = await import('@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js');
setupAuthServer({ authServerUrl: issuer, mcpServerUrl: resource, strictResource: true });

const metadataUrl = new URL('/.well-known/oauth-authorization-server', issuer);
const deadline = Date.now() + STARTUP_TIMEOUT_MS;
for (;;) {
    try {
        const response = await fetch(metadataUrl);
        if (response.ok) break;
    } catch {
        // not listening yet
    }
    if (Date.now() > deadline) {
        console.error(`auth-server.mjs: ${metadataUrl} did not answer within ${STARTUP_TIMEOUT_MS} ms`);
        process.exit(1);
    }
    await new Promise(resolve => setTimeout(resolve, 50));
}
console.error(`listening on ${issuer.href}`);
