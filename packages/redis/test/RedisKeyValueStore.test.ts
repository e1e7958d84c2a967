/**
 * `KeyValueStore` in a real Redis: strings and bytes, removal, size and clear within the prefix,
 * and the storage and cache built on any `KeyValueStore` running on it.
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { assert, describe, it } from "@effect/vitest"
import * as CacheStore from "@mcp-effect/client/CacheStore"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Redis from "@mcp-effect/redis/Redis"
import * as RedisKeyValueStore from "@mcp-effect/redis/RedisKeyValueStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { redisServer } from "./redisServer.js"

describe("RedisKeyValueStore", () => {
  it.scopedLive("keeps strings and bytes under its prefix; size and clear see only the prefix", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const client = yield* Redis.make(redis.url)
      yield* Effect.promise(() => client.set("other:key", "kept"))
      const store = RedisKeyValueStore.make(client, { prefix: "a*b:" })
      assert.isTrue(Option.isNone(yield* store.get("k")))
      yield* store.set("k", "v")
      yield* store.set("bytes", new Uint8Array([0, 1, 255]))
      assert.deepStrictEqual(yield* store.get("k"), Option.some("v"))
      assert.deepStrictEqual(
        Option.map(yield* store.getUint8Array("bytes"), (bytes) => Array.from(bytes)),
        Option.some([0, 1, 255])
      )
      assert.strictEqual(yield* store.size, 2)
      yield* store.remove("k")
      assert.isFalse(yield* store.has("k"))
      yield* store.clear
      assert.strictEqual(yield* store.size, 0)
      assert.strictEqual(yield* Effect.promise(() => client.get("other:key")), "kept")
    }))

  it.scopedLive("OAuth storage and the cache store built on KeyValueStore run on it", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const kv = RedisKeyValueStore.layer().pipe(Layer.provide(Redis.layer(redis.url)))
      yield* Effect.gen(function*() {
        const storage = yield* OAuth.OAuthStorage
        const cache = yield* CacheStore.CacheStore
        yield* storage.set("client:https://as.example.com", { clientId: "c" })
        assert.deepStrictEqual(yield* storage.get("client:https://as.example.com"), { clientId: "c" })
        yield* cache.set("entry", "value", 60_000)
        assert.strictEqual(yield* cache.get("entry"), "value")
        assert.strictEqual(yield* (yield* KeyValueStore.KeyValueStore).size, 2)
      }).pipe(
        Effect.provide(
          Layer.mergeAll(OAuth.layerKeyValueStorage(), CacheStore.layerKeyValueStore()).pipe(
            Layer.provideMerge(kv)
          )
        )
      )
    }))
})
