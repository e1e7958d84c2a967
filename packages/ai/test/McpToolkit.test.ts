import * as Chat from "@effect/ai/Chat"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ServerError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { McpToolError } from "../src/McpToolError.js"
import * as McpToolkit from "../src/McpToolkit.js"
import { add, addSchema, echo, fail } from "./utils/fixtures.js"
import * as ScriptedModel from "./utils/scriptedModel.js"

/** Asks for one tool call, then answers with what the tool returned. */
const oneToolCall = (name: string, params: unknown) =>
  ScriptedModel.layer((options, call) => {
    if (call === 1) return ScriptedModel.toolCall("call-1", name, params)
    const [result] = ScriptedModel.lastToolResults(options.prompt)
    return ScriptedModel.answer(
      result === undefined
        ? "no tool result"
        : `${result.isFailure ? "failed" : "result"}: ${JSON.stringify(result.result)}`
    )
  })

/** The tool loop of a host: call the model until it stops asking for tools. */
const toolLoop = <E, R>(
  prompt: string,
  toolkit: Effect.Effect<Toolkit.WithHandler<McpToolkit.Tools>, E, R>
) =>
  Effect.gen(function*() {
    const chat = yield* Chat.empty
    const responses = [yield* chat.generateText({ prompt, toolkit })]
    while (responses.at(-1)!.toolCalls.length > 0 && responses.length < 5) {
      responses.push(yield* chat.generateText({ prompt: [], toolkit }))
    }
    return responses
  })

