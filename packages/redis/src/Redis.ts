/**
 * A connection to Redis (an `ioredis` client) as a service, for the layers of this package:
 * {@link layer} opens one for the layer's lifetime and closes it after; a host that has a client
 * already gives it with `Layer.succeed(Redis.Redis, client)`.
 *
 * @example
 * ```ts
 * import * as Redis from "@mcp-effect/redis/Redis"
 * import * as RedisOAuth from "@mcp-effect/redis/RedisOAuth"
 * import * as Layer from "effect/Layer"
 *
 * const storage = RedisOAuth.layerStorage().pipe(Layer.provide(Redis.layer("redis://127.0.0.1:6379")))
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { Redis as IORedis, type RedisOptions } from "ioredis"

/**
 * The `ioredis` client the layers of this package use.
 *
 * @since 0.2.0
 * @category tags
 */
export class Redis extends Context.Tag("@mcp-effect/redis/Redis")<Redis, IORedis>() {}

/**
 * Where Redis is: a `redis://` (or `rediss://`) URL, or `ioredis` options. Unless the options say
 * otherwise, a command fails after 2 seconds without an answer (`commandTimeout: 2000`) or a few
 * reconnection attempts (`maxRetriesPerRequest: 3`), so that a Redis that is down fails a storage
 * call (and misses the cache) instead of holding a request.
 *
 * @since 0.2.0
 * @category models
 */
export type Options = string | RedisOptions

const defaults: RedisOptions = { maxRetriesPerRequest: 3, connectTimeout: 5_000, commandTimeout: 2_000 }

// ioredis's own option types disagree with each other under `exactOptionalPropertyTypes`
// (`replyMapping`), so its constructor is taken with the signature its docs give.
const Client = IORedis as unknown as new(target: string | RedisOptions, options?: RedisOptions) => IORedis

/**
 * A client for Promise code, which closes it itself (`await client.quit()`): `ioredis`'s `Redis`
 * with the defaults of {@link Options}.
 *
 * @example
 * ```ts
 * import { connect } from "@mcp-effect/node"
 * import * as Redis from "@mcp-effect/redis/Redis"
 * import * as RedisCacheStore from "@mcp-effect/redis/RedisCacheStore"
 * import * as RedisOAuth from "@mcp-effect/redis/RedisOAuth"
 *
 * const redis = Redis.makeClient("redis://127.0.0.1:6379")
 * const client = await connect("https://mcp.example.com/mcp", {
 *   oauth: { storage: RedisOAuth.makeStorage(redis) },
 *   cacheStore: RedisCacheStore.make(redis)
 * })
 * await client.close()
 * await redis.quit()
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeClient = (options: Options): IORedis => {
  const client = typeof options === "string" ? new Client(options, defaults) : new Client({ ...defaults, ...options })
  // Connection failures reach the commands that needed the connection (a storage error, a cache
  // miss); without a listener ioredis would also print each reconnection attempt's error.
  client.on("error", () => {})
  return client
}

/**
 * A client opened now and closed (`QUIT`) when the scope closes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<IORedis, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => makeClient(options)),
    (client) => Effect.promise(() => client.quit().then(() => undefined, () => client.disconnect()))
  )

/**
 * {@link make} as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Redis> => Layer.scoped(Redis, make(options))
