#!/usr/bin/env node
/**
 * Dual-era MCP test peer built on the official SDK v2 server packages
 * (`@modelcontextprotocol/server` 2.4.x + `@modelcontextprotocol/node` 2.1.x).
 *
 * It serves 2026-07-28 (stateless: `server/discover`, per-request `_meta`) and
 * 2025-11-25 (`initialize`) from ONE server factory:
 *
 *   node packages/node/test/peers/dual-era-server.mjs stdio
 *   node packages/node/test/peers/dual-era-server.mjs http <port> [--host 127.0.0.1] [--legacy stateless|sessions|reject]
 *
 * - stdio: `serveStdio(factory)`; stdout carries protocol only, logs go to stderr.
 * - http: `createMcpHandler(factory)` behind `toNodeHandler` on `node:http`, endpoint `/mcp`.
 *   Port 0 picks a free port. Once listening, exactly one line `listening <port>` is printed on stdout.
 *   `--legacy stateless` (default) is the SDK default: every 2025-era POST is served by a fresh instance
 *   (no `Mcp-Session-Id`). `--legacy sessions` routes 2025-era traffic (see `isLegacyRequest`) to a
 *   sessionful `NodeStreamableHTTPServerTransport` per `initialize` (Mcp-Session-Id, GET stream, DELETE),
 *   and `--legacy reject` makes the endpoint modern-only.
 *   Extra plain-HTTP routes for tests: `GET /stats` (request counts, JSON) and `POST /stats/reset`.
 *
 * Request counting: every inbound JSON-RPC message is counted per method (at the transport edge, before the
 * SDK validates it) and logged on stderr as `[dual-era-server] <- <method> <name|uri>`. Counts are readable
 * through the `stats` tool (which itself counts as a `tools/call`) and, on HTTP, through `GET /stats`.
 *
 * 2026-07-28 extras: `ask_model` asks the client's model (an `input_required` round whose input request is
 * `sampling/createMessage`), and the tasks extension `io.modelcontextprotocol/tasks` (declared in `server/discover`):
 * `long_job` answers a declaring request with a CreateTaskResult and the task is driven by `tasks/get` (each poll
 * advances it: working -> input_required (form elicitation) -> after `tasks/update` -> working -> completed, with the
 * CallToolResult inline), `tasks/update` and `tasks/cancel`, registered with the SDK's custom-method
 * `setRequestHandler(method, { params }, handler)` form. Task state is process-wide.
 *
 * See TRANSCRIPTS.md next to this file for the exact wire behaviour.
 */
import { Buffer } from "node:buffer";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import process from "node:process";
import { URL } from "node:url";

import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  isLegacyRequest,
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const { Headers, Request, Response } = globalThis;

const SERVER_INFO = { name: "dual-era-test-peer", version: "1.0.0" };
const log = (...parts) => process.stderr.write(`[dual-era-server] ${parts.join(" ")}\n`);

// ---------------------------------------------------------------------------------------------------------------
// Process-wide state (HTTP builds one server instance per request, so nothing may live on an instance).

/** Inbound JSON-RPC messages seen, keyed by method (requests and notifications). */
const counts = new Map();
let totalMessages = 0;
const countMessage = (message, via) => {
  if (message === null || typeof message !== "object" || typeof message.method !== "string") return;
  counts.set(message.method, (counts.get(message.method) ?? 0) + 1);
  totalMessages++;
  const p = message.params ?? {};
  const detail = p.name ?? p.uri ?? "";
  log("<-", via, message.method, detail, "id" in message ? `id=${JSON.stringify(message.id)}` : "(notification)");
};
const statsSnapshot = () => ({ total: totalMessages, byMethod: Object.fromEntries([...counts].sort()) });
const resetStats = () => {
  counts.clear();
  totalMessages = 0;
};

/** Whether the optional `bonus` tool is currently listed (flipped by `trigger_change`). */
let bonusEnabled = false;

/** HMAC codec for `requestState` (fixed key, so any instance/process round can verify it). */
const stateCodec = createRequestStateCodec({
  key: "dual-era-test-peer/request-state-key/0123456789abcdef",
  ttlSeconds: 600,
});

/** Set once the HTTP handler exists: publishes change events to open `subscriptions/listen` streams. */
let httpNotify;

