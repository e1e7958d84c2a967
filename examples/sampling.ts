/**
 * A sampling handler: the server asks the host's model for a completion mid-call. Sampling is
 * deprecated by 2026-07-28 (the client warns once when the handler meets such a server).
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const summarize = FakeServer.tool("summarize", (args, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? {
        resultType: "input_required" as const,
        inputRequests: {
          llm: {
            method: "sampling/createMessage",
            params: {
              messages: [{ role: "user", content: { type: "text", text: `Summarize: ${String(args.text)}` } }],
              maxTokens: 100
            }
          }
        }
      }
      : `summary: ${(context.inputResponses.llm as { content: { text: string } }).content.text}`
  ))

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ era: "modern", tools: [summarize] })
  const client = yield* McpClient.make({
    servers: [server.config({ name: "writer" })],
    handlers: {
      // A real host calls its model here (and asks the user first).
      sampling: (params) =>
        Effect.as(
          Console.log(
            `sampling: ${(params.messages as ReadonlyArray<unknown>).length} message(s), maxTokens ${
              String(params.maxTokens)
            }`
          ),
          { role: "assistant", content: { type: "text", text: "MCP connects models to tools." }, model: "scripted" }
        )
    }
  })
  const result = yield* client.callTool("summarize", { text: "The Model Context Protocol ..." })
  yield* Console.log((result.content[0] as { text: string }).text)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
