import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConfigError, InputRequiredError, ServerError, ServerNotFoundError } from "@mcp-effect/client/McpError"
import * as Resume from "@mcp-effect/client/Resume"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const TASKS = "io.modelcontextprotocol/tasks"

/** A tool that works a little, then reports its arguments. */
const slow = FakeServer.tool(
  "slow",
  (args) => Effect.as(Effect.sleep("150 millis"), `done ${JSON.stringify(args)}`),
  { execution: { taskSupport: "optional" } }
)

/** Asks for confirmation (with state of its own) before it answers, as a call or as a task. */
const confirm = FakeServer.tool("confirm", (args, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: { ok: { method: "elicitation/create", params: { message: "Sure?" } } },
        requestState: `state-for-${String(args.what)}`
      }
      : `confirmed ${String(args.what)} ${JSON.stringify(context.inputResponses)} ${context.requestState ?? "-"}`
  ), { execution: { taskSupport: "optional" } })

const text = (result: unknown) => ((result as { content: ReadonlyArray<{ text: string }> }).content[0]!).text

/** Two clients of one server: the first stands for the process that died, the second for its successor. */
const pair = (definition: FakeServer.Definition, second: Partial<McpClient.Options> = {}) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const options = { servers: [server.config({ name: "jobs" })], extensions: [TASKS] }
    const first = yield* McpClient.make(options)
    const next = yield* McpClient.make({ ...options, ...second })
    return { server, first, next }
  })

/** What a restart does to a saved form: through a store, and through JSON. */
const throughStore = (saved: Resume.Saved) =>
  Effect.gen(function*() {
    const store = yield* KeyValueStore.KeyValueStore
    yield* Resume.save(store, "call-1", saved)
    const loaded = yield* Resume.load(store, "call-1")
    assert.isTrue(Option.isSome(loaded))
    return Option.getOrThrow(loaded)
  }).pipe(Effect.provide(KeyValueStore.layerMemory))

describe("Resume: tasks", () => {
  for (const era of ["dual", "legacy"] as const) {
    it.scopedLive(`${era}: a task saved by one client is resumed by another to its result`, () =>
      Effect.gen(function*() {
        const { first, next, server } = yield* pair({ tools: [slow], tasks: {}, era })
        const task = yield* first.callToolAsTask("slow", { n: 7 })
        const saved = Resume.fromTask(task, { era: era === "dual" ? "modern" : "legacy" })
        const plain = JSON.parse(JSON.stringify(saved)) as Record<string, unknown>
        assert.deepStrictEqual(
          Object.keys(plain).sort().filter((key) => !["createdAt", "ttlMs", "pollIntervalMs", "tool"].includes(key)),
          ["era", "kind", "savedAt", "server", "status", "taskId", "version"]
        )
        const loaded = yield* throughStore(saved)
        assert.strictEqual(loaded.kind, "task")
        const result = yield* next.resumeTask(loaded as Resume.SavedTask)
        assert.strictEqual(text(result), "done {\"n\":7}")
        assert.isAbove(
          (yield* server.requests("tasks/get")).length + (yield* server.requests("tasks/result")).length,
          0
        )
      }))
  }

  it.scopedLive("2026-07-28: the resumed wait answers the task's input requests through the handlers", () =>
    Effect.gen(function*() {
      const { first, next, server } = yield* pair({ tools: [confirm], tasks: {}, era: "dual" }, {
        handlers: { elicitation: () => Effect.succeed({ sure: true }) }
      })
      const saved = Resume.fromTask(yield* first.callToolAsTask("confirm", { what: "deploy" }))
      const loaded = yield* throughStore(saved)
      assert.strictEqual(loaded.kind, "task")
      const result = yield* next.resumeTask(loaded as Resume.SavedTask)
      assert.include(text(result), "confirmed deploy")
      assert.strictEqual((yield* server.requests("tasks/update")).length, 1)
    }))

  it.scopedLive("a task the server no longer knows is the server's -32602; an unknown server is ServerNotFoundError", () =>
    Effect.gen(function*() {
      const { first, next } = yield* pair({ tools: [slow], tasks: {}, era: "dual" })
      const saved = Resume.fromTask(yield* first.callToolAsTask("slow", {}))
      const gone = yield* Effect.flip(next.resumeTask({ ...saved, taskId: "no-such-task" }))
      assert.instanceOf(gone, ServerError)
      assert.strictEqual((gone as ServerError).code, -32602)
      const elsewhere = yield* Effect.flip(next.resumeTask({ ...saved, server: "other" }))
      assert.instanceOf(elsewhere, ServerNotFoundError)
    }))

  it.effect("a saved form that is not one is a ConfigError", () =>
    Effect.gen(function*() {
      assert.instanceOf(yield* Effect.flip(Resume.decode({ kind: "task", taskId: 1 })), ConfigError)
      const store = yield* KeyValueStore.KeyValueStore
      yield* store.set("junk", "{")
      assert.instanceOf(yield* Effect.flip(Resume.load(store, "junk")), ConfigError)
      assert.isTrue(Option.isNone(yield* Resume.load(store, "absent")))
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})

describe("Resume: input_required", () => {
  const stopped = Effect.gen(function*() {
    const { first, next, server } = yield* pair({ tools: [confirm], era: "modern" }, {
      handlers: { elicitation: () => Effect.succeed({ sure: "handler" }) }
    })
    // The first client has no elicitation handler: the round stops it.
    const error = yield* Effect.flip(first.callTool("confirm", { what: "release" }))
    assert.instanceOf(error, InputRequiredError)
    const saved = yield* throughStore(Resume.fromInputRequired(error as InputRequiredError))
    assert.strictEqual(saved.kind, "input_required")
    return { next, server, saved: saved as Resume.SavedInputRequired }
  })

  it.scopedLive("resumed with the host's answers: the retry carries them and the state, exactly", () =>
    Effect.gen(function*() {
      const { next, saved, server } = yield* stopped
      assert.deepStrictEqual(saved.params, { name: "confirm", arguments: { what: "release" } })
      assert.strictEqual(saved.requestState, "state-for-release")
      const result = yield* next.resumeInputRequired(saved, { ok: { action: "accept", content: { sure: "host" } } })
      assert.strictEqual(
        text(result),
        "confirmed release {\"ok\":{\"action\":\"accept\",\"content\":{\"sure\":\"host\"}}} state-for-release"
      )
      const calls = yield* server.requests("tools/call")
      const retry = calls[calls.length - 1]!
      assert.strictEqual(retry.params!.requestState, "state-for-release")
    }))

  it.scopedLive("resumed without answers: the pending requests go to the handlers first", () =>
    Effect.gen(function*() {
      const { next, saved } = yield* stopped
      const result = yield* next.resumeInputRequired(saved)
      assert.strictEqual(
        text(result),
        "confirmed release {\"ok\":{\"action\":\"accept\",\"content\":{\"sure\":\"handler\"}}} state-for-release"
      )
    }))

  it.effect("a round that cannot be resumed, or a task's, is refused when saved", () =>
    Effect.sync(() => {
      const error = new InputRequiredError({
        server: "s",
        method: "tools/call",
        params: {},
        inputRequests: 3,
        resumable: false,
        reason: "malformed inputRequests"
      })
      assert.throws(() => Resume.fromInputRequired(error), /cannot be resumed/)
      const ofTask = new InputRequiredError({
        server: "s",
        method: "tasks/update",
        params: { taskId: "t" },
        inputRequests: {},
        resumable: true,
        reason: "no handler for elicitation/create"
      })
      assert.throws(() => Resume.fromInputRequired(ofTask), /save the task/)
    }))
})
