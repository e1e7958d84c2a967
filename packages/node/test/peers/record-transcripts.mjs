#!/usr/bin/env node
/**
 * Records raw wire transcripts of dual-era-server.mjs (HTTP and stdio) and rewrites the generated part of
 * TRANSCRIPTS.md (everything after the `<!-- generated -->` marker).
 *
 *   node packages/node/test/peers/record-transcripts.mjs            # rewrite TRANSCRIPTS.md
 *   node packages/node/test/peers/record-transcripts.mjs --stdout   # print the generated markdown only
 *
 * Only loopback traffic; every wait is bounded.
 */
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { clearTimeout, setTimeout } from "node:timers";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, URL } from "node:url";
import { TextDecoder } from "node:util";

const { AbortController, fetch } = globalThis;

const here = path.dirname(fileURLToPath(import.meta.url));
const serverPath = path.join(here, "dual-era-server.mjs");
const transcriptsPath = path.join(here, "TRANSCRIPTS.md");
const MARKER = "<!-- generated -->";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const clientInfo = { name: "raw-recorder", version: "0.0.1" };
const meta = (caps = { elicitation: {} }, version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": clientInfo,
  "io.modelcontextprotocol/clientCapabilities": caps,
});

const TASKS = "io.modelcontextprotocol/tasks";
/** clientCapabilities of a request that can answer sampling input requests. */
const SAMPLING_CAPS = { sampling: {} };
/** clientCapabilities of a request declaring the tasks extension (and form elicitation for its input request). */
const TASK_CAPS = { elicitation: {}, extensions: { [TASKS]: {} } };
const MODEL_ANSWER = {
  role: "assistant",
  content: { type: "text", text: "forty-two" },
  model: "host-model",
  stopReason: "endTurn",
};

const out = [];
const md = (s = "") => out.push(s);
const block = (lang, s) => {
  md("```" + lang);
  md(s);
  md("```");
};

// ---------------------------------------------------------------------------------------------------------------
// HTTP

const RESPONSE_HEADERS = [
  "content-type",
  "mcp-session-id",
  "mcp-protocol-version",
  "allow",
  "www-authenticate",
  "x-accel-buffering",
  "cache-control",
];

const startHttp = async (extraArgs = []) => {
  const child = spawn(process.execPath, [serverPath, "http", "0", ...extraArgs], { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.on("data", () => {});
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error("server did not print `listening <port>` in 10 s")), 10000);
    rl.once("line", (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const port = Number(/^listening (\d+)$/.exec(line)?.[1]);
  return { url: `http://127.0.0.1:${port}/mcp`, base: `http://127.0.0.1:${port}`, stop: () => child.kill("SIGTERM") };
};

/** Modern request headers for `body` (method, name) unless overridden; `null` deletes a header. */
const modernHeaders = (body, overrides = {}) => {
  const h = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": body.method,
  };
  const name = body.params?.name ?? body.params?.uri;
  if (name !== undefined && ["tools/call", "prompts/get", "resources/read"].includes(body.method)) h["Mcp-Name"] = name;
  const taskId = body.params?.taskId;
  if (typeof taskId === "string" && ["tasks/get", "tasks/update", "tasks/cancel"].includes(body.method)) {
    h["Mcp-Name"] = taskId;
  }
  for (const [k, v] of Object.entries(overrides)) {
    for (const key of Object.keys(h)) if (key.toLowerCase() === k.toLowerCase()) delete h[key];
    if (v !== null) h[k] = v;
  }
  return h;
};
const legacyHeaders = (overrides = {}) => {
  const h = { "Content-Type": "application/json", "Accept": "application/json, text/event-stream" };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === null) delete h[k];
    else h[k] = v;
  }
  return h;
};

