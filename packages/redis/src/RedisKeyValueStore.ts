/**
 * `@effect/platform`'s `KeyValueStore` in Redis, under a prefix: whatever is built on a
 * `KeyValueStore` (`OAuth.layerKeyValueStorage`, `CacheStore.layerKeyValueStore`, a host's own
 * state) is then shared by every process that reaches the same Redis. For OAuth and the result
 * cache prefer `RedisOAuth` (its lock spans processes) and `RedisCacheStore` (entries expire in
 * Redis); this store has neither a lock nor expiry, as the `KeyValueStore` interface has none.
 *
 * @example
 * ```ts
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as Redis from "@mcp-effect/redis/Redis"
 * import * as RedisKeyValueStore from "@mcp-effect/redis/RedisKeyValueStore"
 * import * as Layer from "effect/Layer"
 *
 * const store = RedisKeyValueStore.layer({ prefix: "host:" }).pipe(Layer.provide(Redis.layer("redis://127.0.0.1:6379")))
 * const storage = OAuth.layerKeyValueStorage().pipe(Layer.provide(store))
 * ```
 *
 * @since 0.2.0
 */
import * as PlatformError from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Redis as IORedis } from "ioredis"
import { Redis } from "./Redis.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Put before every key (default `mcp-effect:kv:`); `clear` and `size` cover this prefix only. */
  readonly prefix?: string | undefined
}

const call = <A>(method: string, run: () => Promise<A>): Effect.Effect<A, PlatformError.PlatformError> =>
  Effect.tryPromise({
    try: run,
    catch: (e) =>
      new PlatformError.SystemError({
        module: "KeyValueStore",
        method,
        reason: "Unknown",
        description: `redis: ${e instanceof Error ? e.message.slice(0, 200) : "failed"}`
      })
  })

/**
 * The store on `client`, which the host keeps open while the store is used.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (client: IORedis, options: Options = {}): KeyValueStore.KeyValueStore => {
  const prefix = options.prefix ?? "mcp-effect:kv:"
  /** Every key under the prefix, a batch at a time (SCAN never blocks Redis as KEYS does). */
  const keys = call("keys", async () => {
    const found: Array<string> = []
    for await (const batch of client.scanStream({ match: `${escapeGlob(prefix)}*`, count: 500 })) {
      found.push(...(batch as Array<string>))
    }
    return found
  })
  return KeyValueStore.make({
    get: (key) => Effect.map(call("get", () => client.get(prefix + key)), Option.fromNullable),
    getUint8Array: (key) =>
      Effect.map(
        call("getUint8Array", () => client.getBuffer(prefix + key)),
        (buffer) => buffer === null ? Option.none() : Option.some(new Uint8Array(buffer))
      ),
    set: (key, value) =>
      Effect.asVoid(
        call("set", () => client.set(prefix + key, typeof value === "string" ? value : Buffer.from(value)))
      ),
    remove: (key) => Effect.asVoid(call("remove", () => client.del(prefix + key))),
    clear: Effect.flatMap(
      keys,
      (found) => found.length === 0 ? Effect.void : Effect.asVoid(call("clear", () => client.del(...found)))
    ),
    size: Effect.map(keys, (found) => found.length)
  })
}

/** A prefix as a literal in a SCAN pattern. */
const escapeGlob = (text: string): string => text.replace(/[\\*?[\]]/g, "\\$&")

/**
 * {@link make} on the `Redis` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<KeyValueStore.KeyValueStore, never, Redis> =>
  Layer.effect(KeyValueStore.KeyValueStore, Effect.map(Redis, (client) => make(client, options)))
