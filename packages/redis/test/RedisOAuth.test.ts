/**
 * The OAuth storage in a real Redis: entries, the refresh lock's exclusion, a lock whose holder
 * died (it expires), and release by the owner only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Redis from "@mcp-effect/redis/Redis"
import * as RedisOAuth from "@mcp-effect/redis/RedisOAuth"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { redisServer } from "./redisServer.js"

const storageOn = (url: string, options?: RedisOAuth.StorageOptions) =>
  Effect.map(Redis.make(url), (client) => ({ client, storage: RedisOAuth.makeStorage(client, options) }))

describe("RedisOAuth storage", () => {
  it.scopedLive("gets, sets and removes JSON values, shared by every client of the same Redis", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const a = yield* storageOn(redis.url)
      const b = yield* storageOn(redis.url)
      assert.isUndefined(yield* a.storage.get("token:x"))
      const token = { accessToken: "at", refreshToken: "rt", expiresAt: 1_700_000_000_000, scopes: ["a", "b"] }
      yield* a.storage.set("token:x", token)
      assert.deepStrictEqual(yield* b.storage.get("token:x"), token)
      assert.strictEqual(yield* Effect.promise(() => a.client.get("mcp-effect:oauth:token:x")), JSON.stringify(token))
      yield* b.storage.remove("token:x")
      assert.isUndefined(yield* a.storage.get("token:x"))
      // Removing what is not there is no failure.
      yield* a.storage.remove("token:x")
    }))

  it.scopedLive("the layer gives OAuth.make its storage", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      yield* Effect.gen(function*() {
        const storage = yield* OAuth.OAuthStorage
        yield* storage.set("k", 1)
        assert.strictEqual(yield* storage.get("k"), 1)
      }).pipe(Effect.provide(RedisOAuth.layerStorage({ prefix: "p:" }).pipe(Layer.provide(Redis.layer(redis.url)))))
    }))

  it.scopedLive("the lock lets one holder in at a time, across clients", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const a = yield* storageOn(redis.url)
      const b = yield* storageOn(redis.url)
      const log: Array<string> = []
      const holding = (name: string) =>
        Effect.gen(function*() {
          log.push(`${name} in`)
          yield* Effect.sleep("100 millis")
          log.push(`${name} out`)
        })
      yield* Effect.all([
        a.storage.withLock!("refresh:s", holding("a")),
        b.storage.withLock!("refresh:s", holding("b")),
        a.storage.withLock!("refresh:s", holding("c"))
      ], { concurrency: "unbounded" })
      for (let i = 0; i < log.length; i += 2) {
        assert.strictEqual(log[i]!.split(" ")[0], log[i + 1]!.split(" ")[0], log.join(", "))
      }
      // Released: nothing left in Redis.
      assert.isNull(yield* Effect.promise(() => a.client.get("mcp-effect:oauth:lock:refresh:s")))
    }))

  it.scopedLive("a lock whose holder died expires, and the next one takes it", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { client, storage } = yield* storageOn(redis.url, { lockWait: "20 seconds" })
      // What a crashed holder leaves: its token, with an expiry.
      yield* Effect.promise(() => client.set("mcp-effect:oauth:lock:refresh:s", "crashed", "PX", 500))
      const ran = yield* storage.withLock!("refresh:s", Effect.succeed("ran"))
      assert.strictEqual(ran, "ran")
    }))

  it.scopedLive("a waiter gives up after lockWait with a storage error", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { client, storage } = yield* storageOn(redis.url, { lockWait: "300 millis" })
      yield* Effect.promise(() => client.set("mcp-effect:oauth:lock:refresh:s", "other", "PX", 60_000))
      const exit = yield* Effect.exit(storage.withLock!("refresh:s", Effect.succeed("ran")))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) assert.include(String(exit.cause), "OAuthStorageError")
    }))

  it.scopedLive("only the owner releases: a lock taken over after expiry stays with its new holder", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { client, storage } = yield* storageOn(redis.url, { lockTtl: "200 millis" })
      const key = "mcp-effect:oauth:lock:refresh:s"
      const fiber = yield* Effect.fork(storage.withLock!(
        "refresh:s",
        Effect.gen(function*() {
          // The lock expires under a slow holder and another process takes it.
          yield* Effect.sleep("400 millis")
          yield* Effect.promise(() => client.set(key, "new-holder", "PX", 60_000))
        })
      ))
      yield* Fiber.join(fiber)
      assert.strictEqual(yield* Effect.promise(() => client.get(key)), "new-holder")
    }))
})
