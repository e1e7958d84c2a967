/**
 * The deferred mode of both bridges (issue #36, point 4): a host with 500 tools gives the model
 * one search tool; a search loads its matches, which the model can call from the next step on,
 * and the call reaches the server that offers the tool. Also the result limits applied by the
 * bridges before the model sees a result (point 3).
 */
import * as Chat from "@effect/ai/Chat"
import type * as Toolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import { generateText, isStepCount } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import * as Effect from "effect/Effect"
import * as AiSdkTools from "../src/AiSdkTools.js"
import * as McpToolkit from "../src/McpToolkit.js"
import * as ScriptedModel from "./utils/scriptedModel.js"

/** 250 filler tools per server, and one tool each that a search should find. */
const fillers = (prefix: string) =>
  Array.from({ length: 249 }, (_, i) =>
    FakeServer.tool(`${prefix}_metric_${i}`, () => Effect.succeed("filler"), {
      description: `Reads metric number ${i} of the ${prefix} dashboard`
    }))

const createIssue = FakeServer.tool(
  "create_issue",
  (args) => Effect.succeed(`created issue "${String(args.title)}"`),
  { description: "Create a new issue in a GitHub repository" }
)
const queryLogs = FakeServer.tool("query_logs", () => Effect.succeed("x".repeat(500)), {
  description: "Query the logs"
})

/** Two servers of 250 tools each: 500 in all. */
const hostOf = Effect.gen(function*() {
  const github = yield* FakeServer.make({ tools: [...fillers("github"), createIssue] })
  const ops = yield* FakeServer.make({ tools: [...fillers("ops"), queryLogs] })
  const client = yield* McpClient.make({ servers: [github.config({ name: "github" }), ops.config({ name: "ops" })] })
  assert.strictEqual((yield* client.listTools()).length, 500)
  return { github, ops, client }
})

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 }
}

type Content = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>["content"]

const step = (content: Content, finish: "tool-calls" | "stop") => ({
  content,
  finishReason: { unified: finish, raw: undefined },
  usage,
  warnings: []
})

const toolCall = (id: string, name: string, input: unknown) => ({
  type: "tool-call" as const,
  toolCallId: id,
  toolName: name,
  input: JSON.stringify(input)
})

const offeredNames = (call: MockLanguageModelV4["doGenerateCalls"][number]) =>
  (call.tools ?? []).map((t) => t.type === "function" ? t.name : t.type)

describe("deferred mode: AI SDK", () => {
  it.scoped("only the search tool is offered at first; a found tool is callable on the next step", () =>
    Effect.gen(function*() {
      const { client, github, ops } = yield* hostOf
      const deferred = yield* AiSdkTools.deferred().pipe(Effect.provideService(McpClient.McpClient, client))
      assert.strictEqual(Object.keys(deferred.tools).length, 501)
      const model = new MockLanguageModelV4({
        doGenerate: async (options) => {
          const number = model.doGenerateCalls.length
          if (number === 1) {
            return step([toolCall("s1", "search_tools", { query: "create issue", limit: 3 })], "tool-calls")
          }
          if (number === 2) return step([toolCall("c1", "create_issue", { title: "crash" })], "tool-calls")
          const last = options.prompt.at(-1)
          const part = last?.role === "tool" ? last.content[0] : undefined
          return step(
            [{ type: "text", text: part?.type === "tool-result" ? JSON.stringify(part.output) : "none" }],
            "stop"
          )
        }
      })
      const result = yield* Effect.promise(() =>
        generateText({
          model,
          tools: deferred.tools,
          prepareStep: deferred.prepareStep,
          stopWhen: isStepCount(5),
          prompt: "File an issue about the crash"
        })
      )
      assert.deepStrictEqual(offeredNames(model.doGenerateCalls[0]!), ["search_tools"])
      const second = offeredNames(model.doGenerateCalls[1]!)
      assert.strictEqual(second[0], "search_tools")
      assert.include(second, "create_issue")
      assert.isAtMost(second.length, 4)
      // The search told the model what it found.
      const searched = result.steps[0]!.toolResults[0]!.output as { readonly tools: ReadonlyArray<{ name: string }> }
      assert.strictEqual(searched.tools[0]!.name, "create_issue")
      assert.include(deferred.loaded(), "create_issue")
      // The call reached the server that offers the tool, and only it.
      const calls = yield* github.requests("tools/call")
      assert.deepStrictEqual(calls.map((c) => [c.params?.name, c.params?.arguments]), [["create_issue", {
        title: "crash"
      }]])
      assert.strictEqual((yield* ops.requests("tools/call")).length, 0)
      assert.include(result.text, "created issue")
    }))

  it.scoped("toAiSdkToolsDeferred over a Promise client; a search that finds nothing loads nothing", () =>
    Effect.gen(function*() {
      const { client } = yield* hostOf
      const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
      const deferred = yield* Effect.promise(() =>
        AiSdkTools.toAiSdkToolsDeferred({
          listTools: (o) => run(client.listTools(o)),
          searchTools: (query, o) => run(client.searchTools(query, o)),
          callTool: (name, args, o) => run(client.callTool(name, args, o))
        }, { searchToolName: "find_tools" })
      )
      assert.deepStrictEqual(deferred.activeTools(), ["find_tools"])
      const execute = deferred.tools.find_tools!.execute!
      const none = yield* Effect.promise(() =>
        Promise.resolve(execute({ query: "kubernetes" }, { toolCallId: "1", messages: [] } as never))
      )
      assert.deepStrictEqual((none as { readonly tools: ReadonlyArray<unknown> }).tools, [])
      const found = yield* Effect.promise(() =>
        Promise.resolve(execute({ query: "logs" }, { toolCallId: "2", messages: [] } as never))
      )
      assert.deepStrictEqual((found as { readonly tools: ReadonlyArray<{ name: string }> }).tools.map((t) => t.name), [
        "query_logs"
      ])
      assert.deepStrictEqual(deferred.prepareStep(), { activeTools: ["find_tools", "query_logs"] })
    }))

  it.scoped("the bridge's result limits cut a result before the model sees it", () =>
    Effect.gen(function*() {
      const { client } = yield* hostOf
      const tools = yield* AiSdkTools.make({ server: "ops", maxResultChars: 10 }).pipe(
        Effect.provideService(McpClient.McpClient, client)
      )
      const output = yield* Effect.promise(() =>
        Promise.resolve(tools.query_logs!.execute!({}, { toolCallId: "1", messages: [] } as never))
      )
      const modelOutput = AiSdkTools.toModelOutput(output as never)
      assert.deepStrictEqual(modelOutput, {
        type: "text",
        value: `${"x".repeat(10)}\n[… 490 more characters cut by mcp-effect: maxResultChars=10]`
      })
    }))
})

