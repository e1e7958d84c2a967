/**
 * Lazy connect (issue #36, point 9): configured servers connect on first use; a request to
 * every server connects them concurrently, within a bound.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConnectionError } from "@mcp-effect/client/McpError"
import type * as ServerConfig from "@mcp-effect/client/ServerConfig"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"

/** A server's config whose transport opens are counted (in flight, and at most at once). */
const counted = (config: ServerConfig.ServerConfig, gauge: { now: number; max: number; opened: number }) => ({
  ...config,
  transport: ((sink, server) =>
    Effect.gen(function*() {
      gauge.now++
      gauge.opened++
      gauge.max = Math.max(gauge.max, gauge.now)
      // Hold the open a little, so that opens running at once overlap.
      yield* Effect.sleep("20 millis")
      return yield* Effect.ensuring(config.transport(sink, server), Effect.sync(() => gauge.now--))
    })) as ServerConfig.ServerConfig["transport"]
})

describe("lazy connect", () => {
  it.scopedLive("make connects nothing; a named call connects its server only; listTools connects the rest within the bound", () =>
    Effect.gen(function*() {
      const gauge = { now: 0, max: 0, opened: 0 }
      const servers = yield* Effect.forEach(
        Array.from({ length: 6 }, (_, i) => `s${i}`),
        (name) => Effect.map(FakeServer.make(Scenarios.demo), (server) => counted(server.config({ name }), gauge))
      )
      const client = yield* McpClient.make({ servers, lazy: true, maxConcurrentConnects: 2 })
      assert.strictEqual(gauge.opened, 0, "nothing connected at make")
      assert.isTrue(client.servers.every((s) => s.negotiated() === undefined))
      yield* client.callTool("echo", { message: "hi" }, { server: "s3" })
      assert.strictEqual(gauge.opened, 1)
      assert.isDefined(client.servers[3]!.negotiated())
      const tools = yield* client.listTools()
      assert.strictEqual(new Set(tools.map((t) => t.server)).size, 6)
      assert.strictEqual(gauge.opened, 6)
      assert.isAtMost(gauge.max, 2, "at most maxConcurrentConnects opens at once")
    }))

  it.scopedLive("the bound is on connecting: connected servers are all asked at once", () =>
    Effect.gen(function*() {
      const lists = { now: 0, max: 0 }
      // Each tools/list takes a little to send, so that lists sent at once overlap.
      const slowLists = (config: ServerConfig.ServerConfig): ServerConfig.ServerConfig => ({
        ...config,
        transport: (sink, server) =>
          Effect.map(config.transport(sink, server), (transport) => ({
            ...transport,
            write: undefined,
            send: (message, hints) =>
              (message as { readonly method?: string }).method !== "tools/list"
                ? transport.send(message, hints)
                : Effect.gen(function*() {
                  lists.now++
                  lists.max = Math.max(lists.max, lists.now)
                  yield* Effect.sleep("20 millis")
                  lists.now--
                  return yield* transport.send(message, hints)
                })
          }))
      })
      const servers = yield* Effect.forEach(
        Array.from({ length: 4 }, (_, i) => `s${i}`),
        (name) => Effect.map(FakeServer.make(Scenarios.demo), (server) => slowLists(server.config({ name })))
      )
      const client = yield* McpClient.make({ servers, lazy: true, maxConcurrentConnects: 1 })
      yield* Effect.forEach(client.servers, (s) => s.connect, { discard: true })
      const tools = yield* client.listTools()
      assert.strictEqual(new Set(tools.map((t) => t.server)).size, 4)
      assert.strictEqual(lists.max, 4, "every connected server's tools/list at once")
    }))

  it.scopedLive("without lazy, make connects every server at once", () =>
    Effect.gen(function*() {
      const gauge = { now: 0, max: 0, opened: 0 }
      const servers = yield* Effect.forEach(
        ["a", "b", "c"],
        (name) => Effect.map(FakeServer.make(Scenarios.demo), (server) => counted(server.config({ name }), gauge))
      )
      yield* McpClient.make({ servers })
      assert.strictEqual(gauge.opened, 3)
      assert.strictEqual(gauge.max, 3)
    }))

  it.scopedLive("without lazy, maxConcurrentConnects bounds make's connects", () =>
    Effect.gen(function*() {
      const gauge = { now: 0, max: 0, opened: 0 }
      const servers = yield* Effect.forEach(
        Array.from({ length: 5 }, (_, i) => `s${i}`),
        (name) => Effect.map(FakeServer.make(Scenarios.demo), (server) => counted(server.config({ name }), gauge))
      )
      yield* McpClient.make({ servers, maxConcurrentConnects: 2 })
      assert.strictEqual(gauge.opened, 5)
      assert.strictEqual(gauge.max, 2, "two at a time")
    }))

  it.scopedLive("a lazy server that cannot connect fails the calls sent to it, not make", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const failing: ServerConfig.ServerConfig = {
        ...server.config({ name: "broken" }),
        transport: (_, name) => Effect.fail(new ConnectionError({ server: name, message: "connection refused" }))
      }
      const client = yield* McpClient.make({ servers: [server.config({ name: "ok" }), failing], lazy: true })
      assert.strictEqual((yield* client.callTool("echo", { message: "x" }, { server: "ok" })).isError, undefined)
      const error = yield* Effect.flip(client.callTool("echo", { message: "x" }, { server: "broken" }))
      assert.instanceOf(error, ConnectionError)
    }))
})