/** One HTTP exchange, recorded verbatim. Returns {status, headers, text, json}. */
const http = async (title, url, { method = "POST", headers = {}, body, note, readMs } = {}) => {
  const raw = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const controller = new AbortController();
  const res = await fetch(url, { method, headers, body: raw, signal: controller.signal });
  let text;
  if (readMs !== undefined) {
    // Streaming response: read for at most readMs, then abort (closing the stream = cancellation).
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    text = "";
    const deadline = Date.now() + readMs;
    while (Date.now() < deadline) {
      const r = await Promise.race([reader.read(), sleep(Math.max(1, deadline - Date.now())).then(() => "timeout")]);
      if (r === "timeout" || r.done) break;
      text += decoder.decode(r.value, { stream: true });
    }
    controller.abort();
  } else {
    text = await res.text();
  }
  md(`#### ${title}`);
  if (note !== undefined) md(note);
  const reqLines = [
    `${method} ${new URL(url).pathname} HTTP/1.1`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (raw !== undefined) reqLines.push("", raw);
  block("http", reqLines.join("\n"));
  const resLines = [`HTTP/1.1 ${res.status} ${res.statusText}`];
  for (const h of RESPONSE_HEADERS) if (res.headers.has(h)) resLines.push(`${h}: ${res.headers.get(h)}`);
  resLines.push("", text);
  block("http", resLines.join("\n"));
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
};

/** A modern POST: body + standard headers. */
const modern = (title, url, body, opts = {}) =>
  http(title, url, { ...opts, headers: modernHeaders(body, opts.headers), body });

let nextId = 1;
const req = (method, params) => ({ jsonrpc: "2.0", id: nextId++, method, params });

const recordHttp = async () => {
  const server = await startHttp();
  const { url, base } = server;
  try {
    md("## HTTP (`node dual-era-server.mjs http 0`, default `--legacy stateless`)");
    md();
    md("Request headers shown are exactly the ones the recorder sent (plus what `fetch` adds: Host, Connection,");
    md(
      "Content-Length, User-Agent, Accept-Encoding...). Response headers are filtered to: "
        + RESPONSE_HEADERS.map((h) => `\`${h}\``).join(", ") + " (only when present). Bodies are verbatim.",
    );
    md();
    md("### Modern era (2026-07-28)");
    md();
    await modern("server/discover", url, req("server/discover", { _meta: meta() }));
    await modern("tools/list (cache hints: ttlMs 60000, public)", url, req("tools/list", { _meta: meta() }));
    await modern("prompts/list (ttlMs 60000, private)", url, req("prompts/list", { _meta: meta() }));
    await modern("resources/list (ttlMs 30000, public)", url, req("resources/list", { _meta: meta() }));
    await modern(
      "resources/templates/list (ttlMs 60000, public)",
      url,
      req("resources/templates/list", { _meta: meta() }),
    );
    await modern(
      "resources/read memo://fresh (per-resource hint ttlMs 60000, public)",
      url,
      req("resources/read", { uri: "memo://fresh", _meta: meta() }),
    );
    await modern(
      "resources/read memo://stale (per-resource hint ttlMs 0, private)",
      url,
      req("resources/read", { uri: "memo://stale", _meta: meta() }),
    );
    await modern(
      "resources/read memo://notes/42 (template; falls back to the server-level resources/read hint 5000/private)",
      url,
      req("resources/read", { uri: "memo://notes/42", _meta: meta() }),
    );
    await modern(
      "prompts/get greet",
      url,
      req("prompts/get", { name: "greet", arguments: { name: "Ada" }, _meta: meta() }),
    );
    await modern(
      "tools/call echo",
      url,
      req("tools/call", { name: "echo", arguments: { message: "hello" }, _meta: meta() }),
    );
    await modern(
      "tools/call add (outputSchema + structuredContent)",
      url,
      req("tools/call", { name: "add", arguments: { a: 2, b: 3 }, _meta: meta() }),
    );
    await modern(
      "tools/call get_weather with Mcp-Param-Region",
      url,
      req("tools/call", { name: "get_weather", arguments: { region: "eu-west", units: "metric" }, _meta: meta() }),
      { headers: { "Mcp-Param-Region": "eu-west" } },
    );
    await modern(
      "tools/call get_weather, non-ASCII region sent Base64-sentinel-encoded",
      url,
      req("tools/call", { name: "get_weather", arguments: { region: "Zürich" }, _meta: meta() }),
      { headers: { "Mcp-Param-Region": `=?base64?${Buffer.from("Zürich", "utf8").toString("base64")}?=` } },
    );

    md("#### MRTR: confirm_delete, both rounds");
    const r1 = await modern(
      "confirm_delete round 1 → input_required",
      url,
      req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" }, _meta: meta() }),
    );
    const state = r1.json?.result?.requestState;
    await modern(
      "confirm_delete round 2 (new id, same params + inputResponses + echoed requestState) → complete",
      url,
      req("tools/call", {
        name: "confirm_delete",
        arguments: { path: "/tmp/demo.txt" },
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
        requestState: state,
        _meta: meta(),
      }),
    );
    await modern(
      "confirm_delete round 2 with action decline",
      url,
      req("tools/call", {
        name: "confirm_delete",
        arguments: { path: "/tmp/demo.txt" },
        inputResponses: { confirm: { action: "decline" } },
        requestState: state,
        _meta: meta(),
      }),
    );
    await modern(
      "confirm_delete retry with a tampered requestState",
      url,
      req("tools/call", {
        name: "confirm_delete",
        arguments: { path: "/tmp/demo.txt" },
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
        requestState: String(state).slice(0, -2) + "xx",
        _meta: meta(),
      }),
    );
    await modern(
      "confirm_delete retry with inputResponses but no requestState",
      url,
      req("tools/call", {
        name: "confirm_delete",
        arguments: { path: "/tmp/demo.txt" },
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
        _meta: meta(),
      }),
    );
    await modern(
      "confirm_delete when the request declares no elicitation capability (clientCapabilities {})",
      url,
      req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" }, _meta: meta({}) }),
    );
    const b1 = await modern(
      "busy_once round 1 → input_required with requestState only (load shedding)",
      url,
      req("tools/call", { name: "busy_once", arguments: { job: "j1" }, _meta: meta() }),
    );
    await modern(
      "busy_once round 2 (echoes requestState, no inputResponses)",
      url,
      req("tools/call", {
        name: "busy_once",
        arguments: { job: "j1" },
        requestState: b1.json?.result?.requestState,
        _meta: meta(),
      }),
    );

    md("#### MRTR with sampling: ask_model, both rounds");
    const a1 = await modern(
      "ask_model round 1 → input_required with a sampling/createMessage input request (clientCapabilities {sampling:{}})",
      url,
      req("tools/call", {
        name: "ask_model",
        arguments: { prompt: "What is six times seven?" },
        _meta: meta(SAMPLING_CAPS),
      }),
    );
    await modern(
      "ask_model round 2 (a CreateMessageResult under 'model' + echoed requestState) → complete with the model's text",
      url,
      req("tools/call", {
        name: "ask_model",
        arguments: { prompt: "What is six times seven?" },
        inputResponses: { model: MODEL_ANSWER },
        requestState: a1.json?.result?.requestState,
        _meta: meta(SAMPLING_CAPS),
      }),
    );
    await modern(
      "ask_model when the request declares no sampling capability (clientCapabilities {elicitation:{}})",
      url,
      req("tools/call", { name: "ask_model", arguments: { prompt: "hi" }, _meta: meta() }),
    );

    md("### Tasks extension (io.modelcontextprotocol/tasks)");
    md();
    md(
      "Every request below declares `clientCapabilities {elicitation:{}, extensions:{\"io.modelcontextprotocol/tasks\":{}}}`",
    );
    md("unless its title says otherwise. The task advances one step per `tasks/get` (no timers).");
    md();
    const created = await modern(
      "tools/call long_job → CreateTaskResult (resultType task, status working)",
      url,
      req("tools/call", { name: "long_job", arguments: { job: "nightly" }, _meta: meta(TASK_CAPS) }),
    );
    const taskId = created.json?.result?.taskId;
    const taskReq = (method, params = {}, caps = TASK_CAPS) => req(method, { taskId, ...params, _meta: meta(caps) });
    await modern(
      "tasks/get #1 → input_required, inputRequests {approve: elicitation/create}",
      url,
      taskReq("tasks/get"),
    );
    await modern("tasks/get again before answering → the same snapshot (same key)", url, taskReq("tasks/get"));
    await modern(
      "tasks/update with inputResponses {approve: accept} → empty ack",
      url,
      taskReq("tasks/update", { inputResponses: { approve: { action: "accept", content: { approve: true } } } }),
    );
    await modern(
      "tasks/get right after the update → still input_required (eventually consistent ack; stalePolls default 1)",
      url,
      taskReq("tasks/get"),
    );
    await modern("tasks/get → working", url, taskReq("tasks/get"));
    await modern("tasks/get → completed, the CallToolResult inline under result", url, taskReq("tasks/get"));
    await modern(
      "tasks/update for the already-answered key of a completed task → ack, ignored",
      url,
      taskReq("tasks/update", { inputResponses: { approve: { action: "decline" } } }),
    );
    await modern("tasks/get once more → still completed (terminal)", url, taskReq("tasks/get"));
    await modern(
      "tools/call long_job WITHOUT the extension declared → an ordinary result, no task",
      url,
      req("tools/call", { name: "long_job", arguments: { job: "quick" }, _meta: meta() }),
    );
    const doomed = await modern(
      "tools/call long_job (a task to cancel)",
      url,
      req("tools/call", { name: "long_job", arguments: { job: "doomed" }, _meta: meta(TASK_CAPS) }),
    );
    const doomedId = doomed.json?.result?.taskId;
    await modern(
      "tasks/cancel → empty ack",
      url,
      req("tasks/cancel", { taskId: doomedId, _meta: meta(TASK_CAPS) }),
    );
    await modern(
      "tasks/get after the cancel → cancelled",
      url,
      req("tasks/get", { taskId: doomedId, _meta: meta(TASK_CAPS) }),
    );
    {
      const failing = await modern(
        "tools/call long_job {fail: true, stalePolls: 0} (a task that fails)",
        url,
        req("tools/call", {
          name: "long_job",
          arguments: { job: "flaky", fail: true, stalePolls: 0 },
          _meta: meta(TASK_CAPS),
        }),
      );
      const id = failing.json?.result?.taskId;
      const t = (method, params = {}) => req(method, { taskId: id, ...params, _meta: meta(TASK_CAPS) });
      const quiet = async (body) => {
        await fetch(url, { method: "POST", headers: modernHeaders(body), body: JSON.stringify(body) });
      };
      await quiet(t("tasks/get"));
      await quiet(t("tasks/update", { inputResponses: { approve: { action: "accept", content: { approve: true } } } }));
      await quiet(t("tasks/get"));
      await modern(
        "tasks/get → failed with the JSON-RPC error inline (after get, update, get were sent unrecorded)",
        url,
        t("tasks/get"),
      );
    }
    await modern(
      "tasks/get for an unknown taskId → -32602",
      url,
      req("tasks/get", { taskId: "no-such-task", _meta: meta(TASK_CAPS) }),
    );
    await modern(
      "tasks/get from a request that does not declare the extension → -32021",
      url,
      taskReq("tasks/get", {}, { elicitation: {} }),
    );
    await modern(
      "tasks/get with Mcp-Name disagreeing with params.taskId",
      url,
      taskReq("tasks/get"),
      { headers: { "Mcp-Name": "some-other-task" } },
    );
    await modern(
      "tasks/update without inputResponses → -32602",
      url,
      taskReq("tasks/update"),
    );

    md("### Modern era: errors");
    md();
    await modern(
      "unknown tool",
      url,
      req("tools/call", { name: "no_such_tool", arguments: {}, _meta: meta() }),
    );
    await modern(
      "tool arguments failing inputSchema (add with a string)",
      url,
      req("tools/call", { name: "add", arguments: { a: "x", b: 1 }, _meta: meta() }),
    );
    await modern(
      "unknown resource",
      url,
      req("resources/read", { uri: "memo://nope", _meta: meta() }),
    );
    await modern("unknown prompt", url, req("prompts/get", { name: "nope", _meta: meta() }));
    await modern("unknown method", url, req("foo/bar", { _meta: meta() }));
    await modern(
      "missing Mcp-Method header",
      url,
      req("tools/list", { _meta: meta() }),
      { headers: { "Mcp-Method": null } },
    );
    await modern(
      "Mcp-Method header disagreeing with the body",
      url,
      req("tools/list", { _meta: meta() }),
      { headers: { "Mcp-Method": "prompts/list" } },
    );
    await modern(
      "missing Mcp-Name on tools/call",
      url,
      req("tools/call", { name: "echo", arguments: { message: "x" }, _meta: meta() }),
      { headers: { "Mcp-Name": null } },
    );
    await modern(
      "Mcp-Name disagreeing with params.name",
      url,
      req("tools/call", { name: "echo", arguments: { message: "x" }, _meta: meta() }),
      { headers: { "Mcp-Name": "add" } },
    );
    await modern(
      "Mcp-Param-Region disagreeing with arguments.region",
      url,
      req("tools/call", { name: "get_weather", arguments: { region: "eu-west" }, _meta: meta() }),
      { headers: { "Mcp-Param-Region": "us-east" } },
    );
    await modern(
      "Mcp-Param-Region missing",
      url,
      req("tools/call", { name: "get_weather", arguments: { region: "eu-west" }, _meta: meta() }),
    );
    await modern(
      "unsupported protocol version (header and _meta both 2099-01-01)",
      url,
      req("tools/list", { _meta: meta(undefined, "2099-01-01") }),
      { headers: { "MCP-Protocol-Version": "2099-01-01" } },
    );
    await modern(
      "server/discover with an unsupported version (the probe a client sends first)",
      url,
      req("server/discover", { _meta: meta(undefined, "2099-01-01") }),
      { headers: { "MCP-Protocol-Version": "2099-01-01" } },
    );
    await modern(
      "MCP-Protocol-Version header disagreeing with _meta protocolVersion",
      url,
      req("tools/list", { _meta: meta() }),
      { headers: { "MCP-Protocol-Version": LEGACY } },
    );
    await modern(
      "MCP-Protocol-Version: 2026-07-28 but no _meta at all",
      url,
      req("tools/list", {}),
    );
    await modern(
      "_meta without clientCapabilities",
      url,
      req("tools/list", {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": clientInfo,
        },
      }),
    );
    await modern(
      "missing MCP-Protocol-Version header (body has the modern _meta)",
      url,
      req("tools/list", { _meta: meta() }),
      { headers: { "MCP-Protocol-Version": null } },
    );
    await modern(
      "Accept: application/json only",
      url,
      req("tools/list", { _meta: meta() }),
      { headers: { "Accept": "application/json" } },
    );
    await modern(
      "Content-Type: text/plain",
      url,
      req("tools/list", { _meta: meta() }),
      { headers: { "Content-Type": "text/plain" } },
    );
    await modern(
      "modern request carrying a stray Mcp-Session-Id header",
      url,
      req("tools/call", { name: "echo", arguments: { message: "x" }, _meta: meta() }),
      { headers: { "Mcp-Session-Id": "not-a-session" } },
    );
    {
      const a = req("tools/list", { _meta: meta() });
      const b = req("prompts/list", { _meta: meta() });
      await http("JSON-RPC batch of two modern requests", url, {
        headers: modernHeaders(a),
        body: [a, b],
      });
    }
    await http("modern notification POST (notifications/cancelled)", url, {
      headers: modernHeaders({ method: "notifications/cancelled" }),
      body: {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 999, _meta: meta() },
      },
    });
    await http("GET /mcp (no session concept on this endpoint)", url, {
      method: "GET",
      headers: { "Accept": "text/event-stream", "MCP-Protocol-Version": MODERN },
    });
    await http("DELETE /mcp", url, { method: "DELETE", headers: { "MCP-Protocol-Version": MODERN } });

    md("### subscriptions/listen (HTTP SSE)");
    md();
    md("The recorder opens the listen stream, then (after 300 ms, in parallel) calls `trigger_change` three times");
    md("(kind `tools`; `resource_updated` for memo://fresh, which it did NOT subscribe to; `resource_updated` for");
    md("memo://stale, which it did), reads the stream for 1.5 s and closes it (closing = cancellation). The server");
    md("sends no final listen result when the client closes. SSE keep-alives (`:` comments) would appear after 15 s.");
    const listenBody = req("subscriptions/listen", {
      notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["memo://stale"] },
      _meta: meta(),
    });
    const listenPromise = http("subscriptions/listen stream", url, {
      headers: modernHeaders(listenBody),
      body: listenBody,
      readMs: 1500,
    });
    await sleep(300);
    const triggerOut = [];
    const t1 = req("tools/call", { name: "trigger_change", arguments: { kind: "tools" }, _meta: meta() });
    const t2 = req("tools/call", {
      name: "trigger_change",
      arguments: { kind: "resource_updated", uri: "memo://fresh" },
      _meta: meta(),
    });
    const t3 = req("tools/call", {
      name: "trigger_change",
      arguments: { kind: "resource_updated", uri: "memo://stale" },
      _meta: meta(),
    });
    for (const t of [t1, t2, t3]) {
      const r = await fetch(url, { method: "POST", headers: modernHeaders(t), body: JSON.stringify(t) });
      triggerOut.push(`→ ${JSON.stringify(t)}\n← ${r.status} ${await r.text()}`);
    }
    await listenPromise;
    md("Trigger calls made while the stream was open (separate POSTs):");
    block("text", triggerOut.join("\n"));
    await modern(
      "tools/list after trigger_change kind=tools (bonus tool now listed)",
      url,
      req("tools/list", { _meta: meta() }),
    );
    // Toggle back so later sections see the initial list.
    const back = req("tools/call", { name: "trigger_change", arguments: { kind: "tools" }, _meta: meta() });
    await fetch(url, { method: "POST", headers: modernHeaders(back), body: JSON.stringify(back) });

    md("### Legacy era (2025-11-25) on the same endpoint (stateless fallback)");
    md();
    const init = await http("initialize (no MCP-Protocol-Version header, no _meta)", url, {
      headers: legacyHeaders(),
      body: req("initialize", {
        protocolVersion: LEGACY,
        capabilities: { elicitation: {} },
        clientInfo,
      }),
    });
    const sid = init.headers.get("mcp-session-id");
    const lh = legacyHeaders({ "MCP-Protocol-Version": LEGACY, ...(sid ? { "Mcp-Session-Id": sid } : {}) });
    await http("notifications/initialized", url, {
      headers: lh,
      body: { jsonrpc: "2.0", method: "notifications/initialized" },
    });
    await http("tools/list (legacy)", url, { headers: lh, body: req("tools/list", {}) });
    await http("tools/call add (legacy)", url, {
      headers: lh,
      body: req("tools/call", { name: "add", arguments: { a: 2, b: 3 } }),
    });
    await http("tools/call get_weather (legacy; Mcp-Param-Region sent anyway)", url, {
      headers: { ...lh, "Mcp-Param-Region": "eu-west" },
      body: req("tools/call", { name: "get_weather", arguments: { region: "eu-west" } }),
    });
    await http("tools/call confirm_delete (legacy, stateless HTTP)", url, {
      headers: lh,
      body: req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" } }),
    });
    await http("resources/read memo://fresh (legacy: no cache hints)", url, {
      headers: lh,
      body: req("resources/read", { uri: "memo://fresh" }),
    });
    await http("tools/call long_job (legacy: no tasks, an ordinary result)", url, {
      headers: lh,
      body: req("tools/call", { name: "long_job", arguments: { job: "legacy" } }),
    });
    await http("tasks/get (legacy: the peer serves the tasks methods on 2026-07-28 only)", url, {
      headers: lh,
      body: req("tasks/get", { taskId: "anything" }),
    });
    await http("tools/call unknown tool (legacy)", url, {
      headers: lh,
      body: req("tools/call", { name: "no_such_tool", arguments: {} }),
    });
    await http("server/discover WITHOUT _meta (a claim-less body is routed to the legacy leg)", url, {
      headers: legacyHeaders({ "MCP-Protocol-Version": LEGACY }),
      body: req("server/discover", {}),
    });
    await http("initialize asking for 2026-07-28", url, {
      headers: legacyHeaders(),
      body: req("initialize", { protocolVersion: MODERN, capabilities: {}, clientInfo }),
    });
    await http("stats over plain HTTP: GET /stats", `${base}/stats`, { method: "GET" });
  } finally {
    server.stop();
  }
};

