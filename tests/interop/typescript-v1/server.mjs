// The official MCP TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.x, the 2025-era
// protocol) serving the interop tool set that our client is tested against.
//
// Usage: node server.mjs --stdio          (stdio)
//        node server.mjs --http PORT      (streamable HTTP on 127.0.0.1; PORT 0 picks a
//                                          free port; prints `listening on
//                                          http://127.0.0.1:PORT/mcp` on stdout)
//
// Everything goes through the SDK's public server API (`McpServer`, with its
// low-level `Server` for the requests the high-level one has no helper for). Over
// HTTP each session gets its own `McpServer` and `StreamableHTTPServerTransport`
// (stateful, with session ids), as in the SDK's examples. The tools:
// - `elicit_name`: a form `elicitation/create` ("What is your name?", one required
//   string `name`); `Hello, NAME!`, `declined` or `cancelled`;
// - `sample`: `sampling/createMessage` (one user message "Say hi", maxTokens 50);
//   `sampled: TEXT`;
// - `progress`: three `notifications/progress` for the request's progress token
//   (1..3 of 3, "step N", 50 ms apart); `done`;
// - `add_tool`: registers the tool `added` (answers `added`), which makes the SDK send
//   `notifications/tools/list_changed`; `ok` (a second call is a no-op);
// - `slow`: waits up to 30 s; when the client cancels (`extra.signal` aborts) it
//   stops and counts the cancellation; `finished` when it ran to the end;
// - `cancelled_count`: how many `slow` calls were cancelled, in this process;
// - `bump`: increments the counter behind the resource `test://counter` and sends
//   `notifications/resources/updated` when this session subscribed to it
//   (`resources/subscribe`, answered by a handler on the low-level server).
import http from "node:http";
import { randomUUID } from "node:crypto";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  isInitializeRequest,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const COUNTER_URI = "test://counter";

// Shared by every session of this process.
let cancelledSlowCalls = 0;
let counter = 0;

const text = (t) => ({ content: [{ type: "text", text: t }] });
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });

/** A new server (one per connection) with the interop tool set. */
function makeServer() {
  const server = new McpServer(
    { name: "typescript-v1-interop-server", version: "1.32.2" },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      },
    },
  );
  const subscribed = new Set();

  server.registerTool("elicit_name", { description: "Asks the client for a name." }, async () => {
    const answer = await server.server.elicitInput({
      message: "What is your name?",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      },
    });
    if (answer.action === "accept") return text(`Hello, ${answer.content?.name}!`);
    return text(answer.action === "decline" ? "declined" : "cancelled");
  });

  server.registerTool("sample", { description: "Asks the client's model to say hi." }, async () => {
    const answer = await server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
      maxTokens: 50,
    });
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return text(`sampled: ${content?.type === "text" ? content.text : ""}`);
  });

  server.registerTool("progress", { description: "Reports three steps of progress." }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= 3; step++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: step, total: 3, message: `step ${step}` },
        });
      }
      await sleep(50);
    }
    return text("done");
  });

  let added = false;
  server.registerTool("add_tool", { description: "Registers the tool `added`." }, async () => {
    if (!added) {
      added = true;
      // After connect: the SDK sends notifications/tools/list_changed.
      server.registerTool("added", { description: "Added at run time." }, async () => text("added"));
    }
    return text("ok");
  });

  server.registerTool("slow", { description: "Waits 30 s unless cancelled." }, async (extra) => {
    const finished = await sleep(30_000, extra.signal);
    if (!finished) {
      cancelledSlowCalls++;
      process.stderr.write(`slow: cancelled (${cancelledSlowCalls} so far)\n`);
    }
    return text(finished ? "finished" : "cancelled");
  });

  server.registerTool("cancelled_count", { description: "How many slow calls were cancelled." }, async () =>
    text(String(cancelledSlowCalls)),
  );

  server.registerResource(
    "counter",
    COUNTER_URI,
    { mimeType: "text/plain", description: "A counter that `bump` increments." },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: String(counter) }] }),
  );

  server.registerTool("bump", { description: "Increments test://counter." }, async () => {
    counter++;
    if (subscribed.has(COUNTER_URI)) {
      await server.server.sendResourceUpdated({ uri: COUNTER_URI });
    }
    return text(String(counter));
  });

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  return server;
}

async function serveStdio() {
  await makeServer().connect(new StdioServerTransport());
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks).toString("utf8");
  return body.length === 0 ? undefined : JSON.parse(body);
}

async function serveHttp(port) {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const sessionId = req.headers["mcp-session-id"];
      const body = req.method === "POST" ? await readJson(req) : undefined;
      let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
      if (!transport && sessionId === undefined && req.method === "POST" && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        await makeServer().connect(transport);
      }
      if (!transport) {
        // As the SDK's examples answer a request without a (known) session.
        res.writeHead(400, { "Content-Type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32000, message: "Bad Request: No valid session ID provided" },
            id: null,
          }),
        );
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      process.stderr.write(`request failed: ${error?.stack ?? error}\n`);
      if (!res.headersSent) {
        res.writeHead(500, { "Content-Type": "application/json" }).end(
          JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: String(error) }, id: null }),
        );
      }
    }
  });
  httpServer.listen(port, "127.0.0.1", () => {
    process.stdout.write(`listening on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
  });
}

const args = process.argv.slice(2);
if (args[0] === "--stdio" && args.length === 1) {
  await serveStdio();
} else if (args[0] === "--http" && args.length === 2 && /^\d+$/.test(args[1])) {
  await serveHttp(Number(args[1]));
} else {
  process.stderr.write("usage: node server.mjs --stdio | --http PORT\n");
  process.exit(2);
}
