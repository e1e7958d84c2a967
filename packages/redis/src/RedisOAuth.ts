/**
 * An `OAuthStorage` in Redis for fleets of hosts on several machines: tokens and client
 * registrations shared by every process that reaches the same Redis, and a refresh lock there
 * too, so that of the processes finding a token about to expire one refreshes it and the others
 * read what it stored (single flight). The lock expires (`lockTtl`), so a holder that crashed
 * blocks the others no longer than that; only its owner releases it.
 *
 * @example
 * ```ts
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as Redis from "@mcp-effect/redis/Redis"
 * import * as RedisOAuth from "@mcp-effect/redis/RedisOAuth"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * // OAuth.make takes the storage from the context.
 * const auth = OAuth.make({ serverUrl: "https://mcp.example.com/mcp" }).pipe(
 *   Effect.provide(RedisOAuth.layerStorage().pipe(Layer.provide(Redis.layer("redis://redis.internal:6379"))))
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as OAuth from "@mcp-effect/client/OAuth"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Redis as IORedis } from "ioredis"
import * as Lock from "./internal/lock.js"
import { Redis } from "./Redis.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface StorageOptions {
  /** Put before every key (default `mcp-effect:oauth:`); locks are under `<prefix>lock:`. */
  readonly prefix?: string | undefined
  /** How long a refresh may hold the lock before other processes take it (default 60 seconds). */
  readonly lockTtl?: Duration.DurationInput | undefined
  /** How long a process waits for the lock before its refresh fails (default 90 seconds). */
  readonly lockWait?: Duration.DurationInput | undefined
}

/** What failed, without the value (it holds secrets). */
const failure = (operation: string, key: string) => (e: unknown) =>
  new OAuth.OAuthStorageError({
    message: `redis ${operation} of ${key}: ${e instanceof Error ? e.message.slice(0, 200) : "failed"}`
  })

/**
 * The storage on `client`, which the host keeps open while the storage is used (Promise code:
 * `Redis.makeClient(url)`). Values are JSON strings.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeStorage = (client: IORedis, options: StorageOptions = {}): OAuth.OAuthStorage => {
  const prefix = options.prefix ?? "mcp-effect:oauth:"
  const lockOptions = { ttl: options.lockTtl ?? "60 seconds", wait: options.lockWait ?? "90 seconds" }
  return {
    get: (key) =>
      Effect.tryPromise({ try: () => client.get(prefix + key), catch: failure("get", key) }).pipe(
        Effect.flatMap((text) =>
          text === null ? Effect.succeed(undefined) : Effect.try({
            try: (): unknown => JSON.parse(text),
            catch: () => new OAuth.OAuthStorageError({ message: `redis entry ${key} is not JSON` })
          })
        )
      ),
    set: (key, value) =>
      Effect.asVoid(
        Effect.tryPromise({ try: () => client.set(prefix + key, JSON.stringify(value)), catch: failure("set", key) })
      ),
    remove: (key) =>
      Effect.asVoid(Effect.tryPromise({ try: () => client.del(prefix + key), catch: failure("del", key) })),
    withLock: (key, effect) => {
      const lockKey = `${prefix}lock:${key}`
      return Effect.acquireUseRelease(
        Effect.mapError(
          Lock.acquire(client, lockKey, lockOptions),
          (e) => new OAuth.OAuthStorageError({ message: e.message })
        ),
        () => effect,
        (token) => Lock.release(client, lockKey, token)
      )
    }
  }
}

/**
 * {@link makeStorage} on the `Redis` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerStorage = (options?: StorageOptions): Layer.Layer<OAuth.OAuthStorage, never, Redis> =>
  Layer.effect(OAuth.OAuthStorage, Effect.map(Redis, (client) => makeStorage(client, options)))
