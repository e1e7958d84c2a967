import { assert, describe, it } from "@effect/vitest"
import {
  CapabilityError,
  ConnectionError,
  InvalidResponseError,
  RequestTimeoutError,
  UnsupportedProtocolVersionError
} from "@mcp-effect/client/McpError"
import * as McpSchema from "@mcp-effect/client/McpSchema"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"

const options = (onNotification: ServerConnection.NotificationListener = () => {}): ServerConnection.Options => ({
  clientInfo: { name: "test-client", version: "1.0.0" },
  onNotification
})

const connect = (definition: FakeServer.Definition, onNotification?: ServerConnection.NotificationListener) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const connection = yield* ServerConnection.make(server.config({ name: "fake" }), options(onNotification))
    return { server, connection }
  })

describe("ServerConnection (legacy era)", () => {
  it.scoped("probes with server/discover, then initializes offering 2025-11-25 and sends initialized", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(Scenarios.demo)
      const received = yield* server.received
      assert.deepStrictEqual(received.map((r) => r.method), [
        "server/discover",
        "initialize",
        "notifications/initialized"
      ])
      assert.deepStrictEqual(received[1]!.params, {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "test-client", version: "1.0.0" }
      })
      const negotiated = connection.negotiated()!
      assert.strictEqual(negotiated.era, "legacy")
      assert.strictEqual(negotiated.protocolVersion, "2025-11-25")
      assert.strictEqual(negotiated.serverInfo.name, "mcp-effect-demo")
      assert.strictEqual(negotiated.instructions, Scenarios.demo.instructions)
    }))

  for (const version of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
    it.scoped(`accepts a server answering ${version}`, () =>
      Effect.gen(function*() {
        const { connection } = yield* connect({
          ...Scenarios.demo,
          faults: [{
            method: "initialize",
            action: "result",
            result: { protocolVersion: version, capabilities: {}, serverInfo: { name: "old", version: "1" } }
          }]
        })
        assert.strictEqual(connection.negotiated()!.protocolVersion, version)
      }))
  }

  it.scoped("refuses a server answering a revision it cannot speak, with UnsupportedProtocolVersionError", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{
          method: "initialize",
          action: "result",
          result: { protocolVersion: "1999-01-01", capabilities: {}, serverInfo: { name: "odd", version: "1" } }
        }]
      })
      const error = yield* Effect.flip(ServerConnection.make(server.config(), options()))
      assert.instanceOf(error, UnsupportedProtocolVersionError)
      assert.strictEqual(error.requested, "1999-01-01")
      assert.deepStrictEqual(error.supported, McpSchema.LEGACY_PROTOCOL_VERSIONS)
      const received = yield* server.received
      assert.isUndefined(received.find((r) => r.method === "notifications/initialized"))
    }))

  it.scoped("an initialize result that is not one fails with InvalidResponseError", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{ method: "initialize", action: "result", result: { hello: "world" } }]
      })
      const error = yield* Effect.flip(ServerConnection.make(server.config(), options()))
      assert.instanceOf(error, InvalidResponseError)
    }))

  it.scoped("lists follow nextCursor to the complete set", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, pageSize: 3 })
      const tools = yield* connection.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name), Scenarios.demo.tools!.map((t) => t.tool.name))
      const pages = yield* server.requests("tools/list")
      assert.deepStrictEqual(pages.map((p) => p.params?.cursor), [undefined, "3", "6"])
    }))

  it.scoped("a repeated cursor stops the walk instead of looping", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({
        ...Scenarios.demo,
        pageSize: 2,
        faults: [{ method: "tools/list", action: "repeat-cursor" }]
      })
      const tools = yield* connection.listTools()
      assert.strictEqual(tools.length, 4)
      assert.strictEqual((yield* server.requests("tools/list")).length, 2)
    }))

  it.scoped("caches lists and drops the cache on list_changed before host listeners run", () =>
    Effect.gen(function*() {
      const seen: Array<ReadonlyArray<string>> = []
      const ref: { connection?: ServerConnection.ServerConnection } = {}
      const fake = yield* connect(Scenarios.demo, (_server, method) => {
        // A listener that re-lists sees the new list: the cache is already gone.
        if (method === "notifications/tools/list_changed") {
          Effect.runFork(Effect.map(ref.connection!.listTools(), (tools) => seen.push(tools.map((t) => t.name))))
        }
      })
      ref.connection = fake.connection
      const connection = fake.connection
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual((yield* fake.server.requests("tools/list")).length, 1)
      yield* fake.server.setTools([FakeServer.tool("only", () => Effect.succeed("x"))])
      yield* Effect.sleep(0)
      yield* Effect.yieldNow()
      assert.deepStrictEqual(seen, [["only"]])
      assert.deepStrictEqual((yield* connection.listTools()).map((t) => t.name), ["only"])
    }))

  it.scoped("lifts a _meta key of the tool arguments to params._meta", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(Scenarios.demo)
      yield* connection.callTool("echo", { message: "hi", _meta: { trace: "t1" } })
      const [call] = yield* server.requests("tools/call")
      assert.deepStrictEqual(call!.params, { name: "echo", arguments: { message: "hi" }, _meta: { trace: "t1" } })
    }))

  it.scoped("calls a tool and keeps structuredContent, unknown fields and absent hints", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({
        tools: [
          FakeServer.tool(
            "t",
            () =>
              Effect.succeed({ content: [{ type: "text", text: "ok" }], structuredContent: { a: 1 }, extra: "kept" }),
            { annotations: { readOnlyHint: true }, unknownField: 42 } as Partial<McpSchema.Tool>
          )
        ]
      })
      const [tool] = yield* connection.listTools()
      assert.strictEqual((tool as unknown as Record<string, unknown>).unknownField, 42)
      assert.isUndefined(tool!.annotations!.destructiveHint)
      assert.deepStrictEqual(
        [
          McpSchema.isReadOnly(tool!),
          McpSchema.isDestructive(tool!),
          McpSchema.isIdempotent(tool!),
          McpSchema.isOpenWorld(tool!)
        ],
        [true, true, false, true]
      )
      const result = yield* connection.callTool("t", {})
      assert.deepStrictEqual(
        result,
        { content: [{ type: "text", text: "ok" }], structuredContent: { a: 1 }, extra: "kept" } as never
      )
    }))

  it.scoped("checks text results against CallToolResult: malformed ones fail, annotated ones pass as sent", () =>
    Effect.gen(function*() {
      const annotated = {
        content: [{ type: "text", text: "x", annotations: { priority: 1 }, _meta: { a: 1 } }],
        _meta: { b: 2 }
      }
      const withMeta = { content: [{ type: "text", text: "x", _meta: { a: 1 } }], _meta: { b: 2 }, extra: true }
      const { connection } = yield* connect({
        tools: [
          FakeServer.tool("text-number", () => Effect.succeed({ content: [{ type: "text", text: 1 }] })),
          FakeServer.tool(
            "flag-string",
            () => Effect.succeed({ content: [{ type: "text", text: "x" }], isError: "no" })
          ),
          FakeServer.tool(
            "bad-annotations",
            () => Effect.succeed({ content: [{ type: "text", text: "x", annotations: { priority: "high" } }] })
          ),
          FakeServer.tool("meta-string", () => Effect.succeed({ content: [{ type: "text", text: "x" }], _meta: "m" })),
          FakeServer.tool("annotated", () => Effect.succeed(annotated)),
          FakeServer.tool("with-meta", () => Effect.succeed(withMeta))
        ]
      })
      for (const name of ["text-number", "flag-string", "bad-annotations", "meta-string"]) {
        assert.instanceOf(yield* Effect.flip(connection.callTool(name, {})), InvalidResponseError, name)
      }
      assert.deepStrictEqual(yield* connection.callTool("annotated", {}), annotated as never)
      assert.deepStrictEqual(yield* connection.callTool("with-meta", {}), withMeta as never)
    }))

  it.scoped("reads text and blob resources, templates, prompts and completions", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect(Scenarios.demo)
      const read = yield* connection.readResource("demo://readme")
      assert.strictEqual((read.contents[0] as { text: string }).text, "mcp-effect demo server. Hello!")
      const blob = yield* connection.readResource("demo://pixel.png")
      assert.isTrue("blob" in blob.contents[0]!)
      assert.deepStrictEqual((yield* connection.listResourceTemplates()).map((t) => t.uriTemplate), [
        "demo://greeting/{name}"
      ])
      const prompt = yield* connection.getPrompt("greeting", { name: "Ada", style: "formal" })
      assert.deepStrictEqual(prompt.messages[0]!.content, { type: "text", text: "Good day, Ada." })
      const completion = yield* connection.complete({
        ref: { type: "ref/prompt", name: "greeting" },
        argument: { name: "name", value: "a" }
      })
      assert.deepStrictEqual(completion.completion.values, ["Ada", "Alan", "Alice"])
    }))

  it.scoped("gates completion on the server's completions capability", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, completions: undefined })
      const error = yield* Effect.flip(connection.complete({
        ref: { type: "ref/prompt", name: "greeting" },
        argument: { name: "name", value: "a" }
      }))
      assert.instanceOf(error, CapabilityError)
      assert.strictEqual(error.capability, "completions")
      assert.strictEqual((yield* server.requests("completion/complete")).length, 0)
    }))

  it.scoped("per-call timeout fails with RequestTimeoutError and cancels on the server", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({
        ...Scenarios.demo,
        faults: [{ method: "tools/call", action: "silence" }]
      })
      const fiber = yield* Effect.fork(
        Effect.flip(connection.callTool("echo", { message: "x" }, { timeout: "2 seconds" }))
      )
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, RequestTimeoutError)
      yield* Effect.yieldNow()
      const cancelled = yield* server.received
      assert.isDefined(cancelled.find((r) => r.method === "notifications/cancelled"))
    }))

  it.scoped("the server's readTimeout applies when the call sets none", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{ method: "tools/call", action: "silence" }]
      })
      const connection = yield* ServerConnection.make(server.config({ readTimeout: "5 seconds" }), options())
      const fiber = yield* Effect.fork(Effect.flip(connection.callTool("echo", { message: "x" })))
      yield* TestClock.adjust("4999 millis")
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, RequestTimeoutError)
      assert.strictEqual(error.timeoutMs, 5000)
    }))

  it.scoped("a server that dies fails the call with ConnectionError and is reopened on the next request", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(Scenarios.demo)
      const error = yield* Effect.flip(connection.callTool("crash", {}))
      assert.instanceOf(error, ConnectionError)
      const result = yield* connection.callTool("echo", { message: "again" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "again" }])
      assert.strictEqual(yield* server.connections, 2)
    }))

  it.scoped("progress of a call reaches its onProgress callback", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect(Scenarios.demo)
      const seen: Array<string> = []
      const fiber = yield* Effect.fork(connection.callTool("progress", { steps: 3, delayMs: 10 }, {
        onProgress: (p) => seen.push(`${p.progress}/${p.total}`)
      }))
      yield* TestClock.adjust(100)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen, ["1/3", "2/3", "3/3"])
    }))
})