// ---------------------------------------------------------------------------------------------------------------
// The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28): process-wide task store.
//
// Deterministic on purpose (no timers): every `tasks/get` advances a task one step, so transcripts and tests
// see the same sequence every run:
//   tools/call long_job            -> CreateTaskResult, status working
//   tasks/get #1                   -> input_required, inputRequests { approve: elicitation/create (form) }
//   tasks/get (before the update)  -> the same input_required snapshot (same key)
//   tasks/update { approve: ... }  -> ack; the answer is recorded
//   tasks/get (stalePolls, def. 1) -> still the input_required snapshot (the ack is eventually consistent)
//   tasks/get                      -> working
//   tasks/get                      -> completed with the CallToolResult inline (`result`), or failed (`fail: true`)

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const TASK_TTL_MS = 60000;
const TASK_POLL_MS = 50;

/** taskId -> task record (`taskView(record)` is the wire Task; the rest is the peer's bookkeeping). */
const tasks = new Map();

const declaresTasks = (ctx) => {
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES];
  const extensions = caps !== null && typeof caps === "object" ? caps.extensions : undefined;
  return extensions !== null && typeof extensions === "object" && TASKS_EXTENSION in extensions;
};

const taskView = (task) => ({
  taskId: task.taskId,
  status: task.status,
  ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
  createdAt: task.createdAt,
  lastUpdatedAt: task.lastUpdatedAt,
  ttlMs: task.ttlMs,
  pollIntervalMs: task.pollIntervalMs,
});

/** The DetailedTask for the task's current status (what `tasks/get` returns). */
const detailedTask = (task) => {
  const view = taskView(task);
  if (task.status === "input_required") return { ...view, inputRequests: task.inputRequests };
  if (task.status === "completed") return { ...view, result: task.result };
  if (task.status === "failed") return { ...view, error: task.error };
  return view;
};

const setStatus = (task, status, statusMessage) => {
  task.status = status;
  task.statusMessage = statusMessage;
  task.lastUpdatedAt = new Date().toISOString();
};

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/**
 * The SDK's tools/call seam gives every content-less tool result `content: []` (normalizeContentlessToolResult),
 * a CreateTaskResult included. The peer takes it off again at the transport edge, so the wire carries the
 * extension's exact CreateTaskResult. Returns the message unchanged when there is nothing to strip.
 */
const stripTaskContent = (message) => {
  const result = message !== null && typeof message === "object" ? message.result : undefined;
  if (result === null || typeof result !== "object" || result.resultType !== "task") return message;
  if (!Array.isArray(result.content) || result.content.length !== 0) return message;
  const rest = { ...result };
  delete rest.content;
  return { ...message, result: rest };
};

const createTask = ({ job, fail, stalePolls }) => {
  const now = new Date().toISOString();
  const task = {
    taskId: randomUUID(),
    status: "working",
    statusMessage: `job ${job} started`,
    createdAt: now,
    lastUpdatedAt: now,
    createdAtMs: Date.now(),
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: TASK_POLL_MS,
    job,
    fail: fail === true,
    staleLeft: stalePolls ?? 1,
    phase: "start",
    inputRequests: undefined,
    answer: undefined,
    result: undefined,
    error: undefined,
  };
  tasks.set(task.taskId, task);
  return task;
};

/** One step of the task's life, taken on each `tasks/get`. */
const advanceTask = (task) => {
  if (TERMINAL.has(task.status)) return;
  switch (task.phase) {
    case "start":
      task.phase = "asking";
      task.inputRequests = {
        approve: inputRequired.elicit({
          message: `Run job ${task.job}?`,
          requestedSchema: {
            type: "object",
            properties: { approve: { type: "boolean", title: "Approve", description: `Run job ${task.job}?` } },
            required: ["approve"],
          },
        }),
      };
      setStatus(task, "input_required", `job ${task.job} waits for approval`);
      return;
    case "asking":
      return; // still waiting for tasks/update: the same snapshot again
    case "answered":
      if (task.staleLeft > 0) {
        task.staleLeft--;
        return; // the ack is eventually consistent: one more input_required snapshot (same key)
      }
      task.phase = "finishing";
      task.inputRequests = undefined;
      setStatus(task, "working", `job ${task.job} running`);
      return;
    case "finishing": {
      const answer = task.answer;
      if (task.fail) {
        task.error = { code: -32603, message: `job ${task.job} failed (fail: true)` };
        setStatus(task, "failed", `job ${task.job} failed`);
        return;
      }
      const approved = answer.action === "accept" && answer.content?.approve === true;
      task.result = {
        content: [text(
          approved
            ? `job ${task.job} done (approved)`
            : `job ${task.job} not run: user chose ${answer.action}${
              answer.action === "accept" ? " approve=false" : ""
            }`,
        )],
        structuredContent: { job: task.job, action: answer.action, approved },
        isError: false,
      };
      setStatus(task, "completed", `job ${task.job} finished`);
      return;
    }
  }
};