/** The tool loop of a host: call the model until it stops asking for tools. */
const toolLoop = <E, R>(
  prompt: string,
  toolkit: Effect.Effect<Toolkit.WithHandler<McpToolkit.DeferredToolset>, E, R>
) =>
  Effect.gen(function*() {
    const chat = yield* Chat.empty
    const responses = [yield* chat.generateText({ prompt, toolkit })]
    while (responses.at(-1)!.toolCalls.length > 0 && responses.length < 5) {
      responses.push(yield* chat.generateText({ prompt: [], toolkit }))
    }
    return responses
  })

describe("deferred mode: @effect/ai", () => {
  it.scoped("the toolkit holds the search tool, then the tools a search loaded; the call reaches its server", () =>
    Effect.gen(function*() {
      const { client, github } = yield* hostOf
      const model = ScriptedModel.layer((options, call) => {
        if (call === 1) return ScriptedModel.toolCall("s1", "search_tools", { query: "create issue", limit: 2 })
        if (call === 2) return ScriptedModel.toolCall("c1", "create_issue", { title: "crash" })
        const [result] = ScriptedModel.lastToolResults(options.prompt)
        return ScriptedModel.answer(JSON.stringify(result?.result))
      })
      const deferred = yield* McpToolkit.deferred().pipe(Effect.provideService(McpClient.McpClient, client))
      const responses = yield* toolLoop("File an issue about the crash", deferred.toolkit).pipe(
        Effect.provide(model.layer)
      )
      assert.strictEqual(responses.length, 3)
      const offered = model.recorded.calls.map((c) => c.tools.map((t) => t.name))
      assert.deepStrictEqual(offered[0], ["search_tools"])
      assert.include(offered[1], "create_issue")
      assert.isAtMost(offered[1]!.length, 3)
      const calls = yield* github.requests("tools/call")
      assert.deepStrictEqual(calls.map((c) => [c.params?.name, c.params?.arguments]), [["create_issue", {
        title: "crash"
      }]])
      assert.include(responses[2]!.text, "created issue")
    }))

  it.scoped("the toolkit's result limits cut a result before the model sees it", () =>
    Effect.gen(function*() {
      const { client } = yield* hostOf
      const model = ScriptedModel.layer((options, call) => {
        if (call === 1) return ScriptedModel.toolCall("s1", "search_tools", { query: "logs" })
        if (call === 2) return ScriptedModel.toolCall("c1", "query_logs", {})
        const [result] = ScriptedModel.lastToolResults(options.prompt)
        return ScriptedModel.answer(String(result?.result))
      })
      const deferred = yield* McpToolkit.deferred({ maxResultBytes: 8 }).pipe(
        Effect.provideService(McpClient.McpClient, client)
      )
      const responses = yield* toolLoop("logs?", deferred.toolkit).pipe(Effect.provide(model.layer))
      assert.strictEqual(
        responses.at(-1)!.text,
        `${"x".repeat(8)}\n[… 492 more bytes cut by mcp-effect: maxResultBytes=8]`
      )
    }))
})
