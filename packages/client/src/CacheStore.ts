/**
 * Where cached results are shared beyond one connection: with a `CacheStore` in the context,
 * the lists and reads a connection caches (`docs/caching.md`) are kept in it too, and another
 * connection — in this process or in another one sharing the store — is served from it while
 * they are fresh. Without one, each connection keeps its own results in memory.
 *
 * Entries are keyed by the server, the request and the context its result is bound to: a
 * `cacheScope: "public"` result is shared by everyone, a private one only by requests that send
 * the same credential (its SHA-256 is part of the key, never the credential); a private result
 * fetched without a credential is never shared. Freshness is the result's `ttlMs`, capped at
 * {@link MAX_TTL}; entries expire from the store after {@link MAX_TTL} at most.
 *
 * Stores on `@effect/platform`'s `KeyValueStore` ({@link layerKeyValueStore}: memory, files) and
 * on Redis (`@mcp-effect/redis`, for fleets of hosts) implement it. Its effects never fail: a
 * store that cannot be read or written is a miss, and the request goes to the server.
 *
 * @since 0.2.0
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/**
 * A store of strings by key, each with an expiry.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The value under `key`, unless absent or expired. */
  readonly get: (key: string) => Effect.Effect<string | undefined>
  /** Keeps `value` under `key` for `ttlMs` milliseconds. */
  readonly set: (key: string, value: string, ttlMs: number) => Effect.Effect<void>
  readonly remove: (key: string) => Effect.Effect<void>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class CacheStore extends Context.Tag("@mcp-effect/client/CacheStore")<CacheStore, Service>() {}

/**
 * The longest a shared result is fresh, and kept: a day, whatever `ttlMs` the server gave.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_TTL: Duration.Duration = Duration.hours(24)

/**
 * @since 0.2.0
 * @category models
 */
export interface KeyValueStoreOptions {
  /** Put before every key (default `mcp-effect/cache/`). */
  readonly prefix?: string | undefined
}

const quietly =
  (operation: string, key: string) =>
  <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>): Effect.Effect<A | undefined> =>
    Effect.catchAll(
      effect,
      (error) => Effect.as(Effect.logDebug(`cache store: ${operation} of ${key} failed (${error._tag})`), undefined)
    )

/**
 * A `CacheStore` on a `KeyValueStore`, which has no expiry of its own: each value is kept with
 * the time it expires, an expired one read is a miss (and removed).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromKeyValueStore = (store: KeyValueStore.KeyValueStore, options: KeyValueStoreOptions = {}): Service => {
  const prefix = options.prefix ?? "mcp-effect/cache/"
  const remove = (key: string) =>
    store.has(prefix + key).pipe(
      Effect.flatMap((present) => present ? store.remove(prefix + key) : Effect.void),
      quietly("remove", key),
      Effect.asVoid
    )
  return {
    get: (key) =>
      Effect.all([store.get(prefix + key), Clock.currentTimeMillis]).pipe(
        Effect.flatMap(([stored, now]) => {
          if (Option.isNone(stored)) return Effect.succeed(undefined)
          const expiry = stored.value.indexOf(" ")
          const expiresAt = Number(stored.value.slice(0, expiry))
          return expiry > 0 && now < expiresAt
            ? Effect.succeed(stored.value.slice(expiry + 1))
            : Effect.as(remove(key), undefined)
        }),
        quietly("get", key)
      ),
    set: (key, value, ttlMs) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => store.set(prefix + key, `${now + ttlMs} ${value}`)).pipe(
        quietly("set", key),
        Effect.asVoid
      ),
    remove
  }
}

/**
 * {@link fromKeyValueStore} on the `KeyValueStore` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerKeyValueStore = (
  options?: KeyValueStoreOptions
): Layer.Layer<CacheStore, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(CacheStore, Effect.map(KeyValueStore.KeyValueStore, (store) => fromKeyValueStore(store, options)))

/**
 * A store in this process's memory, shared by the connections given it (one per build).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<CacheStore> = layerKeyValueStore().pipe(Layer.provide(KeyValueStore.layerMemory))
