import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Telemetry from "@mcp-effect/client/Telemetry"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"

// A shut-down exporter drops spans: one per test, with its own SDK layer.
let exporter = new InMemorySpanExporter()
const Otel = Layer.suspend(() => {
  exporter = new InMemorySpanExporter()
  return NodeSdk.layer(() => ({
    resource: { serviceName: "tracing-test" },
    spanProcessor: new SimpleSpanProcessor(exporter)
  }))
})

const options: ServerConnection.Options = {
  clientInfo: { name: "test-client", version: "1.0.0" },
  onNotification: () => {}
}

const connect = (
  config: { readonly propagateTraceContext?: boolean } = {},
  connectionOptions: Partial<ServerConnection.Options> = {}
) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(Scenarios.demo)
    const connection = yield* ServerConnection.make(
      { ...server.config({ name: "demo" }), ...config },
      { ...options, ...connectionOptions }
    )
    return { server, connection }
  })

const spanNamed = (name: string): ReadableSpan => {
  const found = exporter.getFinishedSpans().filter((s) => s.name === name)
  assert.strictEqual(found.length, 1, `one span ${name}; got ${exporter.getFinishedSpans().map((s) => s.name)}`)
  return found[0]!
}

const metaOf = (received: ReadonlyArray<FakeServer.Received>) =>
  received.map((r) => r.params?._meta as Record<string, unknown> | undefined)

describe("Tracing", () => {
  it.scoped("a tool call is a client span under the caller's span, its traceparent in _meta", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      yield* connection.callTool("echo", { message: "hi" }).pipe(Effect.withSpan("host work"))
      const user = spanNamed("host work")
      const call = spanNamed("tools/call echo")
      assert.strictEqual(call.kind, 2 /* CLIENT */)
      assert.strictEqual(call.parentSpanContext?.spanId, user.spanContext().spanId)
      assert.strictEqual(call.spanContext().traceId, user.spanContext().traceId)
      const calls = yield* server.requests("tools/call")
      assert.deepStrictEqual(metaOf(calls), [{
        traceparent: `00-${call.spanContext().traceId}-${call.spanContext().spanId}-01`
      }])
      assert.deepInclude(call.attributes, {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-11-25",
        "jsonrpc.request.id": String(calls[0]!.id),
        "mcp_effect.server.name": "demo"
      })
      assert.notProperty(call.attributes, "error.type")
    }).pipe(Effect.provide(Otel)))

  it.scoped("an isError result is error.type tool_error; a JSON-RPC error its tag and code", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect()
      yield* connection.callTool("fail")
      assert.strictEqual(spanNamed("tools/call fail").attributes["error.type"], "tool_error")
      yield* Effect.flip(connection.getPrompt("no-such-prompt"))
      const failed = spanNamed("prompts/get no-such-prompt")
      assert.strictEqual(failed.attributes["gen_ai.prompt.name"], "no-such-prompt")
      assert.strictEqual(failed.attributes["error.type"], "ServerError")
      assert.isString(failed.attributes["rpc.response.status_code"])
    }).pipe(Effect.provide(Otel)))

  it.scoped("a resource URI is an attribute, never in the span name", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect()
      yield* connection.readResource("demo://readme")
      assert.strictEqual(spanNamed("resources/read").attributes["mcp.resource.uri"], "demo://readme")
    }).pipe(Effect.provide(Otel)))

  it.scoped("opening the connection is a span with the opening exchange's requests under it", () =>
    Effect.gen(function*() {
      yield* connect()
      const opening = spanNamed("connect demo")
      const initialize = spanNamed("initialize")
      assert.strictEqual(initialize.parentSpanContext?.spanId, opening.spanContext().spanId)
      assert.strictEqual(opening.attributes["mcp.protocol.version"], "2025-11-25")
    }).pipe(Effect.provide(Otel)))

  it.scoped("on legacy Streamable HTTP: mcp.session.id, server.address / server.port, network.transport tcp", () =>
    Effect.gen(function*() {
      const http = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "web", url: http.mcpUrl }),
        options
      )
      yield* connection.callTool("echo", { message: "hi" })
      const url = new URL(http.mcpUrl)
      const attributes = spanNamed("tools/call echo").attributes
      assert.isString(attributes["mcp.session.id"])
      assert.deepInclude(attributes, {
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "server.address": url.hostname,
        "server.port": Number(url.port)
      })
    }).pipe(Effect.provide(Layer.merge(Otel, FetchHttpClient.layer))))

  it.scoped("with propagation off for the server, no traceparent is sent (spans are still made)", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ propagateTraceContext: false })
      yield* connection.callTool("echo", { message: "hi" })
      spanNamed("tools/call echo")
      assert.deepStrictEqual(metaOf(yield* server.requests("tools/call")), [undefined])
      assert.deepStrictEqual(metaOf(yield* server.requests("initialize")), [undefined])
    }).pipe(Effect.provide(Otel)))

  it.scoped("with propagation off for the client, no traceparent is sent", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({}, { propagateTraceContext: false })
      yield* connection.callTool("echo", { message: "hi" })
      assert.deepStrictEqual(metaOf(yield* server.requests("tools/call")), [undefined])
    }).pipe(Effect.provide(Otel)))

  it.scoped("without a tracer installed nothing is traced, even under a span", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect()
      yield* connection.callTool("echo", { message: "hi" }).pipe(Effect.withSpan("host work"))
      assert.deepStrictEqual(metaOf(yield* server.requests("tools/call")), [undefined])
      assert.deepStrictEqual(exporter.getFinishedSpans(), [])
    }))

  it.scoped("a session's duration goes to mcp.client.session.duration, with error.type when it died", () =>
    Effect.gen(function*() {
      const died = Telemetry.sessionDuration.pipe(Metric.taggedWithLabels([
        MetricLabel.make("error.type", "ConnectionError"),
        MetricLabel.make("mcp.protocol.version", "2025-11-25")
      ]))
      const before = (yield* Metric.value(died)).count
      const { connection, server } = yield* connect()
      yield* server.crash
      yield* connection.listTools()
      assert.strictEqual((yield* Metric.value(died)).count - before, 1)
    }).pipe(Effect.provide(Otel)))

  it.scoped("each request's duration goes to mcp.client.operation.duration, tagged", () =>
    Effect.gen(function*() {
      // The tags sorted by key, as the client writes them.
      const tagged = Telemetry.operationDuration.pipe(Metric.taggedWithLabels([
        MetricLabel.make("gen_ai.operation.name", "execute_tool"),
        MetricLabel.make("gen_ai.tool.name", "echo"),
        MetricLabel.make("mcp.method.name", "tools/call"),
        MetricLabel.make("mcp.protocol.version", "2025-11-25")
      ]))
      const before = (yield* Metric.value(tagged)).count
      const { connection } = yield* connect()
      yield* connection.callTool("echo", { message: "a" })
      yield* connection.callTool("echo", { message: "b" })
      assert.strictEqual((yield* Metric.value(tagged)).count - before, 2)
    }).pipe(Effect.provide(Otel)))
})
