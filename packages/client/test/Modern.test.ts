import { assert, describe, it } from "@effect/vitest"
import { InputRequiredError, InvalidResponseError, UnsupportedProtocolVersionError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { connect, options } from "./utils/connection.js"

const META = "io.modelcontextprotocol/protocolVersion"

const elicit = (answer: unknown): ServerConnection.Options["handlers"] => ({
  elicitation: () => Effect.succeed(answer)
})

/** A tool that asks for confirmation with an elicitation, then reports the answer. */
const confirm = FakeServer.tool("confirm", (_, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: {
          ok: {
            method: "elicitation/create",
            params: {
              message: "Sure?",
              requestedSchema: { type: "object", properties: { sure: { type: "boolean", default: true } } }
            }
          }
        },
        requestState: "opaque\u0000state/é"
      }
      : `answer ${JSON.stringify(context.inputResponses)} state ${context.requestState}`
  ))

/** A tool that never stops asking. */
const endless = FakeServer.tool("endless", (_, context) =>
  Effect.succeed({
    resultType: "input_required" as const,
    inputRequests: { again: { method: "elicitation/create", params: { message: "again?" } } },
    requestState: `round-${(context.requestState?.length ?? 0) + 1}`.padEnd(
      (context.requestState?.length ?? 0) + 1,
      "x"
    )
  }))

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("era detection", () => {
  it.scoped("a server that answers server/discover is spoken to statelessly, with no initialize", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, era: "dual" })
      const negotiated = connection.negotiated()!
      assert.deepStrictEqual([negotiated.era, negotiated.protocolVersion], ["modern", "2026-07-28"])
      assert.strictEqual(negotiated.serverInfo.name, "mcp-effect-demo")
      yield* connection.callTool("echo", { message: "hi" })
      const received = yield* server.received
      assert.notInclude(received.map((r) => r.method), "initialize")
      const call = received.find((r) => r.method === "tools/call")!
      const meta = call.params!._meta as Record<string, unknown>
      assert.strictEqual(meta[META], "2026-07-28")
      assert.deepStrictEqual(meta["io.modelcontextprotocol/clientInfo"], { name: "test-client", version: "1.0.0" })
      assert.deepStrictEqual(meta["io.modelcontextprotocol/clientCapabilities"], {})
    }))

  it.scoped("silence to server/discover falls back to initialize after discoverTimeout", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{ method: "server/discover", action: "silence" }]
      })
      const fiber = yield* Effect.fork(
        ServerConnection.make(server.config(), options({ discoverTimeout: "2 seconds" }))
      )
      yield* TestClock.adjust("2 seconds")
      const connection = yield* Fiber.join(fiber)
      assert.strictEqual(connection.negotiated()!.era, "legacy")
    }))

  it.scoped("-32022 naming 2026-07-28 is retried; naming only legacy revisions falls back", () =>
    Effect.gen(function*() {
      const unsupported = (supported: ReadonlyArray<string>): FakeServer.Fault => ({
        method: "server/discover",
        action: "error",
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported, requested: "2026-07-28" },
        times: 1
      })
      const retried = yield* connect({ ...Scenarios.demo, era: "dual", faults: [unsupported(["2026-07-28"])] })
      assert.strictEqual(retried.connection.negotiated()!.era, "modern")
      assert.strictEqual((yield* retried.server.requests("server/discover")).length, 2)
      const legacy = yield* connect({ ...Scenarios.demo, era: "dual", faults: [unsupported(["2025-11-25"])] })
      assert.strictEqual(legacy.connection.negotiated()!.era, "legacy")
    }))

  it.scoped("protocol: modern refuses a legacy server; protocol: legacy never probes", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const error = yield* Effect.flip(ServerConnection.make(server.config(), options({ protocol: "modern" })))
      assert.instanceOf(error, UnsupportedProtocolVersionError)
      const dual = yield* FakeServer.make({ ...Scenarios.demo, era: "dual" })
      const legacy = yield* ServerConnection.make(dual.config(), options({ protocol: "legacy" }))
      assert.strictEqual(legacy.negotiated()!.era, "legacy")
      assert.strictEqual((yield* dual.requests("server/discover")).length, 0)
    }))

  it.scoped("a modern-only server refuses initialize; auto speaks modern to it", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({ ...Scenarios.demo, era: "modern" })
      assert.strictEqual(connection.negotiated()!.era, "modern")
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "m" })), "m")
    }))
})

