import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import {
  AmbiguousServerError,
  CapabilityError,
  InputRequiredError,
  ServerError,
  TaskReplacedError,
  ValidationError
} from "@mcp-effect/client/McpError"
import * as Task from "@mcp-effect/client/Task"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

const TASKS = "io.modelcontextprotocol/tasks"

/** A tool that works a little, then reports its arguments. */
const slow = FakeServer.tool(
  "slow",
  (args) => Effect.as(Effect.sleep("150 millis"), `done ${JSON.stringify(args)}`),
  { execution: { taskSupport: "optional" } }
)

/** A tool that asks for confirmation (and a model answer) before it finishes. */
const confirm = FakeServer.tool("confirm", (_, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: { ok: { method: "elicitation/create", params: { message: "Sure?" } } }
      }
      : `confirmed ${JSON.stringify(context.inputResponses)}`
  ), { execution: { taskSupport: "optional" } })

/** Asks two things at once: an elicitation and a sampling request. */
const twoQuestions = FakeServer.tool("two", (_, context) =>
  Effect.succeed(
    context.inputResponses?.model === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: {
          ok: { method: "elicitation/create", params: { message: "Sure?" } },
          model: {
            method: "sampling/createMessage",
            params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 }
          }
        }
      }
      : "both answered"
  ), { execution: { taskSupport: "optional" } })

/** Declares structured output it does not keep to. */
const typed = FakeServer.tool(
  "typed",
  () => Effect.succeed({ content: [], structuredContent: { n: "not a number" } }),
  {
    execution: { taskSupport: "optional" },
    outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
  }
)

const tools = [slow, confirm, twoQuestions, typed]

const client = (
  definition: FakeServer.Definition,
  extra: Partial<McpClient.Options> = {},
  names: ReadonlyArray<string> = ["fake"]
) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const mcp = yield* McpClient.make({ servers: names.map((name) => server.config({ name })), ...extra })
    return { server, client: mcp }
  })

const text = (result: { readonly content: ReadonlyArray<unknown> } | undefined) =>
  (result?.content[0] as { text: string }).text

describe("tasks on 2025-11-25", () => {
  it.scopedLive("callToolAsTask returns a handle at once with the requested ttl; waitForTask fetches the result", () =>
    Effect.gen(function*() {
      const { client: mcp, server } = yield* client({ tools, tasks: {} })
      const task = yield* mcp.callToolAsTask("slow", { n: 1 }, { ttl: "30 seconds" })
      assert.instanceOf(task, Task.Task)
      assert.strictEqual(task.status, "working")
      assert.strictEqual(task.server, "fake")
      const [call] = yield* server.requests("tools/call")
      assert.deepStrictEqual(call!.params!.task, { ttl: 30_000 })
      const done = yield* mcp.waitForTask(task)
      assert.isTrue(done.isCompleted)
      assert.strictEqual(text(done.result), "done {\"n\":1}")
      assert.strictEqual((yield* server.requests("tasks/result")).length, 1)
      assert.strictEqual(text(yield* mcp.getTaskResult(task)), "done {\"n\":1}")
    }))

  it.scopedLive("getTask polls, listTasks pages through tasks/list, cancelTask cancels", () =>
    Effect.gen(function*() {
      const { client: mcp, server } = yield* client({ tools, tasks: { pageSize: 1 } })
      const first = yield* mcp.callToolAsTask("slow", { n: 1 })
      const second = yield* mcp.callToolAsTask("slow", { n: 2 })
      assert.strictEqual((yield* mcp.getTask(first)).status, "working")
      const listed = yield* mcp.listTasks()
      assert.deepStrictEqual(listed.map((t) => t.taskId), [first.taskId, second.taskId])
      assert.strictEqual((yield* server.requests("tasks/list")).length, 2)
      const cancelled = yield* mcp.cancelTask(second)
      assert.strictEqual(cancelled.status, "cancelled")
      const error = yield* Effect.flip(mcp.getTaskResult(second))
      assert.instanceOf(error, ServerError)
    }))

  it.scopedLive("status changes reach listeners as notifications/tasks/status", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const { client: mcp } = yield* client({ tools, tasks: {} }, {
        onNotification: (_, method, params) => {
          if (method === "notifications/tasks/status") seen.push(params?.status)
        }
      })
      yield* mcp.waitForTask(yield* mcp.callToolAsTask("slow", {}))
      assert.include(seen, "completed")
    }))

  it.scopedLive("callTool runs a tool that requires a task as one, transparently", () =>
    Effect.gen(function*() {
      const required = FakeServer.tool("required", () => Effect.as(Effect.sleep("120 millis"), "ok"), {
        execution: { taskSupport: "required" }
      })
      const { client: mcp, server } = yield* client({ tools: [required], tasks: {} })
      assert.strictEqual(text(yield* mcp.callTool("required", {})), "ok")
      assert.isTrue((yield* server.requests("tasks/get")).length + (yield* server.requests("tasks/result")).length > 0)
    }))

  it.scoped("a server without the tasks capability: CapabilityError, nothing sent", () =>
    Effect.gen(function*() {
      const { client: mcp, server } = yield* client({ tools })
      assert.instanceOf(yield* Effect.flip(mcp.callToolAsTask("slow", {})), CapabilityError)
      assert.instanceOf(yield* Effect.flip(mcp.listTasks({ server: "fake" })), CapabilityError)
      assert.strictEqual((yield* server.requests("tools/call")).length, 0)
    }))
})

