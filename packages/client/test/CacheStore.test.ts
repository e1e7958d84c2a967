import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { assert, describe, it } from "@effect/vitest"
import * as CacheStore from "@mcp-effect/client/CacheStore"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { options } from "./utils/connection.js"

const toolLists = (server: FakeServer.FakeServer) => Effect.map(server.requests("tools/list"), (r) => r.length)

/** Two connections to one fake server, both given the same store. */
const twoConnections = (definition: FakeServer.Definition) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const first = yield* ServerConnection.make(server.config({ name: "fake" }), options())
    const second = yield* ServerConnection.make(server.config({ name: "fake" }), options())
    return { server, first, second }
  })

describe("CacheStore on a KeyValueStore", () => {
  it.effect("keeps a value until its expiry, then misses and removes it", () =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const store = CacheStore.fromKeyValueStore(kv)
      yield* store.set("k", "v", 1_000)
      assert.strictEqual(yield* store.get("k"), "v")
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(yield* store.get("k"), "v")
      yield* TestClock.adjust("1 millis")
      assert.isUndefined(yield* store.get("k"))
      assert.strictEqual(yield* kv.size, 0)
      yield* store.remove("absent")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})

describe("results shared through a CacheStore", () => {
  it.scoped("a public list one connection fetched serves another", () =>
    Effect.gen(function*() {
      const { first, second, server } = yield* twoConnections({
        ...Scenarios.demo,
        era: "modern",
        ttlMs: 60_000,
        cacheScope: "public"
      })
      const tools = yield* first.listTools()
      assert.deepStrictEqual(yield* second.listTools(), tools)
      assert.strictEqual(yield* toolLists(server), 1)
      const info = yield* second.cacheInfo("tools")
      assert.deepStrictEqual(info && [info.ttlMs, info.cacheScope, info.fresh], [60_000, "public", true])
    }).pipe(Effect.provide(CacheStore.layerMemory)))

  it.scoped("a private list fetched without a credential is not shared", () =>
    Effect.gen(function*() {
      const { first, second, server } = yield* twoConnections({
        ...Scenarios.demo,
        era: "modern",
        ttlMs: 60_000,
        cacheScope: "private"
      })
      yield* first.listTools()
      yield* first.listTools()
      yield* second.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }).pipe(Effect.provide(CacheStore.layerMemory)))

  it.scoped("clearCache drops what the connection shared: the next call of any connection re-fetches", () =>
    Effect.gen(function*() {
      const { first, second, server } = yield* twoConnections(Scenarios.demo)
      yield* first.listTools()
      yield* first.clearCache
      yield* second.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }).pipe(Effect.provide(CacheStore.layerMemory)))

  it.scoped("a ttlMs beyond a day is honoured for a day only", () =>
    Effect.gen(function*() {
      const { first, second, server } = yield* twoConnections({
        ...Scenarios.demo,
        era: "modern",
        ttlMs: 10 * 24 * 3_600_000,
        cacheScope: "public"
      })
      yield* first.listTools()
      yield* TestClock.adjust("23 hours")
      yield* second.listTools()
      assert.strictEqual(yield* toolLists(server), 1)
      yield* TestClock.adjust("1 hours")
      yield* second.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
      // The first connection's own copy is stale too; the one the second just shared is not.
      yield* first.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }).pipe(Effect.provide(CacheStore.layerMemory)))

  it.scoped("without a store, connections cache alone", () =>
    Effect.gen(function*() {
      const { first, second, server } = yield* twoConnections({
        ...Scenarios.demo,
        era: "modern",
        ttlMs: 60_000,
        cacheScope: "public"
      })
      yield* first.listTools()
      yield* second.listTools()
      assert.strictEqual(yield* toolLists(server), 2)
    }))

  it.scoped("a store given as a layer of KeyValueStore serves the same way", () =>
    Effect.gen(function*() {
      const { first, second, server } = yield* twoConnections({
        ...Scenarios.demo,
        era: "modern",
        ttlMs: 60_000,
        cacheScope: "public"
      })
      yield* first.listTools()
      yield* second.listTools()
      assert.strictEqual(yield* toolLists(server), 1)
    }).pipe(
      Effect.provide(CacheStore.layerKeyValueStore({ prefix: "x/" }).pipe(Layer.provide(KeyValueStore.layerMemory)))
    ))
})