const taskNotFound = (taskId, why = "Task not found") =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: ${why}`, { taskId });

const lookupTask = (taskId) => {
  const task = tasks.get(taskId);
  if (task === undefined) throw taskNotFound(taskId);
  if (Date.now() > task.createdAtMs + task.ttlMs) {
    tasks.delete(taskId);
    throw taskNotFound(taskId, "Task has expired");
  }
  return task;
};

const requireTasksCapability = (ctx) => {
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      "Missing required client capability",
    );
  }
};

const requireModern = (server, method) => {
  if (server.server.getNegotiatedProtocolVersion?.() !== "2026-07-28") {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Method not found: ${method} (tasks extension, 2026-07-28 only)`,
    );
  }
};

const taskIdParams = fromJsonSchema({
  type: "object",
  properties: { taskId: { type: "string" } },
  required: ["taskId"],
});

const registerTasks = (server) => {
  server.server.setRequestHandler("tasks/get", { params: taskIdParams }, ({ taskId }, ctx) => {
    requireModern(server, "tasks/get");
    requireTasksCapability(ctx);
    const task = lookupTask(taskId);
    advanceTask(task);
    return detailedTask(task);
  });
  // The SDK lifts `params.inputResponses` out of every request (as for an MRTR retry): the handler reads them
  // from ctx.mcpReq.inputResponses, and a tasks/update without them is answered -32602 here.
  server.server.setRequestHandler("tasks/update", { params: taskIdParams }, ({ taskId }, ctx) => {
    requireModern(server, "tasks/update");
    requireTasksCapability(ctx);
    const inputResponses = ctx.mcpReq.inputResponses;
    if (inputResponses === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "tasks/update requires inputResponses", { taskId });
    }
    const task = lookupTask(taskId);
    // Only the outstanding key counts; anything else (unknown, already answered, terminal task) is ignored.
    const answer = task.phase === "asking" ? inputResponses.approve : undefined;
    if (answer !== null && typeof answer === "object" && typeof answer.action === "string") {
      task.answer = { action: answer.action, content: answer.content };
      task.phase = "answered";
      task.lastUpdatedAt = new Date().toISOString();
    }
    return {};
  });
  server.server.setRequestHandler("tasks/cancel", { params: taskIdParams }, ({ taskId }, ctx) => {
    requireModern(server, "tasks/cancel");
    requireTasksCapability(ctx);
    const task = lookupTask(taskId);
    if (!TERMINAL.has(task.status)) {
      task.inputRequests = undefined;
      setStatus(task, "cancelled", `job ${task.job} cancelled by the client`);
    }
    return {};
  });
};

// ---------------------------------------------------------------------------------------------------------------
// The one server factory behind both eras and both transports.

const text = (t) => ({ type: "text", text: t });

