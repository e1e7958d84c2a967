import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import {
  CapabilityError,
  InvalidResponseError,
  RequestTimeoutError,
  ServerError,
  ServerNotFoundError
} from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { options } from "./utils/connection.js"

/** A vendor extension method: echoes its params, reports progress first when asked. */
const vendor: FakeServer.MethodHandler = (params, context) =>
  Effect.zipRight(
    Effect.forEach([1, 2], (step) => Effect.zipRight(Effect.sleep(10), context.progress(step, 2)), { discard: true }),
    Effect.succeed({ echoed: params.text, count: 2 })
  )

const connect = (definition: FakeServer.Definition, extra?: Partial<ServerConnection.Options>) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make({ ...Scenarios.demo, methods: { "acme/echo": vendor }, ...definition })
    const connection = yield* ServerConnection.make(server.config({ name: "fake" }), options(extra))
    return { server, connection }
  })

const Echoed = Schema.Struct({ echoed: Schema.String, count: Schema.Number })

describe("raw requests", () => {
  it.scoped("a vendor method is sent by name and its result returned as the server sent it", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({})
      const fiber = yield* Effect.fork(connection.request("acme/echo", { text: "hi" }))
      yield* TestClock.adjust(20)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { echoed: "hi", count: 2 })
      const [sent] = yield* server.requests("acme/echo")
      assert.deepStrictEqual(sent!.params, { text: "hi" })
    }))

  it.scoped("a schema types the result; a result that does not fit is an InvalidResponseError", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({})
      const fiber = yield* Effect.fork(connection.request("acme/echo", { text: "hi" }, { schema: Echoed }))
      yield* TestClock.adjust(20)
      const typed: { readonly echoed: string; readonly count: number } = yield* Fiber.join(fiber)
      assert.strictEqual(typed.echoed, "hi")
      const wrong = yield* Effect.fork(
        Effect.flip(connection.request("acme/echo", { text: 1 }, { schema: Echoed }))
      )
      yield* TestClock.adjust(20)
      const error = yield* Fiber.join(wrong)
      assert.instanceOf(error, InvalidResponseError)
      assert.strictEqual(error.method, "acme/echo")
    }))

  it.scoped("the server's error is a ServerError with its code", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({})
      const error = yield* Effect.flip(connection.request("acme/unknown"))
      assert.instanceOf(error, ServerError)
      assert.strictEqual((error as ServerError).code, -32601)
    }))

  it.scoped("a known method is gated by its capability (nothing sent); an unknown one is not gated", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ completions: undefined })
      const error = yield* Effect.flip(connection.request("completion/complete", { ref: {}, argument: {} }))
      assert.instanceOf(error, CapabilityError)
      assert.strictEqual((yield* server.requests("completion/complete")).length, 0)
      yield* Effect.flip(connection.request("logging/setLevel2", { level: "info" }))
      assert.strictEqual((yield* server.requests("logging/setLevel2")).length, 1)
    }))

  it.scoped("progress, timeout and cancellation apply as to the wrapped methods", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ faults: [{ method: "acme/slow", action: "silence" }] })
      const seen: Array<number> = []
      const fiber = yield* Effect.fork(
        connection.request("acme/echo", { text: "x" }, { onProgress: (p) => seen.push(p.progress) })
      )
      yield* TestClock.adjust(20)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen, [1, 2])
      const slow = yield* Effect.fork(Effect.flip(connection.request("acme/slow", {}, { timeout: "1 second" })))
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(slow)
      assert.instanceOf(error, RequestTimeoutError)
      yield* Effect.yieldNow()
      const [request] = yield* server.requests("acme/slow")
      const [cancelled] = yield* server.requests("notifications/cancelled")
      assert.strictEqual(cancelled!.params?.requestId, request!.id)
    }))

  it.scoped("on 2026-07-28 it carries the era's _meta, merged with the caller's, and drives input_required", () =>
    Effect.gen(function*() {
      let rounds = 0
      const { connection, server } = yield* connect({
        era: "modern",
        methods: {
          "acme/confirm": (params) =>
            Effect.sync(() => {
              rounds++
              return params.inputResponses === undefined
                ? {
                  resultType: "input_required",
                  inputRequests: { ok: { method: "elicitation/create", params: { message: "Sure?" } } },
                  requestState: "s1"
                }
                : { answered: params.inputResponses, state: params.requestState }
            })
        }
      }, { handlers: { elicitation: () => Effect.succeed({ action: "accept", content: { sure: true } }) } })
      const result = yield* connection.request("acme/confirm", { _meta: { "acme.example/trace": "t1" } })
      assert.strictEqual(rounds, 2)
      assert.deepStrictEqual(result, {
        resultType: "complete",
        answered: { ok: { action: "accept", content: { sure: true } } },
        state: "s1"
      })
      const [first] = yield* server.requests("acme/confirm")
      const meta = first!.params!._meta as Record<string, unknown>
      assert.strictEqual(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28")
      assert.strictEqual(meta["acme.example/trace"], "t1")
      assert.deepStrictEqual(meta["io.modelcontextprotocol/clientCapabilities"], { elicitation: { form: {} } })
    }))

  it.scoped("notify sends a notification by name", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({})
      yield* connection.notify("notifications/acme/hello", { n: 1 })
      yield* Effect.yieldNow()
      const [received] = yield* server.requests("notifications/acme/hello")
      assert.deepStrictEqual([received!.id, received!.params], [undefined, { n: 1 }])
    }))
})

describe("McpClient raw requests", () => {
  it.scoped("are routed by { server }; with several servers and none named, ServerNotFoundError", () =>
    Effect.gen(function*() {
      const a = yield* FakeServer.make({
        ...Scenarios.demo,
        methods: { "acme/who": () => Effect.succeed({ me: "a" }) }
      })
      const b = yield* FakeServer.make({
        ...Scenarios.demo,
        methods: { "acme/who": () => Effect.succeed({ me: "b" }) }
      })
      const client = yield* McpClient.make({ servers: [a.config({ name: "a" }), b.config({ name: "b" })] })
      assert.deepStrictEqual(yield* client.request("acme/who", {}, { server: "b" }), { me: "b" })
      assert.instanceOf(yield* Effect.flip(client.request("acme/who")), ServerNotFoundError)
      yield* client.notify("notifications/acme/ping", {}, { server: "a" })
      yield* Effect.yieldNow()
      assert.strictEqual((yield* a.requests("notifications/acme/ping")).length, 1)
      assert.strictEqual((yield* b.requests("notifications/acme/ping")).length, 0)
    }))
})
