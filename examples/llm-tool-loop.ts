/**
 * An LLM tool loop in a provider's own wire format — `openai`, `anthropic` or `gemini` (the
 * first argument): the demo server's tools go to the model (`toOpenAITools`, …), each tool call
 * the model asks for is made on the server, and its result goes back until the model answers.
 *
 * With `RUN_AI=1` and the provider's key (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
 * `GEMINI_API_KEY`) it talks to the real API; otherwise a scripted model answers in the same
 * format (it asks for `add`, then reads the result), so the loop runs offline.
 *
 * @since 0.1.0
 */
import type { Client } from "@mcp-effect/node/Connect"
import { connect } from "@mcp-effect/node/Connect"
import { demoServer } from "./shared.js"

// Provider JSON is read loosely here: each format has its own SDK types for real code.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

interface ToolCall {
  readonly id: string
  readonly name: string
  readonly args: Record<string, unknown>
}

/** One provider: its request, how its answer names tool calls, how results go back. */
interface Provider {
  readonly key: string
  readonly tools: (client: Client) => Promise<ReadonlyArray<unknown>>
  readonly request: (messages: Array<Json>, tools: ReadonlyArray<unknown>) => { url: string; headers: Json; body: Json }
  readonly first: (question: string) => Array<Json>
  /** The tool calls of an answer (none: the model is done), its text, and the message to keep. */
  readonly read: (answer: Json) => { calls: ReadonlyArray<ToolCall>; text: string; message: Json }
  readonly results: (calls: ReadonlyArray<ToolCall>, texts: ReadonlyArray<string>) => Array<Json>
  /** What the scripted model answers in this format: a tool call first, then text. */
  readonly scripted: (body: Json) => Json
}

/** Whether the last message carries tool results (the scripted model then answers). */
const asked = (last: Json) => /tool_call_id|tool_result|functionResponse/.test(JSON.stringify(last))

const providers: Record<string, Provider> = {
  openai: {
    key: "OPENAI_API_KEY",
    tools: (client) => client.toOpenAITools(),
    request: (messages, tools) => ({
      url: "https://api.openai.com/v1/chat/completions",
      headers: { authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
      body: { model: process.env.OPENAI_MODEL ?? "gpt-4o-mini", messages, tools }
    }),
    first: (question) => [{ role: "user", content: question }],
    read: (answer) => {
      const message = answer.choices[0].message
      const calls = (message.tool_calls ?? []).map((c: Json) => ({
        id: c.id,
        name: c.function.name,
        args: JSON.parse(c.function.arguments)
      }))
      return { calls, text: message.content ?? "", message }
    },
    results: (calls, texts) => calls.map((c, i) => ({ role: "tool", tool_call_id: c.id, content: texts[i] })),
    scripted: (body) => ({
      choices: [{
        message: asked(body.messages.at(-1))
          ? { role: "assistant", content: "2 + 3 = 5" }
          : {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call-1", type: "function", function: { name: "add", arguments: "{\"a\":2,\"b\":3}" } }]
          }
      }]
    })
  },
  anthropic: {
    key: "ANTHROPIC_API_KEY",
    tools: (client) => client.toAnthropicTools(),
    request: (messages, tools) => ({
      url: "https://api.anthropic.com/v1/messages",
      headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "anthropic-version": "2023-06-01" },
      body: { model: process.env.ANTHROPIC_MODEL ?? "claude-3-5-haiku-latest", max_tokens: 512, messages, tools }
    }),
    first: (question) => [{ role: "user", content: question }],
    read: (answer) => ({
      calls: answer.content.filter((b: Json) => b.type === "tool_use").map((b: Json) => ({
        id: b.id,
        name: b.name,
        args: b.input
      })),
      text: answer.content.filter((b: Json) => b.type === "text").map((b: Json) => b.text).join(""),
      message: { role: "assistant", content: answer.content }
    }),
    results: (calls, texts) => [{
      role: "user",
      content: calls.map((c, i) => ({ type: "tool_result", tool_use_id: c.id, content: texts[i] }))
    }],
    scripted: (body) => ({
      content: asked(body.messages.at(-1))
        ? [{ type: "text", text: "2 + 3 = 5" }]
        : [{ type: "tool_use", id: "toolu-1", name: "add", input: { a: 2, b: 3 } }]
    })
  },
  gemini: {
    key: "GEMINI_API_KEY",
    tools: (client) => client.toGoogleTools(),
    request: (contents, tools) => ({
      url: `https://generativelanguage.googleapis.com/v1beta/models/${
        process.env.GEMINI_MODEL ?? "gemini-2.0-flash"
      }:generateContent`,
      headers: { "x-goog-api-key": process.env.GEMINI_API_KEY },
      body: { contents, tools: [{ functionDeclarations: tools }] }
    }),
    first: (question) => [{ role: "user", parts: [{ text: question }] }],
    read: (answer) => {
      const content = answer.candidates[0].content
      return {
        calls: content.parts.filter((p: Json) => p.functionCall !== undefined).map((p: Json, i: number) => ({
          id: `call-${i}`,
          name: p.functionCall.name,
          args: p.functionCall.args ?? {}
        })),
        text: content.parts.filter((p: Json) => typeof p.text === "string").map((p: Json) => p.text).join(""),
        message: content
      }
    },
    results: (calls, texts) => [{
      role: "user",
      parts: calls.map((c, i) => ({ functionResponse: { name: c.name, response: { content: texts[i] } } }))
    }],
    scripted: (body) => ({
      candidates: [{
        content: asked(body.contents.at(-1))
          ? { role: "model", parts: [{ text: "2 + 3 = 5" }] }
          : { role: "model", parts: [{ functionCall: { name: "add", args: { a: 2, b: 3 } } }] }
      }]
    })
  }
}

const main = async () => {
  const name = process.argv[2] ?? "openai"
  const provider = providers[name]
  if (provider === undefined) throw new Error(`unknown provider ${name}: openai, anthropic or gemini`)
  const live = process.env.RUN_AI === "1" && process.env[provider.key] !== undefined
  const model = async (messages: Array<Json>, tools: ReadonlyArray<unknown>): Promise<Json> => {
    const { body, headers, url } = provider.request(messages, tools)
    if (!live) return provider.scripted(body)
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`)
    return (await response.json()) as Json
  }
  console.log(`model: ${live ? `${name} (live)` : `scripted, ${name} format`}`)
  await using client = await connect([...demoServer], { name: "demo" })
  const tools = await provider.tools(client)
  const messages = provider.first("What is 2 + 3? Use the add tool.")
  for (let round = 0; round < 5; round++) {
    const { calls, message, text } = provider.read(await model(messages, tools))
    messages.push(message)
    if (calls.length === 0) {
      console.log(`answer: ${text}`)
      return
    }
    const texts: Array<string> = []
    for (const call of calls) {
      console.log(`model calls ${call.name} ${JSON.stringify(call.args)}`)
      const result = await client.callTool(call.name, call.args)
      texts.push(result.content.map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n"))
    }
    messages.push(...provider.results(calls, texts))
  }
  throw new Error("the model did not answer within 5 rounds")
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
