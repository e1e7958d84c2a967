// Run-loop steps and fibers started per warm Streamable HTTP connect (a process that has
// connected before): `NodeMcpClient.layer` built and connected to a 2026-07-28 server, against a
// fake undici global dispatcher that answers `server/discover` in memory (no sockets, so the
// counts do not depend on the machine). Counted by a supervisor with op supervision on, over the
// connects after a warm-up; prints one line per figure, and whether every connect counted alike.
//   node warmConnectCounts.mjs
import * as McpClient from "@mcp-effect/client/McpClient";
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp";
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as RuntimeFlags from "effect/RuntimeFlags";
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch";
import * as Scope from "effect/Scope";
import * as Supervisor from "effect/Supervisor";

const discover = {
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: { listChanged: true } },
  resultType: "complete",
  ttlMs: 3_600_000,
  cacheScope: "public",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "counts", version: "1.0.0" } },
};
const headers = (record) => Object.entries(record).flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)]);
const bodyText = async (body) => {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString();
  const parts = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString();
};
globalThis[Symbol.for("undici.globalDispatcher.1")] = {
  dispatch(options, handler) {
    let aborted = false;
    handler.onConnect?.((error) => {
      aborted = true;
      handler.onError?.(error ?? new Error("aborted"));
    });
    void bodyText(options.body ?? "").then((text) => {
      const message = JSON.parse(text);
      const reply = message.method === "server/discover"
        ? { jsonrpc: "2.0", id: message.id, result: discover }
        : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } };
      setImmediate(() => {
        if (aborted) return;
        handler.onHeaders(200, headers({ "content-type": "application/json" }), () => {}, "OK");
        handler.onData(Buffer.from(JSON.stringify(reply)));
        handler.onComplete([]);
      });
    });
    return true;
  },
  close: () => Promise.resolve(),
  destroy: () => Promise.resolve(),
  on() {
    return this;
  },
  once() {
    return this;
  },
  off() {
    return this;
  },
  emit() {},
};

class Counter extends Supervisor.AbstractSupervisor {
  steps = 0;
  fibers = 0;
  get value() {
    return Effect.void;
  }
  onStart() {
    this.fibers++;
  }
  onEffect() {
    this.steps++;
  }
}

const server = StreamableHttp.config({ name: "counts", url: "http://127.0.0.1:9/mcp" });
const clientInfo = { name: "counts", version: "1" };
const connect = async (counter) => {
  const scope = Effect.runSync(Scope.make());
  let build = Layer.buildWithScope(NodeMcpClient.layer({ servers: [server], clientInfo }), scope);
  if (counter !== undefined) {
    build = build.pipe(
      Effect.supervised(counter),
      Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)),
    );
  }
  const client = Context.get(await Effect.runPromise(build), McpClient.McpClient);
  if (client.servers[0].negotiated()?.protocolVersion !== "2026-07-28") throw new Error("not connected");
  await Effect.runPromise(Scope.close(scope, Exit.void));
};

for (let i = 0; i < 20; i++) await connect();
const counts = [];
for (let i = 0; i < 10; i++) {
  const counter = new Counter();
  await connect(counter);
  counts.push(counter);
}
const steps = counts.map((c) => c.steps);
const fibers = counts.map((c) => c.fibers);
console.log(`steps ${steps[0]}`);
console.log(`fibers ${fibers[0]}`);
console.log(`deterministic ${steps.every((s) => s === steps[0]) && fibers.every((f) => f === fibers[0])}`);
process.exit(0);
