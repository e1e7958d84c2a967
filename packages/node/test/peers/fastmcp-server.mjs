#!/usr/bin/env node
/**
 * An MCP server written with the `fastmcp` framework (4.x: `FastMCP` over the v1 SDK's `Server`, HTTP
 * served by `mcp-proxy`'s `startHTTPServer`).
 *
 *   node packages/node/test/peers/fastmcp-server.mjs stdio
 *   node packages/node/test/peers/fastmcp-server.mjs http <port> [stateless]
 *
 * - stdio: `transportType: "stdio"`; stdout carries protocol only, FastMCP's own log goes to stderr.
 * - http: `transportType: "httpStream"` on 127.0.0.1, endpoint `/mcp` (mcp-proxy also serves legacy SSE on
 *   `/sse`). Sessions (`Mcp-Session-Id`, GET stream, an unknown session answered 404) unless `stateless`.
 *   The port must be given (FastMCP does not report the one it bound); once listening, one line
 *   `listening <port>` is printed on stdout.
 *
 * Speaks the 2025 revisions (its SDK's newest is 2025-11-25). mcp-proxy answers a 2026-07-28 request
 * with HTTP 400 `-32000` ("the server instance cannot serve the 2026-07-28 protocol revision") because
 * FastMCP 4.x builds v1-SDK servers; a dual-era client falls back to `initialize`.
 *
 * Completion is offered: `greet`'s `name` has a `complete` function and `mood` an `enum`; the
 * `memo://notes/{id}` template's `id` has a `complete` function.
 */
import { FastMCP, UserError } from "fastmcp";
import { randomUUID } from "node:crypto";
import process from "node:process";
import { z } from "zod";

const [mode = "stdio", portArg, flag] = process.argv.slice(2);
if ((mode !== "stdio" && mode !== "http") || (mode === "http" && portArg === undefined)) {
  process.stderr.write(`usage: fastmcp-server.mjs stdio | http <port> [stateless]\n`);
  process.exit(2);
}

/** Tells one process from the next: a restarted server has another boot id. */
const boot = randomUUID();
const write = (level) => (...parts) => process.stderr.write(`[fastmcp-server ${level}] ${parts.join(" ")}\n`);
const logger = { debug: () => {}, log: write("log"), info: write("info"), warn: write("warn"), error: write("error") };

const server = new FastMCP({
  name: "fastmcp-peer",
  version: "2.0.0",
  instructions: "A test peer built with fastmcp.",
  logger,
  // No server → client pings during the tests (they would only add traffic).
  ping: { enabled: false },
});

server.addTool({
  name: "echo",
  description: "Echoes the message back",
  parameters: z.object({ message: z.string() }),
  execute: async ({ message }) => `fastmcp says: ${message}`,
});

server.addTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
});

server.addTool({
  name: "whoami",
  description: "This process's boot id and pid, and the client's name and session as FastMCP saw them",
  parameters: z.object({}),
  outputSchema: z.object({ boot: z.string(), pid: z.number(), client: z.string(), sessionId: z.string() }),
  execute: async (_args, context) => ({
    boot,
    pid: process.pid,
    client: context.client.version?.name ?? "",
    sessionId: context.sessionId ?? "",
  }),
});

server.addTool({
  name: "count",
  description: "Counts to `to`, reporting progress for each step",
  parameters: z.object({ to: z.number().int().min(1).max(10) }),
  execute: async ({ to }, { reportProgress }) => {
    for (let step = 1; step <= to; step++) {
      await reportProgress({ progress: step, total: to });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return `counted to ${to}`;
  },
});

server.addTool({
  name: "log",
  description: "Sends a log message to the client",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }, { log }) => {
    log.info(text, { from: "fastmcp" });
    return "logged";
  },
});

server.addTool({
  name: "fail",
  description: "A tool that reports a user-facing error",
  parameters: z.object({}),
  execute: async () => {
    throw new UserError("this tool always fails");
  },
});

server.addTool({
  name: "confirm",
  description: "Asks the user to confirm through elicitation",
  parameters: z.object({ action: z.string() }),
  execute: async ({ action }, { elicit }) => {
    const answer = await elicit({
      message: `Really ${action}?`,
      requestedSchema: {
        type: "object",
        properties: { confirmed: { type: "boolean" }, note: { type: "string" } },
        required: ["confirmed"],
      },
    });
    return `${answer.action}: ${JSON.stringify(answer.content ?? null)}`;
  },
});

const names = ["Ada", "Alan", "Barbara", "Grace"];

server.addPrompt({
  name: "greet",
  description: "Greets someone",
  arguments: [
    {
      name: "name",
      description: "Who to greet",
      required: true,
      complete: async (value) => ({ values: names.filter((n) => n.toLowerCase().startsWith(value.toLowerCase())) }),
    },
    { name: "mood", description: "How", enum: ["happy", "grumpy", "sleepy"] },
  ],
  load: async ({ mood, name }) => `Say hello to ${name} in a ${mood ?? "neutral"} way.`,
});

server.addResource({
  uri: "memo://readme",
  name: "readme",
  mimeType: "text/plain",
  load: async () => ({ text: "fastmcp readme" }),
});

server.addResourceTemplate({
  uriTemplate: "memo://notes/{id}",
  name: "note",
  mimeType: "application/json",
  arguments: [
    {
      name: "id",
      description: "The note's id",
      required: true,
      complete: async (value) => ({ values: ["alpha", "beta", "gamma"].filter((id) => id.startsWith(value)) }),
    },
  ],
  load: async ({ id }) => ({ text: JSON.stringify({ id, boot }) }),
});

if (mode === "stdio") {
  await server.start({ transportType: "stdio" });
} else {
  const port = Number(portArg);
  await server.start({
    transportType: "httpStream",
    httpStream: { port, host: "127.0.0.1", endpoint: "/mcp", stateless: flag === "stateless" },
  });
  process.stdout.write(`listening ${port}\n`);
}