describe("ServerConnection capability gating", () => {
  it.scoped("setLogLevel and resource subscriptions need logging and resources.subscribe", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(Scenarios.demo)
      const noLogging = yield* Effect.flip(connection.setLogLevel("debug"))
      assert.instanceOf(noLogging, CapabilityError)
      assert.strictEqual(noLogging.capability, "logging")
      const noSubscribe = yield* Effect.flip(connection.subscribeResource("demo://readme"))
      assert.instanceOf(noSubscribe, CapabilityError)
      assert.strictEqual(noSubscribe.capability, "resources.subscribe")
      const sent = (yield* server.received).map((r) => r.method)
      assert.notInclude(sent, "logging/setLevel")
      assert.notInclude(sent, "resources/subscribe")
    }))

  it.scoped("sends them when the server declares the capabilities", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, logging: true, subscriptions: true })
      yield* connection.setLogLevel("warning")
      yield* connection.subscribeResource("demo://readme")
      yield* connection.unsubscribeResource("demo://readme")
      const sent = (yield* server.received).filter((r) => r.id !== undefined).map((r) => [r.method, r.params])
      assert.deepStrictEqual(sent.slice(2), [
        ["logging/setLevel", { level: "warning" }],
        ["resources/subscribe", { uri: "demo://readme" }],
        ["resources/unsubscribe", { uri: "demo://readme" }]
      ])
    }))
})

