import { assert, describe, it } from "@effect/vitest"
import * as InMemory from "@mcp-effect/client/InMemory"
import * as Limits from "@mcp-effect/client/internal/limits"
import * as McpClient from "@mcp-effect/client/McpClient"
import { CapabilityError, ConnectionError, ServerNotFoundError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import { connect, options } from "./utils/connection.js"

/** The fake's results with their freshness hints removed, as a server that sends none. */
const withoutHints = (server: FakeServer.FakeServer) =>
  InMemory.config({
    name: "fake",
    server: (client) =>
      server.serve({
        send: (message) => {
          const m = message as { result?: Record<string, unknown> }
          if (typeof m.result === "object" && m.result !== null) {
            const { cacheScope: _scope, ttlMs: _ttl, ...rest } = m.result
            client.onMessage({ ...message, result: rest })
          } else client.onMessage(message)
        },
        sendRaw: (text) => client.onMessage(text),
        close: (reason) => client.onClose(new ConnectionError({ server: "fake", message: reason }))
      })
  })

const toolLists = (server: FakeServer.FakeServer) => Effect.map(server.requests("tools/list"), (r) => r.length)

/** A modern logging server whose `server/discover` answers `result` (the first `times` only, if given). */
const answeringDiscover = (result: object, times?: number) =>
  connect({
    ...Scenarios.demo,
    era: "modern",
    logging: true,
    faults: [{ method: "server/discover", action: "result", result, ...(times === undefined ? {} : { times }) }]
  })

describe("caching of 2026-07-28 results", () => {
  it.scoped("a list without ttlMs has ttl 0 and a missing cacheScope means private: never reused", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern" })
      const connection = yield* ServerConnection.make(withoutHints(server), options())
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
      const info = yield* connection.cacheInfo("tools")
      assert.deepStrictEqual(
        info && { ttlMs: info.ttlMs, cacheScope: info.cacheScope, fresh: info.fresh },
        { ttlMs: 0, cacheScope: "private", fresh: false }
      )
    }))

  it.scoped("a legacy list without hints is kept until list_changed", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(Scenarios.demo)
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 1)
      const info = yield* connection.cacheInfo("tools")
      assert.deepStrictEqual(info && [info.ttlMs, info.cacheScope, info.fresh], [undefined, "public", true])
      yield* server.notify("notifications/tools/list_changed")
      yield* Effect.yieldNow()
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }))

  it.scoped("changing the log level misses the cache", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, era: "modern", ttlMs: 60_000, logging: true })
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 1)
      yield* connection.setLogLevel("debug")
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
      const last = (yield* server.requests("tools/list"))[1]!
      assert.strictEqual((last.params?._meta as Record<string, unknown>)["io.modelcontextprotocol/logLevel"], "debug")
    }))

  it.scoped("changing requestMeta misses the cache; the same value hits it", () =>
    Effect.gen(function*() {
      const tenant = yield* Ref.make("a")
      const { connection, server } = yield* connect(
        { ...Scenarios.demo, era: "modern", ttlMs: 60_000 },
        { requestMeta: Effect.map(Ref.get(tenant), (t) => ({ "example.com/tenant": t })) }
      )
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 1)
      yield* Ref.set(tenant, "b")
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }))

  it.scoped("server/discover is cached by its ttlMs and re-fetched once it lapsed, before a capability check", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect({ ...Scenarios.demo, era: "modern", ttlMs: 60_000, logging: true })
      const discovers = Effect.map(server.requests("server/discover"), (r) => r.length)
      assert.strictEqual(yield* discovers, 1)
      assert.strictEqual((yield* connection.cacheInfo("discover"))?.ttlMs, 60_000)
      yield* connection.setLogLevel("info")
      assert.strictEqual(yield* discovers, 1)
      yield* TestClock.adjust("61 seconds")
      yield* connection.setLogLevel("info")
      assert.strictEqual(yield* discovers, 2)
      assert.isTrue((yield* connection.cacheInfo("discover"))?.fresh)
    }))

  it.scoped("a re-discovery applies the server's new capabilities", () =>
    Effect.gen(function*() {
      // The first discovery declares no logging; the next one, a minute later, does.
      const { connection } = yield* answeringDiscover({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} }
      }, 1)
      assert.isUndefined(connection.negotiated()?.capabilities.logging)
      yield* TestClock.adjust(`${Limits.MIN_REDISCOVERY_INTERVAL_MS} millis`)
      yield* connection.setLogLevel("info")
      assert.isDefined(connection.negotiated()?.capabilities.logging)
    }))

  it.scoped("a re-discovery that no longer offers 2026-07-28 detects the era afresh", () =>
    Effect.gen(function*() {
      // The first discovery is answered as usual; the next ones offer only a legacy revision.
      const legacyOnly = { supportedVersions: ["2025-11-25"], capabilities: { tools: {}, logging: {} } }
      const { connection, server } = yield* connect({
        ...Scenarios.demo,
        era: "dual",
        logging: true,
        faults: [
          { method: "server/discover", action: "delay", millis: 0, times: 1 },
          { method: "server/discover", action: "result", result: legacyOnly, times: 2 }
        ]
      })
      assert.strictEqual(connection.negotiated()?.era, "modern")
      yield* TestClock.adjust(`${Limits.MIN_REDISCOVERY_INTERVAL_MS} millis`)
      yield* connection.setLogLevel("info")
      assert.strictEqual(connection.negotiated()?.era, "legacy")
      assert.strictEqual((yield* server.requests("initialize")).length, 1)
      assert.strictEqual((yield* server.requests("logging/setLevel")).length, 1)
    }))

  it.scoped("a re-discovery without logging refuses setLogLevel with CapabilityError", () =>
    Effect.gen(function*() {
      const { connection } = yield* answeringDiscover({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} }
      }, 2)
      yield* TestClock.adjust(`${Limits.MIN_REDISCOVERY_INTERVAL_MS} millis`)
      const error = yield* Effect.flip(connection.setLogLevel("info"))
      assert.instanceOf(error, CapabilityError)
    }))

  it.scoped("a discovery with ttlMs 0 is fetched again at most once a minute, not before every request", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* answeringDiscover({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {}, logging: {} },
        ttlMs: 0
      })
      const discovers = Effect.map(server.requests("server/discover"), (r) => r.length)
      yield* connection.setLogLevel("info")
      yield* connection.setLogLevel("debug")
      assert.strictEqual(yield* discovers, 1)
      yield* TestClock.adjust(`${Limits.MIN_REDISCOVERY_INTERVAL_MS} millis`)
      yield* connection.setLogLevel("info")
      yield* connection.setLogLevel("debug")
      assert.strictEqual(yield* discovers, 2)
    }))
})

describe("clearCache", () => {
  it.scoped("ServerConnection.clearCache drops the cached lists", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* connect(Scenarios.demo)
      yield* connection.listTools()
      yield* connection.clearCache
      assert.isUndefined(yield* connection.cacheInfo("tools"))
      yield* connection.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }))

  it.scoped("McpClient.clearCache clears one server or all, and names an unknown one", () =>
    Effect.gen(function*() {
      const a = yield* FakeServer.make(Scenarios.demo)
      const b = yield* FakeServer.make(Scenarios.demo)
      const client = yield* McpClient.make({ servers: [a.config({ name: "a" }), b.config({ name: "b" })] })
      yield* client.listTools()
      yield* client.clearCache("a")
      assert.isUndefined(yield* client.cacheInfo("tools", { server: "a" }))
      assert.isDefined(yield* client.cacheInfo("tools", { server: "b" }))
      yield* client.clearCache()
      assert.isUndefined(yield* client.cacheInfo("tools", { server: "b" }))
      assert.instanceOf(yield* Effect.flip(client.clearCache("c")), ServerNotFoundError)
    }))
})
