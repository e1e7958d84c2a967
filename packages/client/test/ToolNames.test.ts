/**
 * Tool names across servers (issue #36, point 2): a prefix and a rename map per server, a
 * collision policy across servers, and provider-safe names that map back to (server, name).
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { AmbiguousToolError, ToolNameCollisionError, ToolNotFoundError } from "@mcp-effect/client/McpError"
import type * as ServerConfig from "@mcp-effect/client/ServerConfig"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"

const said = (server: string) =>
  FakeServer.tool("echo", (args) => Effect.succeed(`${server}: ${String(args.message ?? "")}`))
const only = (name: string) => FakeServer.tool(name, () => Effect.succeed(name))

/** A long name with dots and spaces, as some servers name their tools. */
const LONG = "workspace.files.read a file from the workspace by its path, with line numbers and more"

/** Two fake servers, `a` and `b`, each with `echo` and tools of its own. */
const twoServers = Effect.gen(function*() {
  const a = yield* FakeServer.make({ tools: [said("a"), only("add")] })
  const b = yield* FakeServer.make({ tools: [said("b"), only("blob"), only(LONG)] })
  return { a, b, configA: a.config({ name: "a" }), configB: b.config({ name: "b" }) }
})

const sent = (server: FakeServer.FakeServer) =>
  Effect.map(server.requests("tools/call"), (requests) => requests.map((r) => r.params?.name))

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  (result.content[0] as { readonly text: string }).text

