/**
 * Tool filters per server (issue #36, point 1): allow and deny lists with `*` globs; a filtered
 * tool is in no list and calling it is refused locally with ToolNotFoundError, nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ToolNotFoundError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import { compile } from "../src/internal/toolFilter.js"

const admin = FakeServer.tool("delete_repo_admin", () => Effect.succeed("deleted"))
const definition = { ...Scenarios.demo, tools: [...Scenarios.demo.tools!, admin] }

describe("tool filters", () => {
  it("globs: * is any run of characters, nothing else is special", () => {
    const allowed = compile({ include: ["ec*", "a.d", "delete_*"], exclude: ["*_admin"] })!
    assert.isTrue(allowed("echo"))
    assert.isTrue(allowed("a.d"))
    assert.isFalse(allowed("add"), "a dot is a dot")
    assert.isFalse(allowed("delete_repo_admin"))
    assert.isTrue(allowed("delete_repo"))
    assert.isUndefined(compile(undefined))
    assert.isUndefined(compile({ exclude: [] }))
    assert.isFalse(compile({ include: [] })!("echo"), "an empty allow list allows nothing")
  })

  for (const era of ["legacy", "dual"] as const) {
    it.scoped(`${era}: filtered tools are in no list and their calls are refused, nothing sent`, () =>
      Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...definition, era })
        const client = yield* McpClient.make({
          servers: [{ ...server.config({ name: "gh" }), tools: { exclude: ["*_admin", "blob"] } }]
        })
        const names = (yield* client.listTools()).map((t) => t.name)
        assert.notInclude(names, "delete_repo_admin")
        assert.notInclude(names, "blob")
        assert.include(names, "echo")
        assert.notInclude(ToolFormats.toOpenAI(yield* client.listTools()).map((t) => t.function.name), "blob")
        assert.instanceOf(yield* Effect.flip(client.findTool("delete_repo_admin")), ToolNotFoundError)
        const error = yield* Effect.flip(client.callTool("delete_repo_admin", {}))
        assert.instanceOf(error, ToolNotFoundError)
        assert.strictEqual(error.server, "gh")
        assert.instanceOf(yield* Effect.flip(client.callToolAsTask("blob", {})), ToolNotFoundError)
        assert.deepStrictEqual(
          (yield* server.requests("tools/call")).map((r) => r.params?.name),
          [],
          "nothing was sent"
        )
        assert.strictEqual((yield* client.callTool("echo", { message: "hi" })).isError, undefined)
      }))
  }

  it.scoped("an allow list, on a connection's fiber-free path too", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(definition)
      const connection = yield* ServerConnection.make(
        { ...server.config({ name: "only-echo" }), tools: { include: ["echo"] } },
        { clientInfo: { name: "t", version: "1" }, onNotification: () => {} }
      )
      assert.deepStrictEqual((yield* connection.listTools()).map((t) => t.name), ["echo"])
      const unsafe = connection.unsafeCallTool!
      assert.isUndefined(unsafe("add", { a: 1, b: 2 }, undefined, () => {}))
      assert.instanceOf(yield* Effect.flip(connection.callTool("add", { a: 1, b: 2 })), ToolNotFoundError)
      assert.deepStrictEqual(yield* server.requests("tools/call"), [])
    }))
})