const buildServer = ({ era, track }) => {
  const server = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      // The tasks extension is a 2026-07-28 feature: declared in server/discover, not in a legacy initialize.
      ...(era === "legacy" ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
    },
    instructions: "Dual-era MCP test peer (SDK v2). Tools: echo, add, confirm_delete, busy_once, get_weather, "
      + "stats, trigger_change, bonus (only after trigger_change kind=tools), ask_model, long_job.",
    cacheHints: {
      "server/discover": { ttlMs: 3600000, cacheScope: "public" },
      "tools/list": { ttlMs: 60000, cacheScope: "public" },
      "prompts/list": { ttlMs: 60000, cacheScope: "private" },
      "resources/list": { ttlMs: 30000, cacheScope: "public" },
      "resources/templates/list": { ttlMs: 60000, cacheScope: "public" },
      "resources/read": { ttlMs: 5000, cacheScope: "private" },
    },
    requestState: { verify: stateCodec.verify },
  });

  server.registerTool("echo", {
    description: "Echoes the message back as text",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    }),
  }, ({ message }) => ({ content: [text(message)] }));

  server.registerTool("add", {
    description: "Adds two numbers; structured result {sum}",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    }),
    outputSchema: fromJsonSchema({
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
    }),
  }, ({ a, b }) => ({ content: [text(String(a + b))], structuredContent: { sum: a + b } }));

  server.registerTool("confirm_delete", {
    description: "Asks the user (form elicitation, key 'confirm') before pretending to delete a path",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
    annotations: { destructiveHint: true },
  }, async ({ path }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
    if (answer.kind === "missing") {
      // Round 1: ask. (On a 2025-era connection the SDK's legacy shim turns this into a real
      // server->client `elicitation/create` request and re-enters this handler with the answer.)
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: `Delete ${path}?`,
            requestedSchema: {
              type: "object",
              properties: { confirm: { type: "boolean", title: "Confirm", description: `Really delete ${path}?` } },
              required: ["confirm"],
            },
          }),
        },
        requestState: await stateCodec.mint({ tool: "confirm_delete", path, round: 1 }),
      });
    }
    // Round 2: the codec already verified the echoed state (ServerOptions.requestState.verify).
    const state = ctx.mcpReq.requestState();
    if (state === undefined || state.tool !== "confirm_delete" || state.path !== path) {
      return {
        isError: true,
        content: [text(`requestState missing or not minted for path ${path}: ${JSON.stringify(state ?? null)}`)],
      };
    }
    if (answer.kind !== "elicit") {
      return { isError: true, content: [text(`expected an elicitation result under 'confirm', got ${answer.kind}`)] };
    }
    if (answer.action !== "accept") return { content: [text(`User chose ${answer.action}; ${path} was not deleted`)] };
    const confirmed = answer.content?.confirm === true;
    return {
      content: [
        text(confirmed ? `User confirmed: deleted ${path}` : `User answered confirm=false: ${path} was not deleted`),
      ],
    };
  });

  server.registerTool("busy_once", {
    description: "Load shedding: first answers input_required with requestState only, completes on the retry",
    inputSchema: fromJsonSchema({ type: "object", properties: { job: { type: "string" } } }),
  }, async ({ job }, ctx) => {
    const state = ctx.mcpReq.requestState();
    if (state === undefined) {
      return inputRequired({ requestState: await stateCodec.mint({ tool: "busy_once", job: job ?? null }) });
    }
    return { content: [text(`done ${job ?? "(no job)"} after retry`)] };
  });

  server.registerTool("get_weather", {
    description: "Echoes the Mcp-Param-Region header it received (x-mcp-header: Region)",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region", description: "Region code, mirrored as a header" },
        units: { type: "string", enum: ["metric", "imperial"] },
      },
      required: ["region"],
    }),
  }, ({ region, units }, ctx) => {
    const req = ctx.http?.req;
    const header = req?.headers.get("mcp-param-region") ?? null;
    const sentinel = header === null ? null : /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(header);
    const decoded = sentinel ? Buffer.from(sentinel[1], "base64").toString("utf8") : header;
    const result = { region, units: units ?? null, mcpParamRegionHeader: header, mcpParamRegionDecoded: decoded, era };
    return {
      content: [text(`weather for ${region}: sunny (Mcp-Param-Region header: ${header ?? "<none>"})`)],
      structuredContent: result,
    };
  });

  server.registerTool("stats", {
    description: "Counts of inbound JSON-RPC messages per method since start (or last reset)",
    inputSchema: fromJsonSchema({ type: "object", properties: { reset: { type: "boolean" } } }),
  }, ({ reset }) => {
    const snapshot = statsSnapshot();
    if (reset === true) resetStats();
    return { content: [text(JSON.stringify(snapshot))], structuredContent: snapshot };
  });

  server.registerTool("trigger_change", {
    description: "Publishes a change: kind=tools toggles the `bonus` tool; prompts/resources publish list_changed; "
      + "resource_updated publishes notifications/resources/updated for uri",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: {
        kind: { type: "string", enum: ["tools", "prompts", "resources", "resource_updated"] },
        uri: { type: "string" },
      },
      required: ["kind"],
    }),
  }, ({ kind, uri }) => {
    if (kind === "tools") bonusEnabled = !bonusEnabled;
    publishChange(server, kind, uri ?? "memo://fresh");
    return {
      content: [text(`published ${kind}${kind === "tools" ? ` (bonus tool now ${bonusEnabled ? "on" : "off"})` : ""}`)],
    };
  });

  server.registerTool("ask_model", {
    description:
      "Asks the client's model (sampling/createMessage as an input request, key 'model') and returns its text",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { prompt: { type: "string" }, maxTokens: { type: "integer", minimum: 1 } },
      required: ["prompt"],
    }),
  }, async ({ prompt, maxTokens }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "model");
    if (answer.kind === "missing") {
      // Round 1: ask the model. (On a 2025-era connection the SDK's legacy shim sends a real
      // sampling/createMessage request and re-enters this handler with the answer.)
      return inputRequired({
        inputRequests: {
          model: inputRequired.createMessage({
            messages: [{ role: "user", content: text(prompt) }],
            systemPrompt: "You are the dual-era test peer's model. Answer in one short sentence.",
            modelPreferences: { hints: [{ name: "test-model" }], intelligencePriority: 0.5 },
            maxTokens: maxTokens ?? 64,
          }),
        },
        requestState: await stateCodec.mint({ tool: "ask_model", prompt, round: 1 }),
      });
    }
    const state = ctx.mcpReq.requestState();
    if (state === undefined || state.tool !== "ask_model" || state.prompt !== prompt) {
      return {
        isError: true,
        content: [text(`requestState missing or not minted for this prompt: ${JSON.stringify(state ?? null)}`)],
      };
    }
    if (answer.kind !== "sampling") {
      return { isError: true, content: [text(`expected a sampling result under 'model', got ${answer.kind}`)] };
    }
    const blocks = Array.isArray(answer.result.content) ? answer.result.content : [answer.result.content];
    const said = blocks.map((b) => (b?.type === "text" ? b.text : `[${b?.type}]`)).join("");
    return {
      content: [text(said)],
      structuredContent: {
        model: answer.result.model ?? null,
        stopReason: answer.result.stopReason ?? null,
        text: said,
      },
    };
  });

  server.registerTool("long_job", {
    description: "Runs as a task (io.modelcontextprotocol/tasks) when the request declares the extension: "
      + "asks for approval (form elicitation, key 'approve') through tasks/get, completes after tasks/update. "
      + "Without the extension it returns at once.",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: {
        job: { type: "string" },
        fail: { type: "boolean", description: "End the task as failed (-32603) after the approval" },
        stalePolls: {
          type: "integer",
          minimum: 0,
          description: "tasks/get answers still showing input_required after tasks/update (default 1)",
        },
      },
      required: ["job"],
    }),
  }, ({ job, fail, stalePolls }, ctx) => {
    if (era !== "legacy" && declaresTasks(ctx)) {
      const task = createTask({ job, fail, stalePolls });
      return { resultType: "task", ...taskView(task) };
    }
    return { content: [text(`job ${job} done (no task: the request did not declare ${TASKS_EXTENSION})`)] };
  });

  const bonus = server.registerTool("bonus", {
    description: "Only listed after trigger_change kind=tools",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, () => ({ content: [text("bonus!")] }));
  if (!bonusEnabled) bonus.disable();
  if (track === true) bonusTools.set(server, bonus);

  server.registerPrompt("greet", {
    description: "Greets someone",
    argsSchema: fromJsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }),
  }, ({ name }) => ({
    description: "A greeting",
    messages: [{ role: "user", content: text(`Please greet ${name} warmly.`) }],
  }));

  server.registerResource(
    "fresh",
    "memo://fresh",
    {
      description: "Cacheable for 60 s",
      mimeType: "text/plain",
      cacheHint: { ttlMs: 60000, cacheScope: "public" },
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `fresh memo (read #${readCount(uri.href)})` }],
    }),
  );

  server.registerResource(
    "stale",
    "memo://stale",
    {
      description: "Immediately stale (ttlMs 0)",
      mimeType: "text/plain",
      cacheHint: { ttlMs: 0, cacheScope: "private" },
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: `stale memo (read #${readCount(uri.href)})` }],
    }),
  );

  server.registerResource(
    "note",
    new ResourceTemplate("memo://notes/{id}", { list: undefined }),
    { description: "A note by id (template; no per-resource hint)", mimeType: "text/plain" },
    (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `note ${id}` }] }),
  );

  registerTasks(server);

  return server;
};

