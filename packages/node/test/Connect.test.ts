import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import {
  AmbiguousToolError,
  ConfigError,
  ConnectionError,
  ServerError,
  ToolNotFoundError
} from "@mcp-effect/client/McpError"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fakeServerBin } from "./paths.js"

const commandLine = `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeServerBin)}`

describe("connect (Promise facade)", () => {
  it("connects to a command line and exposes the negotiated server", async () => {
    const client = await connect(commandLine, { name: "demo" })
    try {
      const [server] = client.servers
      assert.deepStrictEqual([server!.name, server!.kind, server!.era, server!.protocolVersion], [
        "demo",
        "stdio",
        "legacy",
        "2025-11-25"
      ])
      assert.strictEqual(server!.serverInfo?.name, "mcp-effect-demo")
      assert.include(server!.instructions, "demo server")
      // Its fields are its own and enumerable, as a plain object's: spread, logged or serialized whole.
      assert.deepStrictEqual(Object.keys(server!), [
        "name",
        "kind",
        "era",
        "protocolVersion",
        "serverInfo",
        "instructions",
        "capabilities",
        "isModern"
      ])
      assert.deepStrictEqual({ ...server! }.protocolVersion, "2025-11-25")
      assert.strictEqual(JSON.parse(JSON.stringify(server)).isModern, false)
      const sum = await client.callTool("add", { a: 1, b: 2 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 3 })
    } finally {
      await client.close()
    }
  })

  it("rejects with the same error classes as the Effect API", async () => {
    const client = await connect([`stdio://${commandLine}`, `stdio://${commandLine}`])
    try {
      assert.strictEqual(client.servers.length, 2)
      const ambiguous = await client.callTool("echo", { message: "x" }).catch((e: unknown) => e)
      assert.instanceOf(ambiguous, AmbiguousToolError)
      const missing = await client.callTool("nope").catch((e: unknown) => e)
      assert.instanceOf(missing, ToolNotFoundError)
      const serverError = await client.callTool("nope", {}, { server: client.servers[0]!.name }).catch((e: unknown) =>
        e
      )
      assert.instanceOf(serverError, ServerError)
      const crashed = await client.callTool("crash", {}, { server: client.servers[1]!.name }).catch((e: unknown) => e)
      assert.instanceOf(crashed, ConnectionError)
    } finally {
      await client.close()
    }
  })

  it("callToolStreaming yields progress chunks, then the result", async () => {
    const client = await connect(commandLine, { name: "demo" })
    try {
      const tags: Array<string> = []
      for await (const chunk of client.callToolStreaming("progress", { steps: 2, delayMs: 5 })) tags.push(chunk._tag)
      assert.deepStrictEqual(tags, ["Progress", "Progress", "Result"])
      const failing = client.callToolStreaming("nope", {})
      const error = await (async () => {
        for await (const _ of failing) void _
      })().catch((e: unknown) => e)
      assert.instanceOf(error, ServerError)
    } finally {
      await client.close()
    }
  })

  it("delivers notifications to onNotification listeners until they are removed", async () => {
    const client = await connect(commandLine, { name: "demo" })
    try {
      const seen: Array<string> = []
      const stop = client.onNotification((server, method, params) => seen.push(`${server} ${method} ${params?.data}`))
      await client.callTool("log", { data: "first" })
      stop()
      await client.callTool("log", { data: "second" })
      assert.deepStrictEqual(seen, ["demo notifications/message first"])
    } finally {
      await client.close()
    }
  })

  it("names servers after what they run, or as a { name, target } says [not-on-deno: the server's command is process.execPath, named deno there]", async () => {
    const client = await connect([{ name: "mine", target: commandLine }, commandLine, `stdio://${commandLine}`])
    try {
      assert.deepStrictEqual(client.servers.map((s) => s.name), ["mine", "fake-server", "fake-server-2"])
      assert.strictEqual((await client.callTool("echo", { message: "hi" }, { server: "mine" })).isError, undefined)
    } finally {
      await client.close()
    }
    const twice = await connect([{ name: "a", target: commandLine }, { name: "a", target: commandLine }])
      .catch((e: unknown) => e)
    assert.instanceOf(twice, ConfigError)
    assert.strictEqual((twice as ConfigError).message, "two servers are named \"a\"")
  })

  it("rejects an unreachable server with ConnectionError and a bad target with ConfigError", async () => {
    const unreachable = await connect("http://127.0.0.1:1/mcp", { retries: 0 }).catch((e: unknown) => e)
    assert.instanceOf(unreachable, ConnectionError)
    const bad = await connect("http://127.0.0.1:1/mcp", { transport: "stdio" }).catch((e: unknown) => e)
    assert.instanceOf(bad, ConfigError)
  })
})

describe("McpClientLive", () => {
  const withConfigFile = (document: unknown) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-config-"))
    const file = path.join(dir, "mcp.json")
    fs.writeFileSync(file, JSON.stringify(document))
    return file
  }
  const fromEnv = (file: string) =>
    Layer.fresh(NodeMcpClient.McpClientLive).pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["MCP_CONFIG", file]]))))
    )

  it.live("reads the servers of the file named by MCP_CONFIG", () =>
    Effect.gen(function*() {
      const file = withConfigFile({
        mcpServers: { demo: { type: "stdio", command: process.execPath, args: [fakeServerBin] } }
      })
      const result = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.deepStrictEqual(client.servers.map((s) => s.name), ["demo"])
        return yield* client.callTool("echo", { message: "from config" })
      }).pipe(Effect.provide(fromEnv(file)))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "from config" }])
    }))

  it.live("a missing or invalid file fails with ConfigError", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(Effect.provide(McpClient.McpClient, fromEnv("/nonexistent/mcp.json")))
      assert.instanceOf(missing, ConfigError)
      const invalid = yield* Effect.flip(
        Effect.provide(McpClient.McpClient, fromEnv(withConfigFile({ mcpServers: { bad: { type: "stdio" } } })))
      )
      assert.instanceOf(invalid, ConfigError)
      assert.include(invalid.message, "bad")
    }))
})
