import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConfigError, MissingRequiredClientCapabilityError } from "@mcp-effect/client/McpError"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Target from "@mcp-effect/client/Target"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import { tapped } from "./utils/connection.js"

const urlElicitation = {
  mode: "url",
  message: "Sign in",
  url: "https://example.com/login",
  elicitationId: "e-1"
}

/** The answer the client sent to the injected request `id`. */
const answerTo = (server: FakeServer.FakeServer, id: string) =>
  Effect.map(server.received, (all) => all.find((r) => r.message.id === id)?.message.result)

describe("URL-mode elicitation per era", () => {
  it.scoped("legacy: the handler sees the server's elicitationId", () =>
    Effect.gen(function*() {
      const seen: Array<Record<string, unknown>> = []
      const server = yield* FakeServer.make(Scenarios.demo)
      const { config, inject } = tapped(server)
      yield* McpClient.make({
        servers: [config],
        handlers: {
          elicitationModes: ["url"],
          elicitation: (params) => Effect.sync(() => (seen.push(params), true))
        }
      })
      inject({ jsonrpc: "2.0", id: "el-1", method: "elicitation/create", params: urlElicitation })
      yield* Effect.yieldNow()
      assert.strictEqual(seen[0]?.elicitationId, "e-1")
      assert.deepStrictEqual(yield* answerTo(server, "el-1"), { action: "accept" })
    }))

  it.scoped("2026-07-28: the elicitationId the revision removed is dropped before the handler", () =>
    Effect.gen(function*() {
      const seen: Array<Record<string, unknown>> = []
      const login = FakeServer.tool("login", (_, context) =>
        Effect.succeed(
          context.inputResponses === undefined
            ? {
              resultType: "input_required" as const,
              inputRequests: { signIn: { method: "elicitation/create", params: urlElicitation } }
            }
            : JSON.stringify(context.inputResponses.signIn)
        ))
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", tools: [login] })
      const client = yield* McpClient.make({
        servers: [server.config()],
        handlers: { elicitationModes: ["url"], elicitation: (params) => Effect.sync(() => (seen.push(params), true)) }
      })
      const result = yield* client.callTool("login")
      assert.isFalse("elicitationId" in seen[0]!)
      assert.strictEqual(seen[0]!.url, urlElicitation.url)
      assert.deepStrictEqual(JSON.parse((result.content[0] as { text: string }).text), { action: "accept" })
    }))

  it.scoped("an invalid action from the handler is answered cancel", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { config, inject } = tapped(server)
      yield* McpClient.make({
        servers: [config],
        handlers: { elicitation: () => Effect.succeed({ action: "maybe", content: { ok: true } }) }
      })
      inject({
        jsonrpc: "2.0",
        id: "el-2",
        method: "elicitation/create",
        params: { message: "Sure?", requestedSchema: { type: "object", properties: {} } }
      })
      yield* Effect.yieldNow()
      assert.deepStrictEqual(yield* answerTo(server, "el-2"), { action: "cancel" })
    }))
})

describe("2026-07-28 errors", () => {
  it.scoped("-32021 is a MissingRequiredClientCapabilityError naming the capabilities", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        era: "modern",
        faults: [{
          method: "tools/call",
          action: "error",
          code: -32021,
          message: "Missing required client capability",
          data: { requiredCapabilities: { elicitation: {} } }
        }]
      })
      const client = yield* McpClient.make({ servers: [server.config()] })
      const error = yield* Effect.flip(client.callTool("echo", { message: "x" }))
      assert.instanceOf(error, MissingRequiredClientCapabilityError)
      assert.deepStrictEqual((error as MissingRequiredClientCapabilityError).requiredCapabilities, {
        elicitation: {}
      })
    }))

  it.scoped("after a -32020 retry the result is validated against the re-fetched definition", () =>
    Effect.gen(function*() {
      const stats = (required: string) =>
        FakeServer.tool("stats", () => Effect.succeed({ content: [], structuredContent: { total: 3 } }), {
          outputSchema: { type: "object", properties: { [required]: { type: "number" } }, required: [required] }
        })
      const server = yield* FakeServer.make({
        era: "modern",
        tools: [stats("count")],
        faults: [{ method: "tools/call", action: "error", code: -32020, message: "Header mismatch", times: 1 }]
      })
      const client = yield* McpClient.make({ servers: [server.config()], validateStructuredContent: "strict" })
      yield* client.listTools()
      // The server's definition changes; the client still knows the old one until the -32020.
      yield* server.setTools([stats("total")])
      const result = yield* client.callTool("stats")
      assert.deepStrictEqual(result.structuredContent, { total: 3 })
      assert.strictEqual((yield* server.requests("tools/call")).length, 2)
    }))
})

describe("configuration", () => {
  it.effect("transport: forces the transport a URL would not be detected as", () =>
    Effect.gen(function*() {
      const forcedStreamable = yield* Target.toConfig("https://example.com/sse", { transport: "streamable_http" })
      assert.strictEqual(forcedStreamable.kind, "streamable_http")
      assert.isUndefined(forcedStreamable.fallbacks)
      assert.strictEqual((yield* Target.toConfig("https://example.com/mcp", { transport: "sse" })).kind, "sse")
      assert.strictEqual((yield* Target.toConfig("https://example.com/api", { transport: "http" })).kind, "http")
      assert.instanceOf(
        yield* Effect.flip(Target.toConfig("https://example.com/mcp", { transport: "stdio" })),
        ConfigError
      )
      assert.instanceOf(yield* Effect.flip(Target.toConfig("node server.js", { transport: "sse" })), ConfigError)
    }))

  it("Stdio.config and StreamableHttp.config take protocol and discoverTimeout per server", () => {
    const stdio = Stdio.config({ command: "node", protocol: "legacy", discoverTimeout: "1 second" })
    assert.strictEqual(stdio.protocol, "legacy")
    assert.strictEqual(stdio.discoverTimeout, "1 second")
    const http = StreamableHttp.config({ url: "https://example.com/mcp", protocol: "modern", discoverTimeout: 250 })
    assert.strictEqual(http.protocol, "modern")
    assert.strictEqual(http.discoverTimeout, 250)
  })

  it.scoped("a per-server protocol overrides the client's: legacy never probes server/discover", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual" })
      const client = yield* McpClient.make({ servers: [{ ...server.config(), protocol: "legacy" }], protocol: "auto" })
      assert.strictEqual(client.servers[0]!.negotiated()?.era, "legacy")
      assert.strictEqual((yield* server.requests("server/discover")).length, 0)
    }))
})