const reads = new Map();
const readCount = (uri) => {
  const n = (reads.get(uri) ?? 0) + 1;
  reads.set(uri, n);
  return n;
};

/** Every live `bonus` registration (stdio pins one instance; HTTP instances are short-lived). */
const bonusTools = new Map();

const publishChange = (server, kind, uri) => {
  for (const [owner, tool] of bonusTools) {
    try {
      if (kind === "tools" && bonusEnabled) tool.enable();
      else if (kind === "tools") tool.disable();
    } catch (error) {
      log("bonus toggle failed:", error?.message ?? String(error));
      bonusTools.delete(owner);
    }
  }
  if (httpNotify !== undefined) {
    // HTTP: the handler's bus feeds every open `subscriptions/listen` stream.
    if (kind === "tools") httpNotify.toolsChanged();
    else if (kind === "prompts") httpNotify.promptsChanged();
    else if (kind === "resources") httpNotify.resourcesChanged();
    else httpNotify.resourceUpdated(uri);
    return;
  }
  // stdio: the pinned instance's notifications are routed by serveStdio (listen streams on a modern
  // connection, plain 2025 notifications on a legacy one). enable()/disable() already sent tools/list_changed.
  if (kind === "prompts") server.sendPromptListChanged();
  else if (kind === "resources") server.sendResourceListChanged();
  else if (kind === "resource_updated") void server.server.sendResourceUpdated({ uri });
};