describe("McpToolkit", () => {
  it.scoped("runs a tool loop: the model calls an MCP tool, gets its result and answers", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools: [add] })
      const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
      const model = oneToolCall("add", { a: 2, b: 40 })
      const toolkit = yield* McpToolkit.make().pipe(Effect.provideService(McpClient.McpClient, client))

      const responses = yield* toolLoop("What is 2 + 40?", Effect.succeed(toolkit)).pipe(Effect.provide(model.layer))

      assert.strictEqual(responses.length, 2)
      assert.strictEqual(responses[1]!.text, "result: {\"sum\":42}")
      // The host sees the whole CallToolResult; the model saw the structured content.
      const [toolResult] = responses[0]!.toolResults
      assert.isFalse(toolResult!.isFailure)
      assert.deepStrictEqual(toolResult!.result, {
        content: [{ type: "text", text: "42" }],
        structuredContent: { sum: 42 }
      })
      assert.deepStrictEqual(toolResult!.encodedResult, { sum: 42 })
      // The model was offered the tool with its inputSchema as JSON Schema, unchanged.
      const offered = model.recorded.calls[0]!.tools
      assert.deepStrictEqual(offered.map((t) => t.name), ["add"])
      assert.strictEqual(offered[0]!.description, "Adds a and b")
      assert.deepStrictEqual(Tool.getJsonSchema(offered[0] as McpToolkit.McpTool) as unknown, addSchema)
      // The server got one call, with the model's arguments.
      const calls = yield* server.requests("tools/call")
      assert.deepStrictEqual(calls.map((c) => [c.params?.name, c.params?.arguments]), [["add", { a: 2, b: 40 }]])
    }))

  it.scoped("an isError result is a tool failure the model is told about", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools: [fail] })
      const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
      const model = oneToolCall("fail", {})
      const responses = yield* toolLoop("Divide 1 by 0", McpToolkit.make()).pipe(
        Effect.provide(model.layer),
        Effect.provideService(McpClient.McpClient, client)
      )
      assert.strictEqual(responses.at(-1)!.text, "failed: \"division by zero\"")
      const [toolResult] = responses[0]!.toolResults
      assert.isTrue(toolResult!.isFailure)
      const error = toolResult!.result as McpToolError
      assert.instanceOf(error, McpToolError)
      assert.strictEqual(error.server, "math")
      assert.strictEqual(error.tool, "fail")
      assert.deepStrictEqual(error.result?.isError, true)
      assert.isUndefined(error.error)
    }))

  it.scoped("a call that fails reaches the model as a tool failure carrying the client's error", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        tools: [add],
        faults: [{ method: "tools/call", action: "error", code: -32000, message: "backend down" }]
      })
      const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
      const model = oneToolCall("add", { a: 1, b: 2 })
      const responses = yield* toolLoop("1 + 2?", McpToolkit.make()).pipe(
        Effect.provide(model.layer),
        Effect.provideService(McpClient.McpClient, client)
      )
      assert.strictEqual(responses.at(-1)!.text, "failed: \"ServerError: backend down\"")
      const error = responses[0]!.toolResults[0]!.result as McpToolError
      assert.instanceOf(error.error, ServerError)
    }))

  it.scoped("all servers' tools: a name two servers offer is prefixed, and calls go to the right server", () =>
    Effect.gen(function*() {
      const alpha = yield* FakeServer.make({ tools: [echo("alpha"), add] })
      const beta = yield* FakeServer.make({ tools: [echo("beta")] })
      const client = yield* McpClient.make({
        servers: [alpha.config({ name: "alpha" }), beta.config({ name: "beta" })]
      })
      const model = oneToolCall("beta_echo", { message: "hi" })
      const responses = yield* toolLoop("say hi", McpToolkit.make()).pipe(
        Effect.provide(model.layer),
        Effect.provideService(McpClient.McpClient, client)
      )
      assert.deepStrictEqual(model.recorded.calls[0]!.tools.map((t) => t.name), ["alpha_echo", "add", "beta_echo"])
      assert.strictEqual(responses.at(-1)!.text, "result: \"beta: hi\"")
      assert.strictEqual((yield* alpha.requests("tools/call")).length, 0)
      assert.deepStrictEqual((yield* beta.requests("tools/call")).map((c) => c.params?.name), ["echo"])
    }))

  it.scoped("a long name with dots and spaces: a valid, stable name for the model, the original on the wire", () =>
    Effect.gen(function*() {
      const long = "files.read a file from the workspace by its path, with line numbers and much more text"
      const alpha = yield* FakeServer.make({ tools: [echo("alpha")] })
      const beta = yield* FakeServer.make({ tools: [FakeServer.tool(long, () => Effect.succeed("read"))] })
      const client = yield* McpClient.make({
        servers: [alpha.config({ name: "alpha" }), { ...beta.config({ name: "beta" }), toolPrefix: true }]
      })
      const exposed = ToolFormats.providerName(`beta__${long}`)
      assert.match(exposed, /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/)
      const model = oneToolCall(exposed, {})
      const responses = yield* toolLoop("read", McpToolkit.make()).pipe(
        Effect.provide(model.layer),
        Effect.provideService(McpClient.McpClient, client)
      )
      assert.deepStrictEqual(model.recorded.calls[0]!.tools.map((t) => t.name), ["echo", exposed])
      assert.strictEqual(responses.at(-1)!.text, "result: \"read\"")
      assert.deepStrictEqual((yield* beta.requests("tools/call")).map((c) => c.params?.name), [long])
      assert.strictEqual((yield* alpha.requests("tools/call")).length, 0)
      const built = yield* McpToolkit.build().pipe(Effect.provideService(McpClient.McpClient, client))
      assert.strictEqual(built.sources.get(exposed)?.originalName, long, "the name maps back")
    }))

  it.scoped("server, filter and name options select and rename the tools", () =>
    Effect.gen(function*() {
      const alpha = yield* FakeServer.make({ tools: [echo("alpha"), add, fail] })
      const beta = yield* FakeServer.make({ tools: [echo("beta")] })
      const client = yield* McpClient.make({
        servers: [alpha.config({ name: "alpha" }), beta.config({ name: "beta" })]
      })
      const built = yield* McpToolkit.build({
        server: "alpha",
        filter: (tool) => tool.name !== "fail",
        name: (tool) => `mcp_${tool.name}`
      }).pipe(Effect.provideService(McpClient.McpClient, client))
      assert.deepStrictEqual(Object.keys(built.toolkit.tools), ["mcp_echo", "mcp_add"])
      assert.deepStrictEqual(built.sources.get("mcp_add")?.server, "alpha")
      const withHandler = yield* Effect.provide(built.toolkit, built.handlers)
      const handled = yield* withHandler.handle("mcp_echo", { message: "x" })
      assert.deepStrictEqual(handled.encodedResult, "alpha: x")
    }))

  it.scoped("build: the MCP toolkit merges with the host's own tools", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools: [add] })
      const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
      const Clock = Tool.make("clock", { success: Schema.String })
      const Own = Toolkit.make(Clock)
      const OwnLive = Own.toLayer({ clock: () => Effect.succeed("noon") })
      const mcp = yield* McpToolkit.build().pipe(Effect.provideService(McpClient.McpClient, client))
      const toolkit = Toolkit.merge(Own, mcp.toolkit).pipe(Effect.provide(OwnLive), Effect.provide(mcp.handlers))
      const model = ScriptedModel.layer((_, call) =>
        call === 1
          ? [
            { type: "tool-call", id: "call-1", name: "clock", params: {} },
            { type: "tool-call", id: "call-2", name: "add", params: { a: 1, b: 1 } },
            { type: "finish", reason: "tool-calls", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }
          ]
          : ScriptedModel.answer("done")
      )
      const response = yield* LanguageModel.generateText({ prompt: "time and sum", toolkit }).pipe(
        Effect.provide(model.layer)
      )
      assert.deepStrictEqual(model.recorded.calls[0]!.tools.map((t) => t.name), ["clock", "add"])
      assert.deepStrictEqual(response.toolResults.map((r) => r.encodedResult), ["noon", { sum: 2 }])
    }))

  it.effect("a tool carries the MCP annotations and title", () =>
    Effect.sync(() => {
      const made = McpToolkit.tool(add.tool)
      assert.strictEqual(made.name, "add")
      assert.strictEqual(Context.unsafeGet(made.annotations, Tool.Title), "Add two numbers")
      assert.isTrue(Context.get(made.annotations, Tool.Readonly))
      assert.isTrue(Context.get(made.annotations, Tool.Idempotent))
      assert.isFalse(Context.get(made.annotations, Tool.OpenWorld))
      // Unset hints keep the MCP defaults, which are @effect/ai's too.
      assert.isTrue(Context.get(made.annotations, Tool.Destructive))
    }))

  it.scoped("the toolkit effect re-reads the list at each generateText, so list_changed is followed", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools: [add] })
      const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
      const model = ScriptedModel.layer(() => ScriptedModel.answer("ok"))
      const generate = LanguageModel.generateText({ prompt: "hi", toolkit: McpToolkit.make() }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(McpClient.McpClient, client)
      )
      yield* generate
      yield* server.setTools([add, echo("math")])
      // The notification is handled on the client's reader; list again until it is seen.
      yield* Effect.repeat(Effect.flatMap(client.listTools(), (tools) => Effect.succeed(tools.length)), {
        until: (count) => count === 2
      })
      yield* generate
      assert.deepStrictEqual(model.recorded.calls.map((call) => call.tools.map((t) => t.name)), [
        ["add"],
        ["add", "echo"]
      ])
    }))

  for (const era of ["legacy", "modern"] as const) {
    it.scoped(`changes: a new toolkit after each list_changed (${era} server)`, () =>
      Effect.gen(function*() {
        const server = yield* FakeServer.make({ tools: [add], era })
        const client = yield* McpClient.make({ servers: [server.config({ name: "math" })] })
        assert.strictEqual(client.servers[0]!.negotiated()?.era, era)
        const seen = yield* Queue.unbounded<ReadonlyArray<string>>()
        yield* McpToolkit.changes().pipe(
          Stream.runForEach((toolkit) => Queue.offer(seen, Object.keys(toolkit.tools))),
          Effect.provideService(McpClient.McpClient, client),
          Effect.forkScoped
        )
        assert.deepStrictEqual(yield* Queue.take(seen), ["add"])
        if (era === "modern") {
          // The stream's subscription is acknowledged before a change can reach it.
          yield* Effect.repeat(server.requests("subscriptions/listen"), { until: (r) => r.length === 1 })
          yield* Effect.yieldNow()
        }
        yield* server.setTools([add, echo("math")])
        assert.deepStrictEqual(yield* Queue.take(seen), ["add", "echo"])
        yield* server.setTools([echo("math")])
        assert.deepStrictEqual(yield* Queue.take(seen), ["echo"])
      }))
  }

  it.effect("a result without structured content is shown as its text, other blocks as notes", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        tools: [
          FakeServer.tool("mixed", () =>
            Effect.succeed({
              content: [
                { type: "text", text: "first" },
                { type: "image", data: "AAAA", mimeType: "image/png" },
                { type: "resource", resource: { uri: "demo://a", text: "embedded" } },
                { type: "resource_link", uri: "demo://b", name: "b" }
              ]
            }))
        ]
      })
      const client = yield* McpClient.make({ servers: [server.config({ name: "s" })] })
      const toolkit = yield* McpToolkit.make().pipe(Effect.provideService(McpClient.McpClient, client))
      const handled = yield* toolkit.handle("mixed", {})
      assert.strictEqual(handled.encodedResult, "first\n[image (image/png)]\nembedded\n[resource link b: demo://b]")
      assert.strictEqual((handled.result as McpSchema.CallToolResult).content.length, 4)
    }).pipe(Effect.scoped))
})
