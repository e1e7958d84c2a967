/**
 * Tracing with OpenTelemetry: install a tracer (here `@effect/opentelemetry`'s `NodeSdk` with
 * the console exporter) and every request becomes a client span after the semantic conventions
 * for MCP, its `traceparent` in the request's `params._meta`. Runs against an in-memory fake
 * server: no process, no network.
 *
 * @since 0.1.0
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Telemetry from "@mcp-effect/client/Telemetry"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import { ConsoleSpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"

const program = Effect.gen(function*() {
  const trusted = yield* FakeServer.make(Scenarios.demo)
  const untrusted = yield* FakeServer.make(Scenarios.demo)
  const client = yield* McpClient.make({
    servers: [
      trusted.config({ name: "trusted" }),
      // Spans still, but no trace ids sent to this one.
      { ...untrusted.config({ name: "untrusted" }), propagateTraceContext: false }
    ]
  })
  // The host's own span: the request spans become its children.
  yield* Effect.gen(function*() {
    yield* client.callTool("echo", { message: "traced" }, { server: "trusted" })
    yield* client.callTool("fail", {}, { server: "trusted" })
    yield* client.callTool("echo", { message: "not propagated" }, { server: "untrusted" })
  }).pipe(Effect.withSpan("answer the user"))

  const [call] = yield* trusted.requests("tools/call")
  yield* Console.log(`trusted server saw _meta: ${JSON.stringify(call?.params?._meta)}`)
  const [other] = yield* untrusted.requests("tools/call")
  yield* Console.log(`untrusted server saw _meta: ${JSON.stringify(other?.params?._meta)}`)
  // The durations are Effect metrics (exported by `@effect/opentelemetry`'s metrics layer, if installed).
  const calls = yield* Metric.value(Telemetry.operationDuration.pipe(Metric.taggedWithLabels([
    MetricLabel.make("gen_ai.operation.name", "execute_tool"),
    MetricLabel.make("gen_ai.tool.name", "echo"),
    MetricLabel.make("mcp.method.name", "tools/call"),
    MetricLabel.make("mcp.protocol.version", "2025-11-25")
  ])))
  yield* Console.log(`mcp.client.operation.duration of the echo calls: count ${calls.count}`)
})

const Tracing = NodeSdk.layer(() => ({
  resource: { serviceName: "tracing-example" },
  spanProcessor: new SimpleSpanProcessor(new ConsoleSpanExporter())
}))

// The tracer must be installed where the client is made: the client decides once, per
// connection, whether it traces.
program.pipe(Effect.scoped, Effect.provide(Tracing), Effect.runPromise).catch((error) => {
  console.error(error)
  process.exit(1)
})