/**
 * 2025-era confirm_delete on a sessionful HTTP connection: the legacy shim sends `elicitation/create` on the
 * tools/call POST's SSE stream; the recorder answers it with a separate POST and keeps reading.
 */
const legacyElicitOverSse = async (url, headers) => {
  const call = req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" } });
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(call) });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const lines = [`→ POST ${JSON.stringify(call)}`, `← ${res.status} ${res.headers.get("content-type")} (SSE stream)`];
  let buffer = "";
  const deadline = Date.now() + 5000;
  let done = false;
  while (!done && Date.now() < deadline) {
    const r = await Promise.race([reader.read(), sleep(Math.max(1, deadline - Date.now())).then(() => "timeout")]);
    if (r === "timeout" || r.done) break;
    buffer += decoder.decode(r.value, { stream: true });
    let i;
    while ((i = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      lines.push(...event.split("\n").map((l) => `←   ${l}`));
      const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("");
      if (data === "") continue;
      const msg = JSON.parse(data);
      if (msg.method === "elicitation/create") {
        const answer = { jsonrpc: "2.0", id: msg.id, result: { action: "accept", content: { confirm: true } } };
        const r2 = await fetch(url, { method: "POST", headers, body: JSON.stringify(answer) });
        lines.push(`→ POST ${JSON.stringify(answer)}`, `← ${r2.status} ${await r2.text()}`);
      }
      if (msg.id === call.id && ("result" in msg || "error" in msg)) done = true;
    }
  }
  await reader.cancel().catch(() => {});
  md("#### confirm_delete in a 2025 session: elicitation/create travels on the POST's SSE stream");
  md("Same session headers as above on every POST. `→` recorder, `←` server (SSE lines indented).");
  block("text", lines.join("\n"));
};

