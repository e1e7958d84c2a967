import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { connect } from "@mcp-effect/node/Connect"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import { generateText, isStepCount } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as AiSdkTools from "../src/AiSdkTools.js"
import { McpToolError } from "../src/McpToolError.js"
import { add, addSchema, fail } from "./utils/fixtures.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const fakeServerBin = path.join(root, "packages/testing/bundle/fake-server.js")

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 }
}

const callsTool = (name: string, input: unknown) => ({
  content: [{ type: "tool-call" as const, toolCallId: "call-1", toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls" as const, raw: undefined },
  usage,
  warnings: []
})

const answers = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: undefined },
  usage,
  warnings: []
})

/** A mock model that calls `name` once, then answers with the tool output it was given. */
const oneToolCall = (name: string, input: unknown) => {
  let calls = 0
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      calls++
      if (calls === 1) return callsTool(name, input)
      const last = options.prompt.at(-1)
      const part = last?.role === "tool" ? last.content[0] : undefined
      return answers(part?.type === "tool-result" ? JSON.stringify(part.output) : "no tool result")
    }
  })
}

const clientFor = (definition: FakeServer.Definition) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
    const tools = yield* AiSdkTools.make().pipe(Effect.provideService(McpClient.McpClient, client))
    return { server, client, tools }
  })