describe("tasks on 2026-07-28 (extension)", () => {
  it.scopedLive("waitForTask answers input requests through the handlers, once, with tasks/update", () =>
    Effect.gen(function*() {
      let asked = 0
      const { client: mcp, server } = yield* client({ tools, tasks: {}, era: "dual" }, {
        extensions: [TASKS],
        handlers: { elicitation: () => Effect.sync(() => (asked++, { sure: true })) }
      })
      const task = yield* mcp.callToolAsTask("confirm", {}, { ttl: "5 seconds" })
      const [call] = yield* server.requests("tools/call")
      assert.isUndefined(call!.params!.task, "no ttl on 2026-07-28: the server grants ttlMs")
      const done = yield* mcp.waitForTask(task)
      assert.strictEqual(text(done.result), "confirmed {\"ok\":{\"action\":\"accept\",\"content\":{\"sure\":true}}}")
      assert.strictEqual(asked, 1)
      assert.strictEqual((yield* server.requests("tasks/update")).length, 1)
      assert.strictEqual((yield* server.requests("tasks/result")).length, 0)
    }))

  it.scopedLive("getTaskResult stops at input_required; updateTask is the host's own answer", () =>
    Effect.gen(function*() {
      const { client: mcp } = yield* client({ tools, tasks: {}, era: "dual" }, { extensions: [TASKS] })
      const task = yield* mcp.callToolAsTask("confirm", {})
      const stopped = yield* Effect.flip(mcp.getTaskResult(task))
      assert.instanceOf(stopped, InputRequiredError)
      const pending = yield* mcp.getTask(task)
      assert.isTrue(pending.isInputRequired)
      assert.deepStrictEqual(Object.keys(pending.inputRequests ?? {}), ["ok"])
      yield* mcp.updateTask(task, { ok: { action: "decline" } })
      assert.strictEqual(text(yield* mcp.getTaskResult(task)), "confirmed {\"ok\":{\"action\":\"decline\"}}")
    }))

  it.scopedLive("a failing handler keeps the answers already produced and is never asked twice", () =>
    Effect.gen(function*() {
      let elicited = 0
      let sampled = 0
      const { client: mcp, server } = yield* client({ tools, tasks: {}, era: "dual" }, {
        extensions: [TASKS],
        handlers: {
          elicitation: () => Effect.sync(() => (elicited++, { sure: true })),
          sampling: () =>
            sampled++ === 0
              ? Effect.fail(new Error("model offline"))
              : Effect.succeed({ role: "assistant", content: { type: "text", text: "fine" }, model: "m" })
        }
      })
      const task = yield* mcp.callToolAsTask("two", {})
      const error = yield* Effect.flip(mcp.waitForTask(task))
      assert.instanceOf(error, InputRequiredError)
      const updates = yield* server.requests("tasks/update")
      assert.deepStrictEqual(Object.keys(updates[0]!.params!.inputResponses as object), ["ok"])
      // A second wait asks only what is still unanswered.
      const done = yield* mcp.waitForTask(task)
      assert.strictEqual(text(done.result), "both answered")
      assert.deepStrictEqual([elicited, sampled], [1, 2])
    }))

  it.scoped("without the extension declared, task operations fail with CapabilityError; listTasks always does", () =>
    Effect.gen(function*() {
      const plain = yield* client({ tools, tasks: {}, era: "dual" })
      assert.instanceOf(yield* Effect.flip(plain.client.callToolAsTask("slow", {})), CapabilityError)
      assert.instanceOf(yield* Effect.flip(plain.client.getTask("task-1")), CapabilityError)
      const declared = yield* client({ tools, tasks: {}, era: "dual" }, { extensions: [TASKS] })
      const error = yield* Effect.flip(declared.client.listTasks({ server: "fake" }))
      assert.instanceOf(error, CapabilityError)
      assert.include(error.message, "2025-11-25")
    }))

  it.scopedLive("a server answering at once yields a completed handle with its result", () =>
    Effect.gen(function*() {
      const quick = FakeServer.tool("quick", () => Effect.succeed("now"))
      const { client: mcp } = yield* client({ tools: [quick], tasks: {}, era: "dual" }, { extensions: [TASKS] })
      const task = yield* mcp.callToolAsTask("quick", {})
      assert.isTrue(task.isCompleted)
      assert.strictEqual(text(task.result), "now")
    }))
})