const recordHttpModes = async () => {
  md("### `--legacy reject` (modern-only endpoint)");
  md();
  let server = await startHttp(["--legacy", "reject"]);
  try {
    await http("initialize on a modern-only endpoint", server.url, {
      headers: legacyHeaders(),
      body: req("initialize", { protocolVersion: LEGACY, capabilities: {}, clientInfo }),
    });
  } finally {
    server.stop();
  }
  md("### `--legacy sessions` (2025 traffic on a sessionful transport, modern traffic unchanged)");
  md();
  server = await startHttp(["--legacy", "sessions"]);
  try {
    const init = await http("initialize", server.url, {
      headers: legacyHeaders(),
      body: req("initialize", { protocolVersion: LEGACY, capabilities: { elicitation: {} }, clientInfo }),
    });
    const sid = init.headers.get("mcp-session-id");
    const lh = legacyHeaders({ "MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": sid });
    await http("notifications/initialized", server.url, {
      headers: lh,
      body: { jsonrpc: "2.0", method: "notifications/initialized" },
    });
    await http("tools/list without Mcp-Session-Id", server.url, {
      headers: legacyHeaders({ "MCP-Protocol-Version": LEGACY }),
      body: req("tools/list", {}),
    });
    await http("tools/call echo in the session", server.url, {
      headers: lh,
      body: req("tools/call", { name: "echo", arguments: { message: "hi" } }),
    });
    await legacyElicitOverSse(server.url, lh);
    await modern("modern server/discover on the same endpoint", server.url, req("server/discover", { _meta: meta() }));
    await http("DELETE the session", server.url, { method: "DELETE", headers: lh });
  } finally {
    server.stop();
  }
};

