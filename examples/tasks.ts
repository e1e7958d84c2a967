/**
 * Tasks: start a long tool as a task, keep its handle, pick it up in another client, and let
 * `waitForTask` answer the server's question through the elicitation handler.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Task from "@mcp-effect/client/Task"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** A report that takes a moment and asks before it publishes (2026-07-28 input request). */
const report = FakeServer.tool("report", (args, context) =>
  Effect.as(
    Effect.sleep("200 millis"),
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: { publish: { method: "elicitation/create", params: { message: "Publish the report?" } } }
      }
      : `report on ${String(args.topic)}: ${JSON.stringify(context.inputResponses.publish)}`
  ), { execution: { taskSupport: "optional" } })

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ tools: [report], tasks: { pollIntervalMs: 100 }, era: "dual" })
  const options = {
    servers: [server.config({ name: "jobs" })],
    extensions: ["io.modelcontextprotocol/tasks"],
    handlers: { elicitation: () => Effect.succeed({ publish: true }) }
  }
  const first = yield* McpClient.make(options)
  const task = yield* first.callToolAsTask("report", { topic: "tides" })
  yield* Console.log(`started ${task.taskId} on ${task.server}: ${task.status}`)
  // What a host would persist, and pick up again in another client (or process).
  const saved = JSON.stringify(task)
  const second = yield* McpClient.make(options)
  const done = yield* second.waitForTask(Task.Task.fromJSON(JSON.parse(saved)), { timeout: "10 seconds" })
  yield* Console.log(`${done.status}: ${JSON.stringify(done.result?.content)}`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
