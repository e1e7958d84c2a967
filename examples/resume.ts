/**
 * Resume after a restart: a host saves a task handle and a pending input_required round in a
 * file KeyValueStore; a new client (standing for the restarted process) loads them and finishes
 * both calls. See docs/resume.md.
 *
 * @since 0.2.0
 */
import * as NodeKeyValueStore from "@effect/platform-node/NodeKeyValueStore"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Resume from "@mcp-effect/client/Resume"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A report that takes a moment. */
const report = FakeServer.tool(
  "report",
  (args) => Effect.as(Effect.sleep("200 millis"), `report on ${String(args.topic)}`),
  { execution: { taskSupport: "optional" } }
)

/** Asks before it publishes, keeping its own state in requestState (2026-07-28). */
const publish = FakeServer.tool("publish", (args, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: { ok: { method: "elicitation/create", params: { message: `Publish ${String(args.what)}?` } } },
        requestState: `publish:${String(args.what)}`
      }
      : `published ${String(args.what)} (${context.requestState}): ${JSON.stringify(context.inputResponses.ok)}`
  ))

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ tools: [report, publish], tasks: {}, era: "dual" })
  const store = yield* KeyValueStore.KeyValueStore
  const options = { servers: [server.config({ name: "jobs" })], extensions: ["io.modelcontextprotocol/tasks"] }

  // Before the restart: no one to ask, so the round stops; the task is left running.
  const before = yield* McpClient.make(options)
  const task = yield* before.callToolAsTask("report", { topic: "tides" })
  yield* Resume.save(store, "report", Resume.fromTask(task, { era: before.servers[0]!.negotiated()?.era }))
  const stopped = yield* Effect.flip(before.callTool("publish", { what: "the report" }))
  if (stopped._tag === "InputRequiredError") {
    yield* Resume.save(store, "publish", Resume.fromInputRequired(stopped))
  }
  yield* Console.log(`saved: ${task.taskId} (${task.status}), and a ${stopped._tag}`)

  // After it: a new client with a handler picks both up.
  const after = yield* McpClient.make({
    ...options,
    handlers: { elicitation: () => Effect.succeed({ approved: true }) }
  })
  const savedTask = yield* Resume.load(store, "report")
  if (Option.isSome(savedTask) && savedTask.value.kind === "task") {
    const result = yield* after.resumeTask(savedTask.value, { timeout: "10 seconds" })
    yield* Console.log(`task resumed: ${JSON.stringify(result.content)}`)
  }
  const savedRound = yield* Resume.load(store, "publish")
  if (Option.isSome(savedRound) && savedRound.value.kind === "input_required") {
    const result = yield* after.resumeInputRequired(savedRound.value)
    yield* Console.log(`round resumed: ${JSON.stringify((result as { content: unknown }).content)}`)
  }
  yield* Resume.remove(store, "report")
  yield* Resume.remove(store, "publish")
})

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-resume-"))
Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(NodeKeyValueStore.layerFileSystem(dir))))
  .then(() => fs.rmSync(dir, { recursive: true, force: true }))
  .catch((error) => {
    console.error(error)
    process.exit(1)
  })
