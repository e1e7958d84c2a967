import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { RequestTimeoutError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

/** A long job: `steps` progress notifications `every` ms apart, then its result. */
const job: FakeServer.MethodHandler = (params, context) =>
  Effect.as(
    Effect.forEach(
      Array.from({ length: Number(params.steps) }, (_, i) => i + 1),
      (step) => Effect.zipRight(Effect.sleep(Number(params.every)), context.progress(step)),
      { discard: true }
    ),
    { done: true }
  )

const connect = Effect.gen(function*() {
  const server = yield* FakeServer.make({ ...Scenarios.demo, methods: { "acme/job": job } })
  const connection = yield* ServerConnection.make(server.config({ name: "fake" }), {
    clientInfo: { name: "test-client", version: "1.0.0" },
    onNotification: () => {}
  })
  return { server, connection }
})

describe("timeouts that follow progress", () => {
  it.scoped("with resetTimeoutOnProgress each progress restarts the timeout, and progress is asked for", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect
      // 4 × 800 ms = 3.2 s of work under a 1 s timeout that every progress restarts.
      const fiber = yield* Effect.fork(
        connection.request("acme/job", { steps: 4, every: 800 }, { timeout: "1 second", resetTimeoutOnProgress: true })
      )
      yield* TestClock.adjust(3200)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { done: true })
      const [sent] = yield* server.requests("acme/job")
      assert.isDefined((sent!.params?._meta as Record<string, unknown>).progressToken)
    }))

  it.scoped("without it, progress does not restart the timeout", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect
      const seen: Array<number> = []
      const fiber = yield* Effect.fork(Effect.flip(
        connection.request("acme/job", { steps: 4, every: 400 }, {
          timeout: "1 second",
          onProgress: (p) => seen.push(p.progress)
        })
      ))
      yield* TestClock.adjust(1000)
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, RequestTimeoutError)
      assert.strictEqual((error as RequestTimeoutError).timeoutMs, 1000)
      assert.deepStrictEqual(seen, [1, 2])
    }))

  it.scoped("maxTotalTimeout ends the call even while progress keeps arriving", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect
      const fiber = yield* Effect.fork(Effect.flip(
        connection.request("acme/job", { steps: 100, every: 500 }, {
          timeout: "1 second",
          resetTimeoutOnProgress: true,
          maxTotalTimeout: "3 seconds"
        })
      ))
      yield* TestClock.adjust(2999)
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, RequestTimeoutError)
      assert.strictEqual((error as RequestTimeoutError).timeoutMs, 3000)
      yield* Effect.yieldNow()
      assert.strictEqual((yield* server.requests("notifications/cancelled")).length, 1)
    }))

  it.scoped("the maximum defaults to ten times the timeout", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect
      const fiber = yield* Effect.fork(Effect.flip(
        connection.request("acme/job", { steps: 100, every: 500 }, {
          timeout: "1 second",
          resetTimeoutOnProgress: true
        })
      ))
      yield* TestClock.adjust(9999)
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual((error as RequestTimeoutError).timeoutMs, 10_000)
    }))

  it.scoped("apply to the wrapped methods and to callToolStreaming", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const client = yield* McpClient.make({ servers: [server.config({ name: "demo" })] })
      const slow = { steps: 3, delayMs: 800 }
      const call = yield* Effect.fork(
        client.callTool("progress", slow, { timeout: "1 second", resetTimeoutOnProgress: true })
      )
      const streamed = yield* Effect.fork(Stream.runCollect(
        client.callToolStreaming("progress", slow, { timeout: "1 second", resetTimeoutOnProgress: true })
      ))
      const cut = yield* Effect.fork(Effect.flip(client.callTool("progress", slow, { timeout: "1 second" })))
      yield* TestClock.adjust(2400)
      assert.strictEqual((yield* Fiber.join(call)).isError, undefined)
      const chunks = Chunk.toReadonlyArray(yield* Fiber.join(streamed)).map((chunk) => chunk._tag)
      assert.deepStrictEqual(chunks, ["Progress", "Progress", "Progress", "Result"])
      assert.instanceOf(yield* Fiber.join(cut), RequestTimeoutError)
    }))
})
