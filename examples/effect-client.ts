/**
 * The Effect API: a client layer for one stdio server, then tools, prompts and resources.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { demoServer } from "./shared.js"

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools()
  yield* Console.log(`tools: ${tools.map((t) => t.name).join(", ")}`)

  const sum = yield* client.callTool("add", { a: 2, b: 40 })
  yield* Console.log(`add → ${JSON.stringify(sum.structuredContent)}`)

  yield* client.callTool("progress", { steps: 3, delayMs: 5 }, {
    onProgress: (p) => console.log(`progress ${p.progress}/${p.total}`)
  })

  const prompt = yield* client.getPrompt("greeting", { name: "Grace" })
  yield* Console.log(`prompt → ${JSON.stringify(prompt.messages[0]!.content)}`)

  // Typed errors: recover by tag.
  const missing = yield* client.callTool("no-such-tool", {}, { timeout: "5 seconds" }).pipe(
    Effect.catchTag("ServerError", (error) => Effect.succeed(`ServerError ${error.code}: ${error.message}`))
  )
  yield* Console.log(`missing tool → ${String(missing)}`)
})

const [command, ...args] = demoServer
program.pipe(
  Effect.provide(NodeMcpClient.layer({ servers: [Stdio.config({ name: "demo", command: command!, args })] })),
  Effect.runPromise
).catch((error) => {
  console.error(error)
  process.exit(1)
})