const stdioFactory = (ctx) => buildServer({ ...ctx, track: true });
const httpFactory = (ctx) => buildServer({ ...ctx, track: false });

// ---------------------------------------------------------------------------------------------------------------
// stdio

/** A StdioServerTransport wrapper that counts inbound messages (serveStdio owns it like its own). */
const countingStdioTransport = () => {
  const inner = new StdioServerTransport();
  let onmessage;
  return {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => inner.send(stripTaskContent(message), options),
    get onclose() {
      return inner.onclose;
    },
    set onclose(handler) {
      inner.onclose = handler;
    },
    get onerror() {
      return inner.onerror;
    },
    set onerror(handler) {
      inner.onerror = handler;
    },
    get onmessage() {
      return onmessage;
    },
    set onmessage(handler) {
      onmessage = handler;
      inner.onmessage = handler === undefined ? undefined : (message, extra) => {
        countMessage(message, "stdio");
        handler(message, extra);
      };
    },
  };
};

const runStdio = () => {
  const handle = serveStdio(stdioFactory, {
    transport: countingStdioTransport(),
    onerror: (error) => log("error:", error?.message ?? String(error)),
  });
  process.on("SIGTERM", () => void handle.close().finally(() => process.exit(0)));
  log("serving stdio");
};

// ---------------------------------------------------------------------------------------------------------------
// HTTP

const countHttpBody = async (request) => {
  if (request.method !== "POST") {
    log("<- http", request.method, new URL(request.url).pathname);
    return;
  }
  try {
    const body = JSON.parse(await request.clone().text());
    for (const message of Array.isArray(body) ? body : [body]) countMessage(message, "http");
  } catch {
    log("<- http POST with a body that is not JSON");
  }
};

/** `stripTaskContent` for a plain JSON response (SSE-framed responses never carry a CreateTaskResult here). */
const stripTaskContentResponse = async (response) => {
  if (!(response.headers.get("content-type") ?? "").startsWith("application/json")) return response;
  const raw = await response.text();
  let body = raw;
  try {
    const parsed = JSON.parse(raw);
    const stripped = stripTaskContent(parsed);
    if (stripped !== parsed) body = JSON.stringify(stripped);
  } catch {
    // not JSON after all: pass the text through untouched
  }
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
};