describe("tool names across servers", () => {
  it.scoped("a prefix per server: shown as prefix__name, called with the server's own name", () =>
    Effect.gen(function*() {
      const { a, b, configA, configB } = yield* twoServers
      const client = yield* McpClient.make({
        servers: [{ ...configA, toolPrefix: true }, { ...configB, toolPrefix: "bee" }]
      })
      const tools = yield* client.listTools()
      assert.deepStrictEqual(tools.map((t) => [t.name, t.server, t.originalName]), [
        ["a__echo", "a", "echo"],
        ["a__add", "a", "add"],
        ["bee__echo", "b", "echo"],
        ["bee__blob", "b", "blob"],
        [`bee__${LONG}`, "b", LONG]
      ])
      assert.strictEqual(textOf(yield* client.callTool("bee__echo", { message: "hi" })), "b: hi")
      assert.strictEqual(textOf(yield* client.callTool("a__echo", { message: "hi" })), "a: hi")
      assert.strictEqual((yield* client.findTool("bee__blob")).server, "b")
      assert.instanceOf(yield* Effect.flip(client.callTool("echo", {})), ToolNotFoundError, "only the shown name")
      // With { server }, a name not shown for it is sent as it is.
      assert.strictEqual(textOf(yield* client.callTool("echo", { message: "x" }, { server: "b" })), "b: x")
      assert.deepStrictEqual(yield* sent(a), ["echo"])
      assert.deepStrictEqual(yield* sent(b), ["echo", "echo"])
      assert.deepStrictEqual((yield* client.searchTools("blob")).map((t) => t.name), ["bee__blob"])
    }))

  it.scoped("a rename map, a configurable separator, and pages", () =>
    Effect.gen(function*() {
      const { a, configA } = yield* twoServers
      const client = yield* McpClient.make({
        servers: [{ ...configA, toolPrefix: "gh", toolNames: { echo: "say", missing: "nothing" } }],
        toolNameSeparator: "-"
      })
      assert.deepStrictEqual((yield* client.listTools()).map((t) => t.name), ["gh-say", "gh-add"])
      assert.deepStrictEqual((yield* client.listToolsPage()).items.map((t) => [t.name, t.originalName]), [
        ["gh-say", "echo"],
        ["gh-add", "add"]
      ])
      assert.strictEqual(textOf(yield* client.callTool("gh-say", { message: "hi" })), "a: hi")
      const task = yield* Effect.flip(client.callToolAsTask("gh-add", {}))
      assert.notInstanceOf(task, ToolNotFoundError)
      assert.deepStrictEqual(yield* sent(a), ["echo"])
    }))

  it.scoped("collisions \"error\": listing and calls by name fail naming both servers", () =>
    Effect.gen(function*() {
      const { a, b, configA, configB } = yield* twoServers
      const client = yield* McpClient.make({ servers: [configA, configB], toolCollisions: "error" })
      const error = yield* Effect.flip(client.listTools())
      assert.instanceOf(error, ToolNameCollisionError)
      assert.deepStrictEqual([error.name, error.servers], ["echo", ["a", "b"]])
      assert.match(error.message, /servers a and b both offer a tool named "echo"/)
      assert.instanceOf(yield* Effect.flip(client.callTool("add", {})), ToolNameCollisionError)
      assert.deepStrictEqual([...(yield* sent(a)), ...(yield* sent(b))], [])
    }))

  it.scoped("collisions \"first\": the first configured server's tool is kept", () =>
    Effect.gen(function*() {
      const { a, b, configA, configB } = yield* twoServers
      const client = yield* McpClient.make({ servers: [configB, configA], toolCollisions: "first" })
      const tools = yield* client.listTools()
      assert.deepStrictEqual(tools.map((t) => `${t.server}:${t.name}`), ["b:echo", "b:blob", `b:${LONG}`, "a:add"])
      assert.strictEqual(textOf(yield* client.callTool("echo", { message: "hi" })), "b: hi")
      assert.deepStrictEqual(yield* sent(a), [])
      assert.deepStrictEqual(yield* sent(b), ["echo"])
    }))

  it.scoped("collisions \"prefix\": only the colliding names get their server's name", () =>
    Effect.gen(function*() {
      const { a, b, configA, configB } = yield* twoServers
      const client = yield* McpClient.make({ servers: [configA, configB], toolCollisions: "prefix" })
      assert.deepStrictEqual((yield* client.listTools()).map((t) => t.name), [
        "a__echo",
        "add",
        "b__echo",
        "blob",
        LONG
      ])
      assert.deepStrictEqual((yield* client.listTools({ server: "b" })).map((t) => t.name), ["b__echo", "blob", LONG])
      assert.strictEqual(textOf(yield* client.callTool("b__echo", { message: "hi" })), "b: hi")
      assert.strictEqual(textOf(yield* client.callTool("add", {})), "add")
      assert.deepStrictEqual(yield* sent(a), ["add"])
      assert.deepStrictEqual(yield* sent(b), ["echo"])
    }))

  it.scoped("a page follows the policy: a tool hidden by \"first\" is left out of its server's page", () =>
    Effect.gen(function*() {
      const { configA, configB } = yield* twoServers
      const client = yield* McpClient.make({ servers: [configA, configB], toolCollisions: "first" })
      assert.deepStrictEqual((yield* client.listToolsPage(undefined, { server: "b" })).items.map((t) => t.name), [
        "blob",
        LONG
      ])
    }))

  it.scoped("a rename onto another of the server's own names is a collision too", () =>
    Effect.gen(function*() {
      const { configA } = yield* twoServers
      const client = yield* McpClient.make({
        servers: [{ ...configA, toolNames: { echo: "add" } }],
        toolCollisions: "error"
      })
      const error = yield* Effect.flip(client.listTools())
      assert.instanceOf(error, ToolNameCollisionError)
      assert.deepStrictEqual([error.name, error.servers], ["add", ["a", "a"]])
    }))

  it.scoped("without a policy, a name on two servers is listed twice and ambiguous, as before", () =>
    Effect.gen(function*() {
      const { configA, configB } = yield* twoServers
      const client = yield* McpClient.make({ servers: [configA, configB] })
      assert.strictEqual((yield* client.listTools()).filter((t) => t.name === "echo").length, 2)
      assert.instanceOf(yield* Effect.flip(client.callTool("echo", {})), AmbiguousToolError)
    }))

  it("provider names: valid, at most 64 characters, stable, kept when already valid", () => {
    const valid = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
    for (const name of [LONG, "a.b", "with space", "1st", "-x", "", "é", `gh__${"x".repeat(70)}`]) {
      const mapped = ToolFormats.providerName(name)
      assert.match(mapped, valid, name)
      assert.strictEqual(ToolFormats.providerName(name), mapped)
    }
    // The same in every run and runtime: FNV-1a of the name (checked against an independent computation).
    assert.strictEqual(ToolFormats.providerName("a.b"), "a_b_108bf50c")
    assert.strictEqual(ToolFormats.providerName("create_issue"), "create_issue")
    assert.notStrictEqual(ToolFormats.providerName("a.b"), ToolFormats.providerName("a b"))
    assert.strictEqual(ToolFormats.providerName("x".repeat(64)), "x".repeat(64))
    assert.strictEqual(ToolFormats.providerName("x".repeat(65)).length, 64)
  })

  it.scoped("the LLM formats emit provider names, and a call by one reaches the right server with the original name", () =>
    Effect.gen(function*() {
      const { a, b, configA, configB } = yield* twoServers
      const servers: ReadonlyArray<ServerConfig.ServerConfig> = [configA, { ...configB, toolPrefix: true }]
      const client = yield* McpClient.make({ servers })
      const tools = yield* client.listTools()
      const openai = ToolFormats.toOpenAI(tools).map((t) => t.function.name)
      for (const name of openai) assert.match(name, /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/)
      assert.deepStrictEqual(ToolFormats.toAnthropic(tools).map((t) => t.name), openai)
      assert.deepStrictEqual(ToolFormats.toGoogle(tools).map((t) => t.name), openai)
      const long = openai[4]!
      assert.notStrictEqual(long, `b__${LONG}`)
      assert.strictEqual(ToolFormats.providerNames(tools).get(long)?.originalName, LONG)
      assert.strictEqual(textOf(yield* client.callTool(long, {})), LONG)
      assert.deepStrictEqual(yield* sent(b), [LONG])
      assert.deepStrictEqual(yield* sent(a), [])
    }))

  it.scoped("without naming, a provider name is still taken by the only server's client", () =>
    Effect.gen(function*() {
      const { b, configB } = yield* twoServers
      const client = yield* McpClient.make({ servers: [configB] })
      const [long] = ToolFormats.toAnthropic(yield* client.listTools()).map((t) => t.name).slice(2)
      assert.strictEqual(long, ToolFormats.providerName(LONG))
      assert.isUndefined(client.unsafeCallTool?.(long!, {}, undefined, () => {}))
      assert.strictEqual(textOf(yield* client.callTool(long!, {})), LONG)
      assert.deepStrictEqual(yield* sent(b), [LONG])
    }))
})