describe("task handles", () => {
  it.scopedLive("once the server gives the id to a new task, old handles fail with TaskReplacedError", () =>
    Effect.gen(function*() {
      const { client: mcp, server } = yield* client({ tools, tasks: { reuseIds: true } })
      const old = yield* mcp.callToolAsTask("slow", { n: 1 })
      const replacement = yield* mcp.callToolAsTask("slow", { n: 2 })
      assert.strictEqual(old.taskId, replacement.taskId)
      const before = (yield* server.requests("tasks/get")).length
      assert.instanceOf(yield* Effect.flip(mcp.getTask(old)), TaskReplacedError)
      assert.instanceOf(yield* Effect.flip(mcp.waitForTask(old)), TaskReplacedError)
      assert.instanceOf(yield* Effect.flip(mcp.cancelTask(old)), TaskReplacedError)
      assert.strictEqual((yield* server.requests("tasks/get")).length, before, "nothing sent for the old handle")
      assert.strictEqual(text((yield* mcp.waitForTask(replacement)).result), "done {\"n\":2}")
    }))

  it.scopedLive("a serialized handle whose id now names a newer task fails with TaskReplacedError", () =>
    Effect.gen(function*() {
      const { client: mcp } = yield* client({ tools, tasks: { reuseIds: true } })
      const kept = JSON.parse(JSON.stringify(yield* mcp.callToolAsTask("slow", { n: 1 })))
      yield* mcp.callToolAsTask("slow", { n: 2 })
      const other = yield* client({ tools, tasks: {} })
      // Another client learns the current task first, then is handed the stale handle.
      const stale = Task.Task.fromJSON(kept)
      assert.instanceOf(yield* Effect.flip(mcp.getTask(stale)), TaskReplacedError)
      assert.instanceOf(yield* Effect.flip(other.client.getTask(stale)), ServerError, "unknown on another server")
    }))

  it.scopedLive("toJSON / fromJSON name the same task in another client, its tool definition kept", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools, tasks: {} })
      const first = yield* McpClient.make({ servers: [server.config({ name: "jobs" })] })
      const json = JSON.stringify(yield* first.callToolAsTask("slow", { n: 3 }))
      const second = yield* McpClient.make({ servers: [server.config({ name: "jobs" })] })
      const task = Task.Task.fromJSON(JSON.parse(json))
      assert.strictEqual(task.server, "jobs")
      assert.strictEqual(task.tool?.name, "slow")
      assert.strictEqual(text((yield* second.waitForTask(task)).result), "done {\"n\":3}")
      assert.throws(() => Task.Task.fromJSON({ nope: 1 }, "jobs"))
      assert.throws(() => Task.Task.fromJSON({ taskId: "t" }), /names no server/)
    }))

  it.scopedLive("a handle's result is validated against its tool; a bare id is not", () =>
    Effect.gen(function*() {
      const { client: mcp } = yield* client({ tools, tasks: {} }, {
        validateStructuredContent: "strict"
      })
      const task = yield* mcp.callToolAsTask("typed", {})
      const error = yield* Effect.flip(mcp.waitForTask(task))
      assert.instanceOf(error, ValidationError)
      const bare = yield* mcp.getTaskResult(task.taskId)
      assert.deepStrictEqual(bare.structuredContent, { n: "not a number" })
    }))

  it.scopedLive("a bare id with several servers and no server fails rather than guesses", () =>
    Effect.gen(function*() {
      const { client: mcp } = yield* client({ tools, tasks: {} }, {}, ["a", "b"])
      const task = yield* mcp.callToolAsTask("slow", {}, { server: "b" })
      const error = yield* Effect.flip(mcp.getTask(task.taskId))
      assert.instanceOf(error, AmbiguousServerError)
      assert.strictEqual((yield* mcp.getTask(task.taskId, { server: "b" })).taskId, task.taskId)
      assert.strictEqual((yield* mcp.getTask(task)).server, "b")
    }))
})

