import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { AmbiguousToolError, ConfigError, ServerNotFoundError, ToolNotFoundError } from "@mcp-effect/client/McpError"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const text = (value: string) => Effect.succeed(value)

const twoServers = Effect.gen(function*() {
  const alpha = yield* FakeServer.make({
    tools: [FakeServer.tool("shared", () => text("alpha")), FakeServer.tool("only-alpha", () => text("a"))],
    prompts: [{ prompt: { name: "hello" }, render: () => ({ messages: [] }) }]
  })
  const beta = yield* FakeServer.make({
    tools: [FakeServer.tool("shared", () => text("beta")), FakeServer.tool("only-beta", () => text("b"))],
    resources: [{ resource: { uri: "b://r", name: "r" }, contents: [{ uri: "b://r", text: "from beta" }] }]
  })
  const client = yield* McpClient.make({ servers: [alpha.config({ name: "alpha" }), beta.config({ name: "beta" })] })
  return { alpha, beta, client }
})

const firstText = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("McpClient", () => {
  it.scoped("lists tools across servers, each tagged with its server", () =>
    Effect.gen(function*() {
      const { client } = yield* twoServers
      const tools = yield* client.listTools()
      assert.deepStrictEqual(tools.map((t) => `${t.server}:${t.name}`), [
        "alpha:shared",
        "alpha:only-alpha",
        "beta:shared",
        "beta:only-beta"
      ])
      assert.deepStrictEqual((yield* client.listTools({ server: "beta" })).map((t) => t.name), ["shared", "only-beta"])
    }))

  it.scoped("routes a bare tool name to the one server that offers it", () =>
    Effect.gen(function*() {
      const { beta, client } = yield* twoServers
      assert.strictEqual(firstText(yield* client.callTool("only-beta")), "b")
      assert.strictEqual((yield* beta.requests("tools/call")).length, 1)
    }))

  it.scoped("an ambiguous bare name fails with AmbiguousToolError naming the servers", () =>
    Effect.gen(function*() {
      const { client } = yield* twoServers
      const error = yield* Effect.flip(client.callTool("shared"))
      assert.instanceOf(error, AmbiguousToolError)
      assert.deepStrictEqual(error.servers, ["alpha", "beta"])
      assert.strictEqual(firstText(yield* client.callTool("shared", {}, { server: "beta" })), "beta")
    }))

  it.scoped("an unknown tool fails with ToolNotFoundError", () =>
    Effect.gen(function*() {
      const { alpha, beta, client } = yield* twoServers
      const error = yield* Effect.flip(client.callTool("missing"))
      assert.instanceOf(error, ToolNotFoundError)
      assert.strictEqual(error.name, "missing")
      assert.strictEqual((yield* alpha.requests("tools/call")).length + (yield* beta.requests("tools/call")).length, 0)
      const found = yield* client.findTool("only-alpha")
      assert.strictEqual(found.server, "alpha")
    }))

  it.scoped("an unknown server name fails with ServerNotFoundError", () =>
    Effect.gen(function*() {
      const { client } = yield* twoServers
      const error = yield* Effect.flip(client.callTool("shared", {}, { server: "gamma" }))
      assert.instanceOf(error, ServerNotFoundError)
      assert.deepStrictEqual(error.known, ["alpha", "beta"])
    }))

  it.scoped("callTools runs a batch and keeps the order of the calls", () =>
    Effect.gen(function*() {
      const { client } = yield* twoServers
      const results = yield* client.callTools([
        { name: "only-beta" },
        { name: "shared", server: "alpha" },
        { name: "only-alpha" }
      ])
      assert.deepStrictEqual(results.map(firstText), ["b", "alpha", "a"])
    }))

  it.scoped("routes prompts and resources to the server that lists them", () =>
    Effect.gen(function*() {
      const { alpha, beta, client } = yield* twoServers
      const read = yield* client.readResource("b://r")
      assert.strictEqual((read.contents[0] as { text: string }).text, "from beta")
      yield* client.getPrompt("hello")
      assert.strictEqual((yield* alpha.requests("prompts/get")).length, 1)
      assert.strictEqual((yield* beta.requests("prompts/get")).length, 0)
    }))

  it.scoped("host notification listeners get every server's notifications until their scope closes", () =>
    Effect.gen(function*() {
      const { alpha, beta, client } = yield* twoServers
      const seen: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        yield* client.onNotification((server, method) => seen.push(`${server} ${method}`))
        yield* alpha.notify("notifications/message", { level: "info", data: "x" })
        yield* beta.setTools([])
      }))
      yield* alpha.notify("notifications/message", { level: "info", data: "late" })
      assert.deepStrictEqual(seen, ["alpha notifications/message", "beta notifications/tools/list_changed"])
    }))

  it.scoped("a throwing host listener does not stop the others", () =>
    Effect.gen(function*() {
      const { alpha, client } = yield* twoServers
      const seen: Array<string> = []
      yield* client.onNotification(() => {
        throw new Error("host bug")
      })
      yield* client.onNotification((_, method) => seen.push(method))
      yield* alpha.notify("notifications/message", { level: "info", data: "x" })
      assert.deepStrictEqual(seen, ["notifications/message"])
    }))

  it.scoped("refuses two servers of the same name with ConfigError", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools: [] })
      const error = yield* Effect.flip(McpClient.make({ servers: [server.config(), server.config()] }))
      assert.instanceOf(error, ConfigError)
      assert.strictEqual(yield* server.connections, 0)
    }))

  it.effect("is provided as a layer", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools: [FakeServer.tool("echo", (args) => text(String(args.message)))] })
      const result = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        return yield* client.callTool("echo", { message: "hi" })
      }).pipe(Effect.provide(Layer.fresh(McpClient.layer({ servers: [server.config()] }))))
      assert.strictEqual(firstText(result), "hi")
    }))
})

describe("McpClient.setLogLevel", () => {
  it.scoped("skips servers without logging", () =>
    Effect.gen(function*() {
      const quiet = yield* FakeServer.make({ tools: [] })
      const chatty = yield* FakeServer.make({ tools: [], logging: true })
      const client = yield* McpClient.make({
        servers: [quiet.config({ name: "quiet" }), chatty.config({ name: "chatty" })]
      })
      yield* client.setLogLevel("error")
      assert.strictEqual((yield* quiet.requests("logging/setLevel")).length, 0)
      assert.deepStrictEqual((yield* chatty.requests("logging/setLevel")).map((r) => r.params), [{ level: "error" }])
    }))
})
