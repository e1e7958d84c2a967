/**
 * MCP tools for an `@effect/ai` model: the demo server's tools become a toolkit, and a tool
 * loop runs until the model stops asking for tools. The model here is scripted, so the example
 * runs offline; a host provides a real one instead (e.g. `OpenAiLanguageModel.model("gpt-4o")`
 * from `@effect/ai-openai`).
 *
 * @since 0.1.0
 */
import * as Chat from "@effect/ai/Chat"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import * as McpToolkit from "@mcp-effect/ai/McpToolkit"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { demoServer } from "./shared.js"

const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

/** A stand-in model: asks for `add`, then for `fail`, then answers from what the tools said. */
const ScriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync((): Array<Response.PartEncoded> => {
        const last = options.prompt.content.at(-1)
        const results = last?.role === "tool" ? last.content : []
        const said = results.map((r) => `${r.name} ${r.isFailure ? "failed" : "said"} ${JSON.stringify(r.result)}`)
        const asked = options.prompt.content.filter((m) => m.role === "tool").length
        if (asked === 0) {
          console.log(`model sees tools: ${options.tools.map((t) => t.name).join(", ")}`)
          return [
            { type: "tool-call", id: "call-1", name: "add", params: { a: 2, b: 40 } },
            { type: "finish", reason: "tool-calls", usage }
          ]
        }
        if (asked === 1) {
          console.log(`model reads: ${said.join("; ")}`)
          return [
            { type: "tool-call", id: "call-2", name: "fail", params: {} },
            { type: "finish", reason: "tool-calls", usage }
          ]
        }
        console.log(`model reads: ${said.join("; ")}`)
        return [{ type: "text", text: "2 + 40 = 42, and the fail tool failed." }, {
          type: "finish",
          reason: "stop",
          usage
        }]
      }),
    streamText: () => Stream.die("not scripted")
  })
)

const program = Effect.gen(function*() {
  // The toolkit is an effect: passed as is, each call lists the tools again (from the client's
  // cache, dropped when the server announces `notifications/tools/list_changed`).
  const toolkit = McpToolkit.make({ filter: (tool) => tool.name !== "crash" })
  const chat = yield* Chat.empty
  let response = yield* chat.generateText({ prompt: "What is 2 + 40? Then try the fail tool.", toolkit })
  for (let step = 1; response.toolCalls.length > 0 && step < 5; step++) {
    for (const result of response.toolResults) {
      yield* Console.log(`${result.name} → ${result.isFailure ? "tool failure" : "ok"}`)
    }
    response = yield* chat.generateText({ prompt: [], toolkit })
  }
  yield* Console.log(`answer: ${response.text}`)
})

const [command, ...args] = demoServer
program.pipe(
  Effect.provide(ScriptedModel),
  Effect.provide(NodeMcpClient.layer({ servers: [Stdio.config({ name: "demo", command: command!, args })] })),
  Effect.runPromise
).catch((error) => {
  console.error(error)
  process.exit(1)
})