// ---------------------------------------------------------------------------------------------------------------
// stdio

const startStdio = () => {
  const child = spawn(process.execPath, [serverPath, "stdio"], { stdio: ["pipe", "pipe", "pipe"] });
  const lines = [];
  const waiters = [];
  createInterface({ input: child.stdout }).on("line", (l) => {
    lines.push(l);
    for (const w of [...waiters]) w();
  });
  child.stderr.on("data", () => {});
  const transcript = [];
  let cursor = 0;
  const drain = () => {
    while (cursor < lines.length) transcript.push(`← ${lines[cursor++]}`);
  };
  const waitFor = (pred, ms) =>
    new Promise((resolve) => {
      const check = () => {
        const hit = lines.slice(cursor).find((l) => {
          try {
            return pred(JSON.parse(l));
          } catch {
            return false;
          }
        });
        if (hit !== undefined) {
          waiters.splice(waiters.indexOf(check), 1);
          clearTimeout(timer);
          resolve(JSON.parse(hit));
        }
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(check), 1);
        resolve(undefined);
      }, ms);
      waiters.push(check);
      check();
    });
  const send = (msg) => {
    const line = typeof msg === "string" ? msg : JSON.stringify(msg);
    transcript.push(`→ ${line}`);
    child.stdin.write(line + "\n");
  };
  /** Send a request and wait (≤ ms) for its response; everything the server wrote meanwhile is recorded. */
  const call = async (msg, ms = 3000) => {
    send(msg);
    const res = await waitFor((m) => m.id === msg.id && ("result" in m || "error" in m), ms);
    drain();
    if (res === undefined) transcript.push(`(no response to id ${JSON.stringify(msg.id)} within ${ms} ms)`);
    return res;
  };
  const flush = async (ms = 300) => {
    await sleep(ms);
    drain();
  };
  return {
    send,
    call,
    waitFor: async (pred, ms) => {
      const r = await waitFor(pred, ms);
      drain();
      return r;
    },
    flush,
    dump: (title, note) => {
      md(`#### ${title}`);
      if (note !== undefined) md(note);
      block("jsonl", transcript.splice(0).join("\n"));
    },
    stop: async () => {
      child.stdin.end();
      await Promise.race([new Promise((r) => child.once("exit", r)), sleep(2000)]);
      child.kill("SIGTERM");
    },
  };
};