describe("an abandoned task-augmented call cancels its task", () => {
  /** A tool that requires a task and works for a long time. */
  const long = FakeServer.tool("long", () => Effect.as(Effect.sleep("30 seconds"), "late"), {
    execution: { taskSupport: "required" }
  })
  const eras = [
    { era: "2025-11-25", definition: {}, extra: {} },
    { era: "2026-07-28", definition: { era: "dual" as const }, extra: { extensions: [TASKS] } }
  ]

  /** Waits until the server has `count` requests of `method`. */
  const until = (server: FakeServer.FakeServer, method: string, count = 1) =>
    Effect.gen(function*() {
      while ((yield* server.requests(method)).length < count) yield* Effect.sleep("10 millis")
    }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`no ${method}`) }))

  for (const { definition, era, extra } of eras) {
    it.scopedLive(`${era}: interrupting callTool sends tasks/cancel for its task, never notifications/cancelled`, () =>
      Effect.gen(function*() {
        const { client: mcp, server } = yield* client({ tools: [long], tasks: {}, ...definition }, extra)
        const call = yield* Effect.fork(mcp.callTool("long", {}))
        yield* until(server, "tasks/get")
        yield* Fiber.interrupt(call)
        yield* until(server, "tasks/cancel")
        const [cancel] = yield* server.requests("tasks/cancel")
        const [created] = yield* server.requests("tasks/get")
        assert.strictEqual(cancel!.params!.taskId, created!.params!.taskId)
        const [call0] = yield* server.requests("tools/call")
        const cancelled = yield* server.requests("notifications/cancelled")
        assert.isFalse(cancelled.some((n) => n.params?.requestId === call0!.id), "the task's call is not cancelled so")
      }))

    it.scopedLive(`${era}: a call whose task outlives its TTL fails with RequestTimeoutError and cancels it`, () =>
      Effect.gen(function*() {
        const { client: mcp, server } = yield* client({ tools: [long], tasks: { ttlMs: 300 }, ...definition }, extra)
        const error = yield* Effect.flip(mcp.callTool("long", {}))
        assert.strictEqual(error._tag, "RequestTimeoutError")
        yield* until(server, "tasks/cancel")
      }))
  }

  it.scopedLive("a call that ends by itself sends no tasks/cancel", () =>
    Effect.gen(function*() {
      const quickTask = FakeServer.tool("quickTask", () => Effect.as(Effect.sleep("50 millis"), "ok"), {
        execution: { taskSupport: "required" }
      })
      const { client: mcp, server } = yield* client({ tools: [quickTask], tasks: {} })
      assert.strictEqual(text(yield* mcp.callTool("quickTask", {})), "ok")
      yield* Effect.sleep("50 millis")
      assert.deepStrictEqual(yield* server.requests("tasks/cancel"), [])
    }))
})