const runHttp = async (port, host, legacyMode) => {
  const handler = createMcpHandler(httpFactory, {
    legacy: legacyMode === "reject" ? "reject" : "stateless",
    onerror: (error) => log("handler error:", error?.message ?? String(error)),
  });
  httpNotify = handler.notify;

  /** Sessionful 2025-era transports for `--legacy sessions`, by Mcp-Session-Id. */
  const sessions = new Map();
  const legacySessionful = async (req, res, parsedBody) => {
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (transport === undefined) {
      const isInit = parsedBody !== undefined && !Array.isArray(parsedBody) && parsedBody.method === "initialize";
      if (!isInit) {
        res.writeHead(typeof sessionId === "string" ? 404 : 400, { "content-type": "application/json" });
        res.end(JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32000,
            message: typeof sessionId === "string" ? "Session not found" : "Bad Request: Server not initialized",
          },
        }));
        return;
      }
      transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      const legacyServer = buildServer({ era: "legacy", track: true });
      legacyServer.server.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
        bonusTools.delete(legacyServer);
      };
      await legacyServer.connect(transport);
    }
    await transport.handleRequest(req, res, parsedBody);
  };

  const countingFace = {
    fetch: async (request, options) => {
      await countHttpBody(request);
      return stripTaskContentResponse(await handler.fetch(request, options));
    },
  };
  const modernNode = toNodeHandler(countingFace, { onerror: (e) => log("adapter error:", e.message) });

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname === "/stats") {
        if (req.method === "POST") resetStats();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(statsSnapshot()));
        return;
      }
      if (url.pathname === "/stats/reset") {
        resetStats();
        res.writeHead(204);
        res.end();
        return;
      }
      if (url.pathname !== "/mcp") {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("not found: the MCP endpoint is /mcp\n");
        return;
      }
      if (legacyMode === "sessions") {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        const raw = Buffer.concat(chunks).toString("utf8");
        let parsed;
        try {
          parsed = raw.length > 0 ? JSON.parse(raw) : undefined;
        } catch {
          parsed = undefined;
        }
        const probe = new Request(new URL(req.url ?? "/mcp", `http://${req.headers.host ?? "localhost"}`), {
          method: req.method,
          headers: Object.entries(req.headers).flatMap(([k, v]) =>
            v === undefined ? [] : Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]
          ),
          ...(req.method === "POST" || req.method === "PUT" ? { body: raw } : {}),
        });
        if (await isLegacyRequest(probe, parsed)) {
          if (parsed !== undefined) countMessage(parsed, "http-legacy-session");
          else log("<- http-legacy-session", req.method);
          await legacySessionful(req, res, parsed);
          return;
        }
        await countingFace.fetch(probe).then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          if (response.body === null) return void res.end();
          for await (const chunk of response.body) res.write(chunk);
          res.end();
        });
        return;
      }
      await modernNode(req, res);
    } catch (error) {
      log("request failed:", error?.stack ?? String(error));
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end();
    }
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  process.stdout.write(`listening ${actual}\n`);
  log(`serving http://${host}:${actual}/mcp (legacy: ${legacyMode})`);
  const shutdown = () => {
    void handler.close();
    for (const t of sessions.values()) void t.close();
    server.close(() => process.exit(0));
    server.closeAllConnections?.();
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
};

// ---------------------------------------------------------------------------------------------------------------
// main

const usage = () => {
  process.stderr.write(
    "usage: dual-era-server.mjs stdio\n"
      + "       dual-era-server.mjs http <port> [--host 127.0.0.1] [--legacy stateless|sessions|reject]\n",
  );
  process.exit(2);
};

const [mode, ...rest] = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = rest.indexOf(name);
  return i >= 0 && rest[i + 1] !== undefined ? rest[i + 1] : fallback;
};
if (mode === "stdio") {
  runStdio();
} else if (mode === "http") {
  const port = Number(rest[0] ?? "0");
  const legacyMode = flag("--legacy", "stateless");
  if (!Number.isInteger(port) || port < 0 || !["stateless", "sessions", "reject"].includes(legacyMode)) usage();
  await runHttp(port, flag("--host", "127.0.0.1"), legacyMode);
} else {
  usage();
}
