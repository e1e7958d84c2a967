/**
 * Testing host code with an in-memory fake server: no process, no network.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({
    tools: [FakeServer.tool("shout", (args) => Effect.succeed(String(args.text).toUpperCase()))],
    faults: [{ method: "tools/call", action: "error", code: -32000, message: "first call fails", times: 1 }]
  })
  const client = yield* McpClient.make({ servers: [server.config({ name: "fake" })] })
  const first = yield* Effect.either(client.callTool("shout", { text: "hi" }))
  yield* Console.log(`first call: ${first._tag === "Left" ? first.left._tag : "ok"}`)
  const second = yield* client.callTool("shout", { text: "hi" })
  yield* Console.log(`second call: ${JSON.stringify(second.content)}`)
  const calls = yield* server.requests("tools/call")
  yield* Console.log(`the server saw ${calls.length} calls`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
