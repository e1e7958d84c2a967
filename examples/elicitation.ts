/**
 * An elicitation handler: the server asks the user for a form mid-call (2026-07-28: an
 * `input_required` result), the host answers, and the call completes with the answer.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** A tool that needs a date from the user before it books anything. */
const book = FakeServer.tool("book", (_, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: {
          date: {
            method: "elicitation/create",
            params: {
              message: "Which date?",
              requestedSchema: { type: "object", properties: { date: { type: "string" } }, required: ["date"] }
            }
          }
        }
      }
      : `booked for ${(context.inputResponses.date as { content: { date: string } }).content.date}`
  ))

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ era: "modern", tools: [book] })
  const client = yield* McpClient.make({
    servers: [server.config({ name: "travel" })],
    handlers: {
      // A real host shows a form; this one answers at once.
      elicitation: (params) =>
        Effect.as(Console.log(`elicitation: the server asks ${JSON.stringify(params.message)}`), {
          action: "accept",
          content: { date: "2026-08-01" }
        })
    }
  })
  const result = yield* client.callTool("book")
  yield* Console.log(`result: ${(result.content[0] as { text: string }).text}`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
