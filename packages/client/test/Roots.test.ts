import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import { tapped } from "./utils/connection.js"

const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"

/** A tool that asks the client for its roots (2026-07-28 input request) and reports them. */
const where = FakeServer.tool("where", (_, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? { resultType: "input_required" as const, inputRequests: { r: { method: "roots/list" } } }
      : JSON.stringify(context.inputResponses.r)
  ))

const work = [{ uri: "file:///work", name: "work" }]

describe("roots at any time", () => {
  it.scoped("setRoots on a 2026-07-28 client built without roots declares them on the next request", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", tools: [where] })
      const client = yield* McpClient.make({ servers: [server.config()] })
      yield* client.listTools()
      const before = (yield* server.requests("tools/list"))[0]!.params!._meta as Record<string, Record<string, unknown>>
      assert.isUndefined(before[CAPABILITIES].roots)
      yield* client.setRoots(work)
      const result = yield* client.callTool("where")
      assert.deepStrictEqual(JSON.parse((result.content[0] as { text: string }).text), { roots: work })
      const after = (yield* server.requests("tools/call"))[0]!.params!._meta as Record<string, Record<string, unknown>>
      assert.deepStrictEqual(after[CAPABILITIES].roots, {})
      assert.deepStrictEqual(client.roots(), work)
      assert.deepStrictEqual(client.servers[0]!.roots(), work)
    }))

  it.scoped("setRoots on a legacy session without roots re-initializes it on next use, declaring them", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { config, inject } = tapped(server)
      const client = yield* McpClient.make({ servers: [config] })
      const first = (yield* server.requests("initialize"))[0]!
      assert.isUndefined((first.params!.capabilities as Record<string, unknown>).roots)
      yield* client.setRoots(work)
      assert.strictEqual((yield* server.requests("initialize")).length, 1, "nothing happens before the next use")
      yield* client.callTool("echo", { message: "hi" })
      const initializes = yield* server.requests("initialize")
      assert.strictEqual(initializes.length, 2)
      assert.deepStrictEqual((initializes[1]!.params!.capabilities as Record<string, unknown>).roots, {
        listChanged: true
      })
      inject({ jsonrpc: "2.0", id: "roots-1", method: "roots/list" })
      yield* Effect.yieldNow()
      const answer = (yield* server.received).find((r) => r.message.id === "roots-1")
      assert.deepStrictEqual(answer?.message.result, { roots: work })
    }))
  it.scoped("a roots function is read at every roots/list, until setRoots replaces it", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", tools: [where] })
      let current: ReadonlyArray<{ uri: string; name: string }> = work
      const client = yield* McpClient.make({ servers: [server.config()], handlers: { roots: () => current } })
      const rootsSeen = (result: { content: ReadonlyArray<unknown> }) =>
        JSON.parse((result.content[0] as { text: string }).text)
      assert.deepStrictEqual(rootsSeen(yield* client.callTool("where")), { roots: work })
      const home = [{ uri: "file:///home", name: "home" }]
      current = home
      assert.deepStrictEqual(rootsSeen(yield* client.callTool("where")), { roots: home })
      assert.deepStrictEqual(client.roots(), home)
      yield* client.setRoots(work)
      current = []
      assert.deepStrictEqual(rootsSeen(yield* client.callTool("where")), { roots: work })
    }))
})
