/**
 * MCP tools for the Vercel AI SDK: the Promise facade's tools as a `ToolSet` of dynamic tools,
 * then `generateText` with a tool loop. The model is the AI SDK's own mock (`ai/test`), so the
 * example runs offline; a host passes a real one instead (e.g. `openai("gpt-4o")`).
 *
 * @since 0.1.0
 */
import { toAiSdkTools } from "@mcp-effect/ai/AiSdkTools"
import { connect } from "@mcp-effect/node/Connect"
import { generateText, isStepCount } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { demoServer } from "./shared.js"

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 }
}

/** A stand-in model: asks for `add` once, then answers with what the tool returned. */
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt, tools }) => {
    const last = prompt.at(-1)
    if (last?.role !== "tool") {
      console.log(`model sees tools: ${(tools ?? []).map((t) => t.name).join(", ")}`)
      return {
        content: [{ type: "tool-call", toolCallId: "call-1", toolName: "add", input: JSON.stringify({ a: 2, b: 40 }) }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: []
      }
    }
    const part = last.content[0]
    const output = part?.type === "tool-result" ? part.output : undefined
    console.log(`model reads: ${JSON.stringify(output)}`)
    const sum = output?.type === "json" ? (output.value as { sum: number }).sum : "?"
    return {
      content: [{ type: "text", text: `2 + 40 = ${sum}` }],
      finishReason: { unified: "stop", raw: undefined },
      usage,
      warnings: []
    }
  }
})

const main = async () => {
  const client = await connect(demoServer.map((part) => JSON.stringify(part)).join(" "))
  try {
    // Read again for each conversation to follow list changes (the client caches the list).
    const tools = await toAiSdkTools(client, { filter: (tool) => tool.name !== "crash" })
    const controller = new AbortController()
    const result = await generateText({
      model,
      tools,
      prompt: "What is 2 + 40?",
      stopWhen: isStepCount(5),
      // Aborting ends the generation and the tool call in progress.
      abortSignal: controller.signal
    })
    for (const step of result.steps) {
      for (const call of step.toolCalls) console.log(`step called ${call.toolName} ${JSON.stringify(call.input)}`)
    }
    console.log(`answer: ${result.text}`)
  } finally {
    await client.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
