#!/usr/bin/env node
/**
 * An MCP server written with `mcp-lite` (its own protocol code: JSON-RPC, Streamable HTTP, sessions),
 * served by Hono on `node:http` through `@hono/node-server`. mcp-lite has no stdio transport.
 *
 *   node packages/node/test/peers/mcp-lite-server.mjs stateless <port>
 *   node packages/node/test/peers/mcp-lite-server.mjs stateful <port>
 *
 * - `stateless`: `new StreamableHttpTransport()` — no `Mcp-Session-Id`, no GET stream, no
 *   server-to-client requests.
 * - `stateful`: `InMemorySessionAdapter` + `InMemoryClientRequestAdapter` — a session per `initialize`,
 *   a GET stream, and `elicitation/create` from the `confirm` tool.
 *
 * Binds 127.0.0.1 only; port 0 picks a free port. Once listening, one line `listening <port>` is printed on
 * stdout. The MCP endpoint is `/mcp`; `GET /stats` answers this process's
 * `{ boot, pid, byMethod, sessions, http }` as plain HTTP (reading it sends no MCP request): JSON-RPC
 * methods dispatched, the session ids the POSTs carried (`null` for none), and the `/mcp` requests by verb
 * and status (`"GET 400": 1`).
 *
 * mcp-lite speaks 2025-06-18 and 2025-03-26: a client offering a newer revision is answered 2025-03-26.
 * Its GET handler accepts only an `MCP-Protocol-Version: 2025-06-18` header, so on 2025-03-26 every GET is
 * answered 400 "Protocol version mismatch" (stateless too, before its 405). A POST carrying a session id the
 * process does not know is served anyway (no 404). `completion/complete` and `resources/subscribe` are
 * registered as "Not implemented" (`-32603`) and no `completions` capability is declared.
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { InMemoryClientRequestAdapter, InMemorySessionAdapter, McpServer, StreamableHttpTransport } from "mcp-lite";
import { randomUUID } from "node:crypto";
import process from "node:process";
import { z } from "zod";

const [mode = "stateless", portArg = "0"] = process.argv.slice(2);
if (mode !== "stateless" && mode !== "stateful") {
  process.stderr.write(`usage: mcp-lite-server.mjs stateless|stateful <port>\n`);
  process.exit(2);
}

/** Tells one process from the next: a restarted server has another boot id. */
const boot = randomUUID();
const byMethod = {};
const sessions = [];
/** HTTP requests on `/mcp` by verb and status, e.g. `"GET 400"`. */
const http = {};

const mcp = new McpServer({
  name: "mcp-lite-peer",
  version: "1.0.0",
  // A plain copy: Zod 4.6 marks the JSON Schema it generates with a non-enumerable `~standard`, which
  // mcp-lite 0.10 then takes for a Standard Schema still to be converted (elicitation fails on it).
  schemaAdapter: (schema) => JSON.parse(JSON.stringify(z.toJSONSchema(schema))),
});

mcp.use(async (ctx, next) => {
  const method = ctx.request.method;
  byMethod[method] = (byMethod[method] ?? 0) + 1;
  await next();
});

// A tool described in plain JSON Schema.
mcp.tool("echo", {
  description: "Echoes the message back",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
  handler: (args) => ({ content: [{ type: "text", text: `mcp-lite says: ${args.message}` }] }),
});

// Zod input and output schemas: structuredContent validated by mcp-lite before it is sent.
mcp.tool("add", {
  description: "Adds two numbers",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  handler: ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
    structuredContent: { sum: a + b },
  }),
});

mcp.tool("whoami", {
  description: "This process's boot id and pid",
  inputSchema: z.object({}),
  outputSchema: z.object({ boot: z.string(), pid: z.number() }),
  handler: () => ({
    content: [{ type: "text", text: `boot ${boot}` }],
    structuredContent: { boot, pid: process.pid },
  }),
});

mcp.tool("count", {
  description: "Counts to `to`, reporting progress for each step",
  inputSchema: z.object({ to: z.number().int().min(1).max(10) }),
  handler: async ({ to }, ctx) => {
    for (let step = 1; step <= to; step++) {
      await ctx.progress?.({ progress: step, total: to, message: `step ${step}` });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { content: [{ type: "text", text: `counted to ${to}` }] };
  },
});

mcp.tool("fail", {
  description: "A tool whose handler throws",
  inputSchema: z.object({}),
  handler: () => {
    throw new Error("this tool always fails");
  },
});

mcp.tool("confirm", {
  description: "Asks the user to confirm through elicitation (stateful mode only)",
  inputSchema: z.object({ action: z.string() }),
  handler: async ({ action }, ctx) => {
    if (!ctx.client.supports("elicitation")) {
      return { content: [{ type: "text", text: "elicitation unavailable" }], isError: true };
    }
    const answer = await ctx.elicit({
      message: `Really ${action}?`,
      schema: z.object({ confirmed: z.boolean(), note: z.string() }),
    });
    return {
      content: [{ type: "text", text: `${answer.action}: ${JSON.stringify(answer.content ?? null)}` }],
    };
  },
});

mcp.prompt("greet", {
  description: "Greets someone",
  arguments: z.object({ name: z.string(), mood: z.enum(["happy", "grumpy"]).optional() }),
  handler: ({ mood, name }) => ({
    description: "A greeting",
    messages: [{
      role: "user",
      content: { type: "text", text: `Say hello to ${name} in a ${mood ?? "neutral"} way.` },
    }],
  }),
});

mcp.resource(
  "memo://readme",
  { name: "readme", description: "A fixed note", mimeType: "text/plain" },
  async (uri) => ({ contents: [{ uri: uri.href, type: "text", text: "mcp-lite readme", mimeType: "text/plain" }] }),
);

mcp.resource(
  "memo://notes/{id}",
  { name: "note", description: "A note by id", mimeType: "application/json" },
  async (uri, { id }) => ({
    contents: [{ uri: uri.href, type: "text", text: JSON.stringify({ id, boot }), mimeType: "application/json" }],
  }),
);

const transport = mode === "stateful"
  ? new StreamableHttpTransport({
    sessionAdapter: new InMemorySessionAdapter({ maxEventBufferSize: 1024 }),
    clientRequestAdapter: new InMemoryClientRequestAdapter({ defaultTimeoutMs: 30_000 }),
  })
  : new StreamableHttpTransport();
const handle = transport.bind(mcp);

const app = new Hono();
app.get("/stats", (c) => c.json({ boot, pid: process.pid, byMethod, sessions, http }));
app.all("/mcp", async (c) => {
  if (c.req.method === "POST") sessions.push(c.req.header("mcp-session-id") ?? null);
  const response = await handle(c.req.raw);
  const key = `${c.req.method} ${response.status}`;
  http[key] = (http[key] ?? 0) + 1;
  return response;
});

serve({ fetch: app.fetch, port: Number(portArg), hostname: "127.0.0.1" }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
