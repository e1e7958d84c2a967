/**
 * The response cache in a real Redis: shared by client processes (public lists by everyone,
 * private lists only by the requests that carry the same credential), and user A never reads
 * user B's private list, in one process or across processes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Redis from "@mcp-effect/redis/Redis"
import * as RedisCacheStore from "@mcp-effect/redis/RedisCacheStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Redis as IORedis } from "ioredis"
import { run, succeeded } from "./processes.js"
import { redisServer } from "./redisServer.js"
import * as UserServer from "./userServer.js"

const keysIn = (url: string) =>
  Effect.promise(async () => {
    const client = new IORedis(url)
    try {
      return await client.keys("*")
    } finally {
      await client.quit()
    }
  })

const listAs = (serverUrl: string, redisUrl: string, token: string) =>
  Effect.map(run("cacheProcess.mjs", serverUrl, redisUrl, token), (outcome) => {
    succeeded(outcome)
    return outcome.result.tools as ReadonlyArray<string>
  })

/** A client of `url` sending `token`, its cache store in the Redis given. */
const clientLayer = (url: string, token: string) =>
  NodeMcpClient.layer({
    servers: [
      StreamableHttp.config({ name: "users", url, headers: { authorization: `Bearer ${token}` } })
    ],
    clientInfo: { name: `client-${token}`, version: "1.0.0" },
    protocol: "legacy"
  })

describe("RedisCacheStore", () => {
  it.scopedLive("a public list fetched by one process serves the others", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const server = yield* UserServer.make("public")
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "a"), ["shared-tool"])
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "b"), ["shared-tool"])
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "c"), ["shared-tool"])
      // One request for all three processes.
      assert.strictEqual([...server.lists.values()].reduce((a, b) => a + b, 0), 1)
    }))

  it.scopedLive("private lists are shared per credential across processes, and no user reads another's", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const server = yield* UserServer.make("private")
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "a"), ["tool-of-user-a"])
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "b"), ["tool-of-user-b"])
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "a"), ["tool-of-user-a"])
      assert.deepStrictEqual(yield* listAs(server.url, redis.url, "b"), ["tool-of-user-b"])
      // Each user's list fetched once, then served from Redis to that user only.
      assert.deepStrictEqual(Object.fromEntries(server.lists), { "user-a": 1, "user-b": 1 })
      const keys = yield* keysIn(redis.url)
      assert.strictEqual(keys.length, 2, keys.join(", "))
      // Keys hold the SHA-256 of the credential, never the credential.
      for (const key of keys) assert.notInclude(key, "Bearer")
    }))

  it.scopedLive("user A never reads user B's private list (two clients in one process)", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const server = yield* UserServer.make("private")
      const store = RedisCacheStore.layer().pipe(Layer.provide(Redis.layer(redis.url)))
      const listTools = (token: string) =>
        Effect.flatMap(McpClient.McpClient, (client) => client.listTools()).pipe(
          Effect.map((tools) => tools.map((tool) => tool.name)),
          Effect.provide(clientLayer(server.url, token)),
          Effect.provide(store)
        )
      assert.deepStrictEqual(yield* listTools("alice-token"), ["tool-of-user-alice-token"])
      assert.deepStrictEqual(yield* listTools("bob-token"), ["tool-of-user-bob-token"])
      assert.deepStrictEqual(yield* listTools("alice-token"), ["tool-of-user-alice-token"])
      assert.deepStrictEqual(yield* listTools("bob-token"), ["tool-of-user-bob-token"])
      assert.deepStrictEqual(Object.fromEntries(server.lists), { "user-alice-token": 1, "user-bob-token": 1 })
      for (const key of yield* keysIn(redis.url)) {
        assert.notInclude(key, "alice-token")
        assert.notInclude(key, "bob-token")
      }
    }))

  it.scopedLive("a Redis that cannot be reached is a miss: the list comes from the server", () =>
    Effect.gen(function*() {
      const server = yield* UserServer.make("public")
      // Nothing listens on port 1.
      const store = RedisCacheStore.layer().pipe(Layer.provide(Redis.layer("redis://127.0.0.1:1")))
      const tools = yield* Effect.flatMap(McpClient.McpClient, (client) => client.listTools()).pipe(
        Effect.provide(clientLayer(server.url, "a")),
        Effect.provide(store)
      )
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["shared-tool"])
      assert.strictEqual(server.lists.get("user-a"), 1)
    }))
})
