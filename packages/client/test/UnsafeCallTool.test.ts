import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ServerError, ValidationError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"

type Outcome = Effect.Effect<McpSchema.CallToolResult, McpClient.CallToolError>

const eras = [["legacy", undefined], ["2026-07-28", "dual"]] as const

/**
 * A client of `definition` over the stdio transport (the fake served in memory, no process).
 * Unless `listed` is false its tools are listed: validating a call needs its definition.
 */
const stdioClient = (definition: FakeServer.Definition, options: Partial<McpClient.Options> = {}, listed = true) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const client = yield* McpClient.make({
      servers: [Stdio.config({ name: "fake", command: "fake-server" })],
      clientInfo: { name: "test-client", version: "1.0.0" },
      ...options
    }).pipe(Effect.provide(FakeServer.layerSpawner(server)))
    if (listed) yield* client.listTools()
    return { server, client }
  })

/**
 * Calls through `unsafeCallTool`; the outcome `onDone` gets (its `Exit` when done, else the
 * effect that goes on), and whether it was sent at all.
 */
const unsafeCall = (client: McpClient.Service, name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<Outcome>()
    const abandon = client.unsafeCallTool!(name, args, undefined, (outcome) =>
      Deferred.unsafeDone(done, Effect.succeed(outcome._tag === "Done" ? outcome.exit : outcome.effect)))
    return { abandon, outcome: Deferred.await(done) }
  })

const text = (result: McpSchema.CallToolResult) => (result.content[0] as { readonly text: string }).text

const adder = FakeServer.tool(
  "add",
  (args) => Effect.succeed({ content: [], structuredContent: { sum: String(Number(args.a) + Number(args.b)) } }),
  { outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] } }
)

/** Asks for a confirmation first (2026-07-28 multi round-trip), then answers with it. */
const confirm = FakeServer.tool("confirm", (_, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: { ok: { method: "elicitation/create", params: { message: "Sure?", requestedSchema: {} } } },
        requestState: "state-1"
      }
      : `answer ${JSON.stringify(context.inputResponses)} state ${context.requestState}`
  ))