describe("2026-07-28 requests", () => {
  it.scoped("an unknown resultType is an invalid response", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({
        ...Scenarios.demo,
        era: "dual",
        faults: [{ method: "tools/call", action: "result", result: { resultType: "mystery", content: [] } }]
      })
      assert.instanceOf(yield* Effect.flip(connection.callTool("echo", { message: "x" })), InvalidResponseError)
    }))

  it.scoped("host requestMeta and the log level ride on every request's _meta", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(
        { ...Scenarios.demo, era: "dual", logging: true },
        { requestMeta: Effect.succeed({ "example.com/trace": "t-1" }) }
      )
      yield* connection.setLogLevel("warning")
      yield* connection.callTool("echo", { message: "x" })
      const [call] = yield* server.requests("tools/call")
      const meta = call!.params!._meta as Record<string, unknown>
      assert.strictEqual(meta["example.com/trace"], "t-1")
      assert.strictEqual(meta["io.modelcontextprotocol/logLevel"], "warning")
      assert.strictEqual((yield* server.requests("logging/setLevel")).length, 0)
    }))

  it.scoped("ping is server/discover", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, era: "dual" })
      yield* connection.ping()
      assert.strictEqual((yield* server.requests("server/discover")).length, 2)
      assert.strictEqual((yield* server.requests("ping")).length, 0)
    }))

  it.scoped("lists honour ttlMs: fresh lists are served from cache, ttlMs 0 re-fetches", () =>
    Effect.gen(function*() {
      const fresh = yield* connect({ ...Scenarios.demo, era: "dual", ttlMs: 60_000 })
      yield* fresh.connection.listTools()
      yield* fresh.connection.listTools()
      assert.strictEqual((yield* fresh.server.requests("tools/list")).length, 1)
      yield* TestClock.adjust("61 seconds")
      yield* fresh.connection.listTools()
      assert.strictEqual((yield* fresh.server.requests("tools/list")).length, 2)
      const stale = yield* connect({ ...Scenarios.demo, era: "dual", ttlMs: 0 })
      yield* stale.connection.listTools()
      yield* stale.connection.listTools()
      assert.strictEqual((yield* stale.server.requests("tools/list")).length, 2)
    }))
})

describe("input_required (multi round-trip)", () => {
  it.scoped("serves the input requests with the handlers, retries with a new id and echoes requestState", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(
        { ...Scenarios.demo, era: "dual", tools: [confirm] },
        { handlers: elicit({}) }
      )
      const result = yield* connection.callTool("confirm", {})
      assert.strictEqual(
        text(result),
        `answer {"ok":{"action":"accept","content":{"sure":true}}} state opaque\u0000state/é`
      )
      const calls = yield* server.requests("tools/call")
      assert.strictEqual(calls.length, 2)
      assert.notStrictEqual(calls[0]!.id, calls[1]!.id)
      assert.strictEqual(calls[1]!.params!.requestState, "opaque\u0000state/é")
      assert.isUndefined(calls[0]!.params!.inputResponses)
      const capabilities =
        (calls[0]!.params!._meta as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"]
      assert.deepStrictEqual(capabilities, { elicitation: { form: {} } })
    }))

  it.scoped("an input request without a handler stops with a resumable InputRequiredError", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({ ...Scenarios.demo, era: "dual", tools: [confirm] })
      const error = yield* Effect.flip(connection.callTool("confirm", {}))
      assert.instanceOf(error, InputRequiredError)
      assert.isTrue(error.resumable)
      assert.strictEqual(error.requestState, "opaque\u0000state/é")
      const resumed = yield* connection.resumeInputRequired(error, { ok: { action: "decline" } })
      assert.include(JSON.stringify(resumed), "decline")
    }))

  it.scoped("more than 10 rounds stop with InputRequiredError, which resumeInputRequired continues", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(
        { ...Scenarios.demo, era: "dual", tools: [endless] },
        { handlers: elicit({ action: "accept", content: {} }) }
      )
      const error = yield* Effect.flip(connection.callTool("endless", {}))
      assert.instanceOf(error, InputRequiredError)
      assert.strictEqual((yield* server.requests("tools/call")).length, 11)
      const again = yield* Effect.flip(
        connection.resumeInputRequired(error, { again: { action: "accept", content: {} } })
      )
      assert.instanceOf(again, InputRequiredError)
      const calls = yield* server.requests("tools/call")
      assert.strictEqual(calls[11]!.params!.requestState, error.requestState)
    }))

  it.scoped("a malformed input_required result is not resumable", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({
        ...Scenarios.demo,
        era: "dual",
        faults: [{
          method: "tools/call",
          action: "result",
          result: { resultType: "input_required", inputRequests: [1] }
        }]
      })
      const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }))
      assert.instanceOf(error, InputRequiredError)
      assert.isFalse(error.resumable)
    }))
})

