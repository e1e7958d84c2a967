/**
 * A `CacheStore` in Redis: the cached lists and reads of every client process that reaches the
 * same Redis are shared (public results by all, private ones by the requests that carry the same
 * credential; `CacheStore` in `@mcp-effect/client` has the rules). Entries expire in Redis
 * (`PX`); a Redis that cannot be reached is a miss.
 *
 * @example
 * ```ts
 * import * as Redis from "@mcp-effect/redis/Redis"
 * import * as RedisCacheStore from "@mcp-effect/redis/RedisCacheStore"
 * import * as Layer from "effect/Layer"
 *
 * // Provide it with the client's layer: every connection finds the store in its context.
 * const shared = RedisCacheStore.layer().pipe(Layer.provide(Redis.layer("redis://redis.internal:6379")))
 * ```
 *
 * @since 0.2.0
 */
import * as CacheStore from "@mcp-effect/client/CacheStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Redis as IORedis } from "ioredis"
import { Redis } from "./Redis.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Put before every key (default `mcp-effect:cache:`). */
  readonly prefix?: string | undefined
}

const quietly = (operation: string, key: string) => <A>(promise: () => Promise<A>): Effect.Effect<A | undefined> =>
  Effect.catchAll(
    Effect.tryPromise(promise),
    (e) => Effect.as(Effect.logDebug(`redis cache store: ${operation} of ${key} failed: ${e.error}`), undefined)
  )

/**
 * The store on `client`, which the host keeps open while the store is used.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (client: IORedis, options: Options = {}): CacheStore.Service => {
  const prefix = options.prefix ?? "mcp-effect:cache:"
  return {
    get: (key) => Effect.map(quietly("get", key)(() => client.get(prefix + key)), (text) => text ?? undefined),
    set: (key, value, ttlMs) =>
      Effect.asVoid(quietly("set", key)(() => client.set(prefix + key, value, "PX", Math.max(1, Math.ceil(ttlMs))))),
    remove: (key) => Effect.asVoid(quietly("del", key)(() => client.del(prefix + key)))
  }
}

/**
 * {@link make} on the `Redis` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<CacheStore.CacheStore, never, Redis> =>
  Layer.effect(CacheStore.CacheStore, Effect.map(Redis, (client) => make(client, options)))
