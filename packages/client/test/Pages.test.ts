import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ServerError, ServerNotFoundError } from "@mcp-effect/client/McpError"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import { connect } from "./utils/connection.js"

const names = (items: ReadonlyArray<{ readonly name: string }>) => items.map((item) => item.name)
const cursors = (server: FakeServer.FakeServer) =>
  Effect.map(server.requests("tools/list"), (requests) => requests.map((r) => r.params?.cursor))

/** A tools/list whose cursor `c1` is rejected (-32602) the first `rejections` times. */
const expiringCursor = (rejections: number): FakeServer.MethodHandler => {
  let rejected = 0
  return (params) =>
    params.cursor === undefined
      ? Effect.succeed({ tools: [{ name: "a", inputSchema: { type: "object" } }], nextCursor: "c1" })
      : rejected++ < rejections
      ? Effect.fail({ code: -32602, message: "Invalid cursor" })
      : Effect.succeed({ tools: [{ name: "b", inputSchema: { type: "object" } }] })
}

describe("explicit cursors", () => {
  it.scoped("each page method returns one page and its nextCursor, uncached", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, pageSize: 3 })
      const first = yield* connection.listToolsPage()
      assert.strictEqual(first.items.length, 3)
      assert.strictEqual(first.nextCursor, "3")
      const second = yield* connection.listToolsPage(first.nextCursor)
      assert.deepStrictEqual(
        names([...first.items, ...second.items]),
        names(Scenarios.demo.tools!.map((t) => t.tool)).slice(0, 6)
      )
      yield* connection.listToolsPage()
      assert.deepStrictEqual(yield* cursors(server), [undefined, "3", undefined])
      const prompts = yield* connection.listPromptsPage()
      assert.deepStrictEqual(names(prompts.items), names(Scenarios.demo.prompts!.map((p) => p.prompt)).slice(0, 3))
      const resources = yield* connection.listResourcesPage()
      assert.strictEqual(resources.items.length, Math.min(3, Scenarios.demo.resources!.length))
      const templates = yield* connection.listResourceTemplatesPage()
      assert.deepStrictEqual(templates.items, Scenarios.demo.resourceTemplates!.slice(0, 3))
    }))

  it.scoped("a rejected cursor of a page method is the server's error", () =>
    Effect.gen(function*() {
      const { connection } = yield* connect({ methods: { "tools/list": expiringCursor(1) } })
      const error = yield* Effect.flip(connection.listToolsPage("c1"))
      assert.instanceOf(error, ServerError)
      assert.strictEqual((error as ServerError).code, -32602)
    }))

  it.scoped("the all-pages list restarts from the first page once when a cursor is rejected", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ methods: { "tools/list": expiringCursor(1) } })
      assert.deepStrictEqual(names(yield* connection.listTools()), ["a", "b"])
      assert.deepStrictEqual(yield* cursors(server), [undefined, "c1", undefined, "c1"])
    }))

  it.scoped("a cursor rejected again after the restart fails the list", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ methods: { "tools/list": expiringCursor(2) } })
      const error = yield* Effect.flip(connection.listTools())
      assert.instanceOf(error, ServerError)
      assert.deepStrictEqual(yield* cursors(server), [undefined, "c1", undefined, "c1"])
    }))

  it.scoped("a list stops at maxPages", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, pageSize: 1 }, { maxPages: 2 })
      assert.deepStrictEqual(
        names(yield* connection.listTools()),
        names(Scenarios.demo.tools!.map((t) => t.tool)).slice(0, 2)
      )
      assert.deepStrictEqual(yield* cursors(server), [undefined, "1"])
    }))

  it.scoped("McpClient pages come from { server } (or the only one), each item naming it", () =>
    Effect.gen(function*() {
      const a = yield* FakeServer.make({ ...Scenarios.demo, pageSize: 2 })
      const b = yield* FakeServer.make(Scenarios.demo)
      const client = yield* McpClient.make({ servers: [a.config({ name: "a" }), b.config({ name: "b" })] })
      const page = yield* client.listToolsPage(undefined, { server: "a" })
      assert.deepStrictEqual([page.items.length, page.nextCursor, page.items[0]!.server], [2, "2", "a"])
      const next = yield* client.listToolsPage(page.nextCursor, { server: "a" })
      assert.strictEqual(next.nextCursor, "4")
      assert.instanceOf(yield* Effect.flip(client.listToolsPage()), ServerNotFoundError)
    }))
})