const recordStdio = async () => {
  md("## stdio (`node dual-era-server.mjs stdio`)");
  md();
  md("`→` client to server, `←` server to client; every line is one newline-delimited JSON-RPC message, verbatim.");
  md("Each block is a fresh server process unless it says otherwise.");
  md();
  md("### Modern opening");
  md();
  let s = startStdio();
  await s.call(req("server/discover", { _meta: meta() }));
  s.dump("server/discover");
  await s.call(req("tools/list", { _meta: meta() }));
  s.dump("tools/list (same process)");
  await s.call(req("tools/call", { name: "echo", arguments: { message: "hello" }, _meta: meta() }));
  await s.call(req("tools/call", { name: "add", arguments: { a: 2, b: 3 }, _meta: meta() }));
  await s.call(req("tools/call", { name: "get_weather", arguments: { region: "eu-west" }, _meta: meta() }));
  s.dump("tools/call echo, add, get_weather (stdio has no headers, so the handler sees none)");
  const r1 = await s.call(
    req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" }, _meta: meta() }),
  );
  await s.call(req("tools/call", {
    name: "confirm_delete",
    arguments: { path: "/tmp/demo.txt" },
    inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    requestState: r1?.result?.requestState,
    _meta: meta(),
  }));
  s.dump("confirm_delete, both rounds");
  const m1 = await s.call(req("tools/call", {
    name: "ask_model",
    arguments: { prompt: "What is six times seven?" },
    _meta: meta(SAMPLING_CAPS),
  }));
  await s.call(req("tools/call", {
    name: "ask_model",
    arguments: { prompt: "What is six times seven?" },
    inputResponses: { model: MODEL_ANSWER },
    requestState: m1?.result?.requestState,
    _meta: meta(SAMPLING_CAPS),
  }));
  s.dump("ask_model, both rounds (sampling/createMessage as an input request)");
  {
    const created = await s.call(
      req("tools/call", { name: "long_job", arguments: { job: "stdio" }, _meta: meta(TASK_CAPS) }),
    );
    const taskId = created?.result?.taskId;
    const t = (method, params = {}) => req(method, { taskId, ...params, _meta: meta(TASK_CAPS) });
    await s.call(t("tasks/get"));
    await s.call(t("tasks/update", { inputResponses: { approve: { action: "accept", content: { approve: true } } } }));
    await s.call(t("tasks/get"));
    await s.call(t("tasks/get"));
    await s.call(t("tasks/get"));
    s.dump("long_job as a task: create, get (input_required), update, get (stale), get (working), get (completed)");
    await s.call(req("tasks/get", { taskId: "no-such-task", _meta: meta(TASK_CAPS) }));
    await s.call(req("tasks/cancel", { taskId, _meta: meta() }));
    s.dump("tasks/get for an unknown taskId; tasks/cancel from a request without the extension");
  }
  await s.call(req("tools/call", { name: "no_such_tool", arguments: {}, _meta: meta() }));
  s.dump("unknown tool");
  await s.call(req("tools/list", { _meta: meta(undefined, "2099-01-01") }));
  s.dump("unsupported protocol version AFTER a modern opening (same process)");
  await s.call(req("tools/list", {
    _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": clientInfo },
  }));
  s.dump("_meta without clientCapabilities");
  await s.call(req("tools/list", {}));
  s.dump("a request without any _meta after a modern opening");
  await s.call(req("foo/bar", { _meta: meta() }));
  s.dump("unknown method");
  await s.call(req("initialize", { protocolVersion: LEGACY, capabilities: {}, clientInfo }));
  s.dump("initialize after a modern opening (same process)");
  await s.call(req("tools/call", { name: "stats", arguments: {}, _meta: meta() }));
  s.dump("stats tool (counts every inbound message of this process, by method)");

  md("#### subscriptions/listen on stdio");
  md("Listen, trigger `tools` and `resource_updated` (memo://stale subscribed, memo://fresh not), then cancel.");
  const listen = req("subscriptions/listen", {
    notifications: { toolsListChanged: true, resourceSubscriptions: ["memo://stale"] },
    _meta: meta(),
  });
  s.send(listen);
  await s.waitFor((m) => m.method === "notifications/subscriptions/acknowledged", 2000);
  await s.call(req("tools/call", { name: "trigger_change", arguments: { kind: "tools" }, _meta: meta() }));
  await s.call(req("tools/call", {
    name: "trigger_change",
    arguments: { kind: "resource_updated", uri: "memo://fresh" },
    _meta: meta(),
  }));
  await s.call(req("tools/call", {
    name: "trigger_change",
    arguments: { kind: "resource_updated", uri: "memo://stale" },
    _meta: meta(),
  }));
  await s.call(req("tools/list", { _meta: meta() }));
  s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: listen.id, reason: "done" } });
  await s.flush(500);
  s.dump("listen / trigger / cancel");
  await s.stop();

  md("### Legacy opening (initialize)");
  md();
  s = startStdio();
  await s.call(req("initialize", { protocolVersion: LEGACY, capabilities: { elicitation: {} }, clientInfo }));
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await s.flush(200);
  s.dump("initialize + notifications/initialized");
  await s.call(req("tools/list", {}));
  s.dump("tools/list (legacy: no resultType, no cache hints)");
  await s.call(req("tools/call", { name: "get_weather", arguments: { region: "eu-west" } }));
  s.dump("get_weather (legacy)");
  const confirm = req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" } });
  s.send(confirm);
  const elicit = await s.waitFor((m) => m.method === "elicitation/create", 3000);
  if (elicit !== undefined) {
    s.send({ jsonrpc: "2.0", id: elicit.id, result: { action: "accept", content: { confirm: true } } });
  }
  await s.waitFor((m) => m.id === confirm.id, 3000);
  s.dump(
    "confirm_delete (legacy): the SDK's legacy shim sends a real elicitation/create and re-enters the handler",
    "The recorder answers the server's request with `{action:\"accept\",content:{confirm:true}}`.",
  );
  await s.call(req("tools/call", { name: "no_such_tool", arguments: {} }));
  s.dump("unknown tool (legacy)");
  await s.call(req("tools/call", { name: "long_job", arguments: { job: "legacy" } }));
  await s.call(req("tasks/get", { taskId: "anything" }));
  s.dump("long_job and tasks/get (legacy: no tasks)");
  await s.call(req("tools/call", { name: "trigger_change", arguments: { kind: "tools" } }));
  await s.flush(200);
  s.dump("trigger_change kind=tools on a legacy connection (plain 2025 list_changed notification)");
  await s.call(req("server/discover", { _meta: meta() }));
  s.dump("server/discover after a legacy opening (same process)");
  await s.call(req("tools/list", { _meta: meta() }));
  s.dump("a modern-enveloped tools/list after a legacy opening (same process)");
  await s.stop();

  md("### Legacy opening declaring sampling: ask_model through the legacy shim");
  md();
  s = startStdio();
  await s.call(req("initialize", { protocolVersion: LEGACY, capabilities: { sampling: {} }, clientInfo }));
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await s.flush(200);
  const ask = req("tools/call", { name: "ask_model", arguments: { prompt: "What is six times seven?" } });
  s.send(ask);
  const sampling = await s.waitFor((m) => m.method === "sampling/createMessage", 3000);
  if (sampling !== undefined) s.send({ jsonrpc: "2.0", id: sampling.id, result: MODEL_ANSWER });
  await s.waitFor((m) => m.id === ask.id, 3000);
  s.dump(
    "initialize {sampling:{}}, then ask_model: a real sampling/createMessage, the handler re-entered with the answer",
    "The recorder answers the server's request with a CreateMessageResult (`forty-two`, model `host-model`).",
  );
  await s.stop();

  md("### server/discover, then initialize (the dual-era fallback path)");
  md();
  s = startStdio();
  await s.call(req("server/discover", { _meta: meta() }));
  await s.call(req("initialize", { protocolVersion: LEGACY, capabilities: { elicitation: {} }, clientInfo }));
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await s.flush(200);
  await s.call(req("tools/call", { name: "echo", arguments: { message: "legacy now" } }));
  s.dump("discover → initialize → tools/call (one process)");
  await s.stop();

  md("### Openings that are not initialize/discover");
  md();
  s = startStdio();
  await s.call(req("tools/list", { _meta: meta(undefined, "2099-01-01") }));
  s.dump("first message carries an unsupported modern version");
  await s.call(req("server/discover", { _meta: meta() }));
  s.dump("…then server/discover in the same process");
  await s.stop();
  s = startStdio();
  await s.call(req("tools/call", { name: "echo", arguments: { message: "first" }, _meta: meta() }));
  s.dump("first message is a modern tools/call (no discover before it)");
  await s.stop();
  s = startStdio();
  await s.call(req("tools/list", {}));
  s.dump("first message is a claim-less tools/list (no initialize before it)");
  await s.stop();
  s = startStdio();
  await s.call(req("initialize", { protocolVersion: MODERN, capabilities: {}, clientInfo }));
  s.dump("initialize asking for protocolVersion 2026-07-28");
  await s.stop();
  s = startStdio();
  await s.call(req("server/discover", {}));
  s.dump("server/discover without _meta as the first message");
  await s.stop();
  s = startStdio();
  await s.call(req("initialize", { protocolVersion: LEGACY, capabilities: {}, clientInfo }));
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await s.flush(200);
  const c2 = req("tools/call", { name: "confirm_delete", arguments: { path: "/tmp/demo.txt" } });
  await s.call(c2);
  s.dump("confirm_delete on a legacy connection whose initialize declared no elicitation capability");
  await s.stop();
};

