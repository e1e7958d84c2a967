/**
 * OAuth across real processes sharing one Redis (`programs/oauthProcess.mjs`, on the built
 * packages): processes racing on an expired token refresh it once and all succeed, a restarted
 * host refreshes silently, and a lock holder that crashed blocks no one for longer than its expiry.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Effect from "effect/Effect"
import { Redis } from "ioredis"
import { run, start, succeeded } from "./processes.js"
import { redisServer } from "./redisServer.js"

/** The first token lives this long (seconds); the later ones long enough for any test. */
const FIRST_LIFETIME = 2
const lifetimes = { expiresIn: (issued: number) => issued === 1 ? FIRST_LIFETIME : 600, rotateRefreshTokens: true }

const firstTokenExpired = Effect.sleep(`${FIRST_LIFETIME * 1000 + 200} millis`)

describe("OAuth across processes sharing Redis", () => {
  it.scopedLive("processes racing on an expired token refresh it once, and all succeed", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const server = yield* FakeOAuthServer.makeWith(lifetimes)
      const first = yield* run("oauthProcess.mjs", server.mcpUrl, redis.url, "interactive")
      succeeded(first)
      assert.isTrue(first.lines.includes("browser"))
      yield* firstTokenExpired
      const before = server.grants.length
      const racers = Array.from({ length: 3 }, () =>
        start("oauthProcess.mjs", [server.mcpUrl, redis.url, "silent", "--barrier"]))
      yield* Effect.promise(() =>
        Promise.all(racers.map((r) => r.printed("ready")))
      )
      for (const racer of racers) racer.go()
      const outcomes = yield* Effect.promise(() => Promise.all(racers.map((r) => r.done)))
      for (const outcome of outcomes) succeeded(outcome)
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["refresh_token"])
      // Kept in Redis by resource and issuer, the lock released; no secret in a key.
      const client = new Redis(redis.url)
      const keys = yield* Effect.promise(() => client.keys("*"))
      yield* Effect.promise(() => client.quit())
      assert.include(keys, `mcp-effect:oauth:token:${server.mcpUrl}`)
      assert.include(keys, `mcp-effect:oauth:client:${server.issuer}`)
      assert.isFalse(keys.some((key) => key.includes(":lock:")), keys.join(", "))
      for (const secret of server.secrets) assert.isFalse(keys.some((key) => key.includes(secret)))
    }))

  it.scopedLive("a refresh lock left by a crashed process expires, and one refresh follows", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const server = yield* FakeOAuthServer.makeWith(lifetimes)
      succeeded(yield* run("oauthProcess.mjs", server.mcpUrl, redis.url, "interactive"))
      yield* firstTokenExpired
      // A holder that dies holding the lock (SIGKILL: no release).
      const holder = start("oauthProcess.mjs", [server.mcpUrl, redis.url, "hold-lock"])
      yield* Effect.promise(() => holder.printed("locked"))
      holder.kill()
      yield* Effect.promise(() => holder.done)
      const client = new Redis(redis.url)
      const held = yield* Effect.promise(() => client.exists(`mcp-effect:oauth:lock:refresh:${server.mcpUrl}`))
      yield* Effect.promise(() => client.quit())
      assert.strictEqual(held, 1)
      const before = server.grants.length
      const racers = Array.from({ length: 2 }, () => start("oauthProcess.mjs", [server.mcpUrl, redis.url, "silent"]))
      const outcomes = yield* Effect.promise(() => Promise.all(racers.map((r) => r.done)))
      for (const outcome of outcomes) succeeded(outcome)
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["refresh_token"])
    }))
})
