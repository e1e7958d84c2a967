/**
 * A legacy HTTP+SSE server that floods the client with 10,000 requests over its stream (issue
 * #32, point 1), and one over a Streamable HTTP GET stream: every request gets its answer (a
 * result or a refusal) through a bounded number of answer POSTs, the client pausing its reading
 * while its answer queue is full; a stream whose answers do not drain is closed with
 * `ConnectionError` and the connection reopened.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ConnectionState } from "@mcp-effect/client/ConnectionState"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { floodServer } from "./floodServer.js"

const BURST = 10_000

const options = {
  clientInfo: { name: "test", version: "1" },
  protocol: "legacy",
  handlers: { roots: [{ uri: "file:///work", name: "work" }] },
  onNotification: () => {}
} as const

describe("a flood of server requests over HTTP", () => {
  it.scopedLive("answers every one of 10,000 requests, with at most 16 answer POSTs open", () =>
    Effect.gen(function*() {
      const flood = yield* floodServer(BURST, false)
      yield* ServerConnection.make(Sse.config({ name: "flood", url: flood.url }), options)
      while (flood.answers.received.size < BURST) yield* Effect.sleep("20 millis")
      assert.strictEqual(flood.answers.received.size, BURST)
      assert.isAtMost(flood.answers.max, 16)
      assert.strictEqual(flood.streams.closed, 0)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("over Streamable HTTP: 1,500 requests on the GET stream and 1,500 on a tool call's reply stream, every one answered, then the call's result", () =>
    Effect.gen(function*() {
      const flood = yield* floodServer(1_500, false, true)
      const connection = yield* ServerConnection.make(StreamableHttp.config({ name: "flood", url: flood.url }), options)
      const result = yield* connection.callTool("flood", {})
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      while (flood.answers.received.size < 3_000) yield* Effect.sleep("20 millis")
      assert.strictEqual([...flood.answers.received].filter((id) => String(id).startsWith("call-")).length, 1_500)
      assert.isAtMost(flood.answers.max, 16)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("a stream whose answers do not drain is closed with ConnectionError, and the connection reopened", () => {
    const logs: Array<string> = []
    return Effect.gen(function*() {
      const flood = yield* floodServer(BURST, true)
      const states: Array<ConnectionState> = []
      const connection = yield* ServerConnection.make(
        Sse.config({ name: "flood", url: flood.url, readTimeout: "1 second" }),
        { ...options, onStateChange: (_server, state) => states.push(state) }
      )
      yield* connection.connect
      // Stopped past the bound (the request timeout), the stream is closed by the client.
      while (flood.streams.closed === 0) yield* Effect.sleep("20 millis")
      assert.isAtMost(flood.answers.max, 16)
      flood.release()
      yield* connection.ping()
      assert.strictEqual(flood.streams.opened, 2)
      const reconnecting = states.find((state) => state._tag === "Reconnecting")
      assert.strictEqual(reconnecting?._tag, "Reconnecting")
      if (reconnecting?._tag === "Reconnecting") {
        assert.strictEqual(reconnecting.cause?._tag, "ConnectionError")
        assert.match(
          reconnecting.cause!.message,
          /stayed stopped for 1s: the answers to the server's requests do not drain/
        )
      }
      // The client stopped reading the burst: the requests it refused (summarised when the first
      // connection closed) are its queue and what the chunks read before the pause held.
      while (!logs.some((line) => line.includes("refused"))) yield* Effect.sleep("20 millis")
      const refused = logs.map((line) => Number(/refused (\d+) server requests/.exec(line)?.[1] ?? 0))
        .reduce((a, b) => a + b, 0)
      assert.isAtLeast(refused, 1_024)
      assert.isBelow(refused, BURST / 2)
    }).pipe(
      Effect.provide(NodeMcpClient.platform),
      Effect.provide(
        Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ message }) => logs.push(Array.isArray(message) ? message.join(" ") : String(message)))
        )
      ),
      Logger.withMinimumLogLevel(LogLevel.Warning)
    )
  })
})