describe("ServerConnection keep-alive", () => {
  it.scoped("pings at the configured interval", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      yield* ServerConnection.make({ ...server.config(), keepAlive: "10 seconds" }, options())
      yield* TestClock.adjust("35 seconds")
      assert.strictEqual((yield* server.requests("ping")).length, 4)
    }))
})

describe("server log messages", () => {
  it.scoped("reach listeners with control characters escaped and length bounded", () =>
    Effect.gen(function*() {
      const seen: Array<Record<string, unknown> | undefined> = []
      const { server } = yield* connect(Scenarios.demo, (_server, method, params) => {
        if (method === "notifications/message") seen.push(params)
      })
      yield* server.notify("notifications/message", {
        level: "error",
        logger: "evil\nlogger",
        data: "line one\n2026-11-30 INFO forged line\u001b[31m" + "x".repeat(20_000)
      })
      yield* server.notify("notifications/message", { level: "shout", data: { nested: "a\rb" } })
      const [first, second] = seen
      assert.strictEqual(first!.level, "error")
      assert.strictEqual(first!.logger, "evil\\u000alogger")
      const data = first!.data as string
      assert.notInclude(data, "\n")
      assert.notInclude(data, "\u001b")
      assert.isBelow(data.length, 8_300)
      assert.strictEqual(second!.level, "info")
      assert.strictEqual(second!.data, JSON.stringify({ nested: "a\rb" }))
    }))

  it.scoped("escape bidirectional-text controls and invisible format marks", () =>
    Effect.gen(function*() {
      const seen: Array<Record<string, unknown> | undefined> = []
      const { server } = yield* connect(Scenarios.demo, (_server, method, params) => {
        if (method === "notifications/message") seen.push(params)
      })
      yield* server.notify("notifications/message", {
        level: "info",
        logger: "a\u2066b",
        data: "invoice\u202Efdp.exe \u202A\u202B\u202C\u202D \u2067\u2068\u2069 \u200E\u200F\u061C"
      })
      const [message] = seen
      assert.strictEqual(message!.logger, "a\\u2066b")
      assert.strictEqual(
        message!.data,
        "invoice\\u202efdp.exe \\u202a\\u202b\\u202c\\u202d \\u2067\\u2068\\u2069 \\u200e\\u200f\\u061c"
      )
    }))
})