describe("callTool without a fiber (unsafeCallTool) over stdio", () => {
  for (const [era, serverEra] of eras) {
    it.scopedLive(`${era}: a text result reaches onDone as an Exit, the request carrying the era's _meta`, () =>
      Effect.gen(function*() {
        const { client, server } = yield* stdioClient({ ...Scenarios.demo, ...(serverEra ? { era: serverEra } : {}) })
        assert.strictEqual(client.servers[0]!.negotiated()!.protocolVersion, era === "legacy" ? "2025-11-25" : era)
        const { abandon, outcome } = yield* unsafeCall(client, "echo", { message: "hi" })
        assert.isFunction(abandon)
        const exit = yield* outcome
        assert.isTrue(Exit.isExit(exit) && Exit.isSuccess(exit))
        assert.strictEqual(text(yield* exit), "hi")
        const [call] = yield* server.requests("tools/call")
        const meta = call!.params!._meta as Record<string, unknown> | undefined
        if (era === "legacy") assert.isUndefined(meta)
        else assert.strictEqual(meta!["io.modelcontextprotocol/protocolVersion"], era)
      }))

    it.scopedLive(`${era}: a server error reaches onDone as a failed Exit carrying the error class`, () =>
      Effect.gen(function*() {
        const { client } = yield* stdioClient({ ...Scenarios.demo, ...(serverEra ? { era: serverEra } : {}) })
        const exit = yield* (yield* unsafeCall(client, "no-such-tool", {})).outcome
        assert.isTrue(Exit.isExit(exit) && Exit.isFailure(exit))
        const error = yield* Effect.flip(exit)
        assert.instanceOf(error, ServerError)
      }))

    it.scopedLive(`${era}: abandoning sends notifications/cancelled and onDone is never called`, () =>
      Effect.gen(function*() {
        const { client, server } = yield* stdioClient({ ...Scenarios.demo, ...(serverEra ? { era: serverEra } : {}) })
        const { abandon, outcome } = yield* unsafeCall(client, "slow", { ms: 60_000 })
        const waiting = yield* Effect.fork(outcome)
        abandon!()
        const [call] = yield* server.requests("tools/call")
        let cancelled = yield* server.requests("notifications/cancelled")
        while (cancelled.length === 0) {
          yield* Effect.sleep("5 millis")
          cancelled = yield* server.requests("notifications/cancelled")
        }
        assert.strictEqual(cancelled[0]!.params!.requestId, call!.id)
        // The connection stays usable, and the abandoned call's outcome never arrives.
        const exit = yield* (yield* unsafeCall(client, "echo", { message: "after" })).outcome
        assert.strictEqual(text(yield* exit), "after")
        assert.isNull(yield* Fiber.poll(waiting).pipe(Effect.map((o) => o._tag === "Some" ? o : null)))
      }))
  }

  it.scopedLive("a structured result goes on as the effect that validates it (strict: ValidationError)", () =>
    Effect.gen(function*() {
      const { client } = yield* stdioClient({ tools: [adder] }, { validateStructuredContent: "strict" }, false)
      // The definition is needed to validate: until the list is known the call takes callTool's way.
      assert.isUndefined(client.unsafeCallTool!("add", { a: 1, b: 2 }, undefined, () => {}))
      yield* client.listTools()
      const outcome = yield* (yield* unsafeCall(client, "add", { a: 1, b: 2 })).outcome
      assert.isFalse(Exit.isExit(outcome))
      const error = yield* Effect.flip(outcome)
      assert.instanceOf(error, ValidationError)
    }))

  it.scopedLive("2026-07-28: an input_required answer goes on from the first answer, one more request", () =>
    Effect.gen(function*() {
      const { client, server } = yield* stdioClient(
        { ...Scenarios.demo, era: "dual", tools: [confirm] },
        { handlers: { elicitation: () => Effect.succeed({ action: "accept", content: {} }) } }
      )
      const outcome = yield* (yield* unsafeCall(client, "confirm", {})).outcome
      assert.isFalse(Exit.isExit(outcome))
      assert.strictEqual(text(yield* outcome), `answer {"ok":{"action":"accept","content":{}}} state state-1`)
      const calls = yield* server.requests("tools/call")
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(calls[1]!.params!.requestState, "state-1")
    }))

  it.scopedLive("callTool (the Effect) takes the same path, and interrupting it cancels the request", () =>
    Effect.gen(function*() {
      const { client, server } = yield* stdioClient(Scenarios.demo)
      assert.strictEqual(text(yield* client.callTool("echo", { message: "effect" })), "effect")
      const fiber = yield* Effect.fork(client.callTool("slow", { ms: 60_000 }))
      let calls = yield* server.requests("tools/call")
      while (calls.length < 2) {
        yield* Effect.sleep("5 millis")
        calls = yield* server.requests("tools/call")
      }
      yield* Fiber.interrupt(fiber)
      let cancelled = yield* server.requests("notifications/cancelled")
      while (cancelled.length === 0) {
        yield* Effect.sleep("5 millis")
        cancelled = yield* server.requests("notifications/cancelled")
      }
      assert.strictEqual(cancelled[0]!.params!.requestId, calls[1]!.id)
    }))

  it.scopedLive("is not offered where a step needs an effect: an in-memory transport, an effectful requestMeta", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual" })
      const inMemory = yield* McpClient.make({ servers: [server.config()], clientInfo: { name: "t", version: "1" } })
      assert.isUndefined(inMemory.unsafeCallTool!("echo", { message: "x" }, undefined, () => {}))
      const { client } = yield* stdioClient(
        { ...Scenarios.demo, era: "dual" },
        { requestMeta: Effect.succeed({ "com.example/trace": "t" }) }
      )
      assert.isUndefined(client.unsafeCallTool!("echo", { message: "x" }, undefined, () => {}))
      // callTool still works, the effectful _meta on the wire.
      assert.strictEqual(text(yield* client.callTool("echo", { message: "meta" })), "meta")
    }))
})