describe("requestState-only answers (load shedding)", () => {
  const busy = FakeServer.tool("busy", (_, context) =>
    Effect.succeed(
      context.requestState === undefined
        ? { resultType: "input_required" as const, requestState: "later" }
        : `done with ${context.requestState}`
    ))

  it.scoped("is retried after a pause with the state echoed", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, era: "dual", tools: [busy] })
      const fiber = yield* Effect.fork(connection.callTool("busy", {}))
      yield* TestClock.adjust("50 millis")
      assert.strictEqual(text(yield* Fiber.join(fiber)), "done with later")
      const calls = yield* server.requests("tools/call")
      assert.deepStrictEqual(calls.map((c) => c.params!.requestState), [undefined, "later"])
      assert.isUndefined(calls[1]!.params!.inputResponses)
    }))

  it.scoped("the host hook can retry at once or cancel, and the wait stays inside the timeout", () =>
    Effect.gen(function*() {
      const seen: Array<number> = []
      const now = yield* connect({ ...Scenarios.demo, era: "dual", tools: [busy] }, {
        onInputRequiredWait: (wait) => Effect.sync(() => (seen.push(wait.round), "retry"))
      })
      assert.strictEqual(text(yield* now.connection.callTool("busy", {})), "done with later")
      assert.deepStrictEqual(seen, [1])
      const cancel = yield* connect({ ...Scenarios.demo, era: "dual", tools: [busy] }, {
        onInputRequiredWait: () => Effect.succeed("cancel")
      })
      const cancelled = yield* Effect.flip(cancel.connection.callTool("busy", {}))
      assert.instanceOf(cancelled, InputRequiredError)
      const long = yield* connect({ ...Scenarios.demo, era: "dual", tools: [busy] }, {
        onInputRequiredWait: () => Effect.succeed(60_000)
      })
      const tooLong = yield* Effect.flip(long.connection.callTool("busy", {}, { timeout: "5 seconds" }))
      assert.instanceOf(tooLong, InputRequiredError)
      assert.include(tooLong.reason, "timeout")
    }))
})

describe("tasks (2026-07-28 extension)", () => {
  const TASKS = "io.modelcontextprotocol/tasks"
  const created = { resultType: "task", taskId: "t-1", status: "working", pollIntervalMs: 100 }
  const done = {
    resultType: "complete",
    taskId: "t-1",
    status: "completed",
    result: { content: [{ type: "text", text: "done" }] }
  }

  it.scoped("a task result is polled to completion, input requests answered once through tasks/update", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({
        ...Scenarios.demo,
        era: "dual",
        faults: [
          { method: "tools/call", action: "result", result: created, times: 1 },
          {
            method: "tasks/get",
            action: "result",
            result: {
              ...created,
              resultType: "complete",
              status: "input_required",
              inputRequests: { ok: { method: "elicitation/create", params: { message: "go?" } } }
            },
            times: 2
          },
          { method: "tasks/update", action: "result", result: { resultType: "complete" } },
          { method: "tasks/get", action: "result", result: done }
        ]
      }, { handlers: elicit({ go: true }), extensions: [TASKS] })
      const fiber = yield* Effect.fork(connection.callTool("echo", { message: "x" }))
      for (let i = 0; i < 4; i++) {
        yield* TestClock.adjust("100 millis")
        yield* Effect.yieldNow()
      }
      assert.strictEqual(text(yield* Fiber.join(fiber)), "done")
      const updates = yield* server.requests("tasks/update")
      assert.strictEqual(updates.length, 1)
      assert.deepStrictEqual(updates[0]!.params!.inputResponses, { ok: { action: "accept", content: { go: true } } })
      const [call] = yield* server.requests("tools/call")
      const capabilities =
        (call!.params!._meta as Record<string, unknown>)["io.modelcontextprotocol/clientCapabilities"]
      assert.deepStrictEqual((capabilities as { extensions: unknown }).extensions, { [TASKS]: {} })
    }))

  it.scoped("a task result without the extension declared is an invalid response", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({
        ...Scenarios.demo,
        era: "dual",
        faults: [{ method: "tools/call", action: "result", result: created }]
      })
      assert.instanceOf(yield* Effect.flip(connection.callTool("echo", { message: "x" })), InvalidResponseError)
    }))
})