// ---------------------------------------------------------------------------------------------------------------

const main = async () => {
  md(MARKER);
  md();
  md(
    `_Recorded by \`record-transcripts.mjs\` with Node ${process.version}, `
      + `@modelcontextprotocol/server ${pkgVersion("server")}, @modelcontextprotocol/node ${pkgVersion("node")}. `
      + "`requestState` values and timestamps differ per run._",
  );
  md();
  await recordHttp();
  await recordHttpModes();
  await recordStdio();
  const generated = out.join("\n") + "\n";
  if (process.argv.includes("--stdout")) {
    process.stdout.write(generated);
    return;
  }
  let head = "";
  try {
    const current = readFileSync(transcriptsPath, "utf8");
    // The marker counts only on a line of its own (the prose above it may mention it).
    const i = current.search(/^<!-- generated -->$/m);
    head = i >= 0 ? current.slice(0, i) : current + "\n";
  } catch {
    head = "# Transcripts of dual-era-server.mjs\n\n";
  }
  writeFileSync(transcriptsPath, head + generated);
  process.stderr.write(`wrote ${transcriptsPath}\n`);
};

function pkgVersion(name) {
  try {
    const p = path.resolve(here, "../../../../node_modules/@modelcontextprotocol", name, "package.json");
    return JSON.parse(readFileSync(p, "utf8")).version;
  } catch {
    return "?";
  }
}

await main();