describe("AiSdkTools", () => {
  it.scoped("generateText runs one tool round-trip: the mock model calls an MCP tool and answers", () =>
    Effect.gen(function*() {
      const { server, tools } = yield* clientFor({ tools: [add] })
      const model = oneToolCall("add", { a: 2, b: 40 })
      const result = yield* Effect.promise(() =>
        generateText({ model, tools, prompt: "What is 2 + 40?", stopWhen: isStepCount(3) })
      )
      assert.strictEqual(result.text, "{\"type\":\"json\",\"value\":{\"sum\":42}}")
      assert.strictEqual(result.steps.length, 2)
      // The model was offered the tool with its inputSchema, unchanged.
      const offered = model.doGenerateCalls[0]!.tools ?? []
      assert.deepStrictEqual(
        offered.map((t): Array<unknown> => t.type === "function" ? [t.name, t.description, t.inputSchema] : [t.type]),
        [["add", "Adds a and b", addSchema]]
      )
      // The step's tool result is the whole CallToolResult, marked dynamic.
      const [toolResult] = result.steps[0]!.toolResults
      assert.isTrue(toolResult!.dynamic)
      assert.deepStrictEqual(toolResult!.output, {
        content: [{ type: "text", text: "42" }],
        structuredContent: { sum: 42 }
      })
      const calls = yield* server.requests("tools/call")
      assert.deepStrictEqual(calls.map((c) => [c.params?.name, c.params?.arguments]), [["add", { a: 2, b: 40 }]])
    }))

  it.scoped("an isError result is a tool error the model is told about", () =>
    Effect.gen(function*() {
      const { tools } = yield* clientFor({ tools: [fail] })
      const result = yield* Effect.promise(() =>
        generateText({ model: oneToolCall("fail", {}), tools, prompt: "Divide 1 by 0", stopWhen: isStepCount(3) })
      )
      // The AI SDK shows the model the error's toString().
      assert.strictEqual(result.text, "{\"type\":\"error-text\",\"value\":\"McpToolError: division by zero\"}")
      const [error] = result.steps[0]!.content.filter((part) => part.type === "tool-error")
      assert.instanceOf(error?.error, McpToolError)
      assert.strictEqual((error!.error as McpToolError).result?.isError, true)
    }))

  it.scoped("the abort signal interrupts the call: the server gets notifications/cancelled", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const { server, tools } = yield* clientFor({
        tools: [FakeServer.tool("hang", () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))]
      })
      const controller = new AbortController()
      const generation = generateText({
        model: oneToolCall("hang", {}),
        tools,
        prompt: "wait",
        stopWhen: isStepCount(3),
        abortSignal: controller.signal
      })
      yield* Deferred.await(started)
      controller.abort()
      const outcome = yield* Effect.either(Effect.tryPromise(() => generation))
      assert.strictEqual(outcome._tag, "Left")
      const [call] = yield* server.requests("tools/call")
      const cancelled = yield* Effect.repeat(server.requests("notifications/cancelled"), {
        until: (received) => received.length > 0
      })
      assert.deepStrictEqual(cancelled.map((c) => c.params?.requestId), [call!.id])
    }))

  it("toAiSdkTools: the Promise facade's tools through a tool round-trip, over stdio", async () => {
    const client = await connect([process.execPath, fakeServerBin].map((part) => JSON.stringify(part)).join(" "))
    try {
      const tools = await AiSdkTools.toAiSdkTools(client, { filter: (tool) => tool.name === "add" })
      assert.deepStrictEqual(Object.keys(tools), ["add"])
      const result = await generateText({
        model: oneToolCall("add", { a: 20, b: 22 }),
        tools,
        prompt: "What is 20 + 22?",
        stopWhen: isStepCount(3)
      })
      assert.strictEqual(result.text, "{\"type\":\"json\",\"value\":{\"sum\":42}}")
    } finally {
      await client.close()
    }
  })

  it.scoped("a long name with dots and spaces: a valid name for the model, the original on the wire", () =>
    Effect.gen(function*() {
      const long = "files.read a file from the workspace by its path, with line numbers and much more text"
      const server = yield* FakeServer.make({ tools: [add, FakeServer.tool(long, () => Effect.succeed("read"))] })
      const other = yield* FakeServer.make({ tools: [add] })
      const client = yield* McpClient.make({
        servers: [other.config({ name: "other" }), { ...server.config({ name: "files" }), toolNames: { add: "plus" } }],
        toolCollisions: "error"
      })
      const tools = yield* AiSdkTools.make().pipe(Effect.provideService(McpClient.McpClient, client))
      const names = Object.keys(tools)
      for (const name of names) assert.match(name, /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/)
      assert.deepStrictEqual(names.slice(0, 2), ["add", "plus"])
      const result = yield* Effect.promise(() =>
        generateText({ model: oneToolCall(names[2]!, {}), tools, stopWhen: isStepCount(3), prompt: "read" })
      )
      assert.include(result.text, "read")
      assert.deepStrictEqual((yield* server.requests("tools/call")).map((c) => c.params?.name), [long])
      assert.deepStrictEqual(yield* other.requests("tools/call"), [])
      assert.deepStrictEqual(tools[names[2]!]!.metadata, { mcpServer: "files", mcpTool: long })
    }))

  it("toAiSdkTools: an aborted execution rejects at once and hands the signal to callTool", async () => {
    const seen: Array<AbortSignal | undefined> = []
    const client: AiSdkTools.PromiseClient = {
      listTools: async () => [{ ...add.tool, server: "math" }],
      callTool: (_name, _args, options) => {
        seen.push(options?.signal)
        return new Promise(() => {})
      }
    }
    const tools = await AiSdkTools.toAiSdkTools(client)
    const controller = new AbortController()
    const execution = tools.add!.execute!({ a: 1, b: 2 }, {
      toolCallId: "call-1",
      messages: [],
      abortSignal: controller.signal,
      context: {}
    })
    controller.abort(new Error("stop"))
    const error = await Promise.resolve(execution).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Error)
    assert.strictEqual((error as Error).message, "stop")
    assert.deepStrictEqual(seen, [controller.signal])
  })

  it("toModelOutput: structured content as JSON, text as text, images and audio as files", () => {
    assert.deepStrictEqual(
      AiSdkTools.toModelOutput({ content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } }),
      { type: "json", value: { sum: 3 } }
    )
    assert.deepStrictEqual(
      AiSdkTools.toModelOutput({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }),
      { type: "text", value: "a\nb" }
    )
    assert.deepStrictEqual(
      AiSdkTools.toModelOutput({
        content: [{ type: "text", text: "a pixel" }, { type: "image", data: "AAAA", mimeType: "image/png" }]
      }),
      {
        type: "content",
        value: [
          { type: "text", text: "a pixel" },
          { type: "file", data: { type: "data", data: "AAAA" }, mediaType: "image/png" }
        ]
      }
    )
  })
})
