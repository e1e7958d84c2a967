/**
 * A connection's cached results in a `CacheStore` shared with other connections and processes
 * (`CacheStore.ts` says what is shared with whom). The connection's own `ResultCache` stays the
 * copy it serves from; this module reads an entry another connection stored when the own copy
 * misses, and writes what the connection fetched.
 *
 * A store key names the server, the request and its `_meta` (as one digest), then the
 * partition: `public`, or the SHA-256 of the credential for a private result. What a key was
 * used for is remembered, so that a change notification or `clearCache` removes exactly the
 * entries this connection could read.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as CacheStore from "../../CacheStore.js"
import type * as ResultCache from "./resultCache.js"

/** An entry as the store keeps it. @internal */
export interface Stored {
  readonly value: unknown
  readonly receivedAt: number
  readonly ttlMs: number | undefined
  readonly scope: "public" | "private"
}

/** @internal */
export interface SharedResults {
  /** The entry for `key` under `context` (public first, then the credential's), fresh or not. */
  readonly lookup: (key: string, context: ResultCache.CacheContext) => Effect.Effect<Stored | undefined>
  readonly store: (key: string, entry: Stored, context: ResultCache.CacheContext) => Effect.Effect<void>
  /** Removes the entries of `key` this connection used. */
  readonly forget: (key: string) => Effect.Effect<void>
  /** Removes every entry this connection used. */
  readonly forgetAll: Effect.Effect<void>
}

const MAX_TTL_MS = Duration.toMillis(CacheStore.MAX_TTL)

const digest = (text: string): Effect.Effect<string> =>
  Effect.map(
    Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
    (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("")
  )

const isStored = (u: unknown): u is Stored =>
  typeof u === "object" && u !== null && "value" in u && typeof (u as Stored).receivedAt === "number" &&
  ((u as Stored).scope === "public" || (u as Stored).scope === "private") &&
  ((u as Stored).ttlMs === undefined || typeof (u as Stored).ttlMs === "number")

const parse = (text: string | undefined): Stored | undefined => {
  if (text === undefined) return undefined
  try {
    const u: unknown = JSON.parse(text)
    return isStored(u) ? u : undefined
  } catch {
    return undefined
  }
}

/** Whether a stored entry is fresh at `now`: its `ttlMs` (none: until invalidated), capped at a day. @internal */
export const isFresh = (entry: Stored, now: number): boolean =>
  now < entry.receivedAt + Math.min(entry.ttlMs ?? MAX_TTL_MS, MAX_TTL_MS)

/** @internal */
export const make = (store: CacheStore.Service, serverKey: string): SharedResults => {
  /** Store keys by cache key: those this connection read or wrote. */
  const used = new Map<string, Set<string>>()
  const use = (key: string, storeKey: string) => {
    const keys = used.get(key) ?? new Set()
    keys.add(storeKey)
    used.set(key, keys)
  }
  const keysOf = (key: string, context: ResultCache.CacheContext) =>
    Effect.map(digest(JSON.stringify([serverKey, key, context.meta])), (request) => ({
      public: `${request}.public`,
      // A private result fetched without a credential belongs to this connection alone.
      private: context.authorization === undefined ? undefined : `${request}.${context.authorization}`
    }))
  const read = (key: string, storeKey: string | undefined, scope: Stored["scope"]) =>
    storeKey === undefined ? Effect.succeed(undefined) : Effect.map(store.get(storeKey), (text) => {
      const entry = parse(text)
      if (entry === undefined || entry.scope !== scope) return undefined
      use(key, storeKey)
      return entry
    })
  const removeAll = (storeKeys: Iterable<string>) =>
    Effect.forEach(storeKeys, store.remove, { discard: true, concurrency: "unbounded" })
  return {
    lookup: (key, context) =>
      Effect.flatMap(keysOf(key, context), (keys) =>
        Effect.flatMap(
          read(key, keys.public, "public"),
          (entry) => entry !== undefined ? Effect.succeed(entry) : read(key, keys.private, "private")
        )),
    store: (key, entry, context) =>
      Effect.flatMap(Effect.zip(keysOf(key, context), Clock.currentTimeMillis), ([keys, now]) => {
        const storeKey = entry.scope === "public" ? keys.public : keys.private
        if (storeKey === undefined) return Effect.void
        use(key, storeKey)
        // Kept a day from when it arrived, so that a stale copy can still be served on a failure.
        const keep = entry.receivedAt + MAX_TTL_MS - now
        return keep > 0 ? store.set(storeKey, JSON.stringify(entry), keep) : Effect.void
      }),
    forget: (key) =>
      Effect.suspend(() => {
        const storeKeys = used.get(key)
        used.delete(key)
        return storeKeys === undefined ? Effect.void : removeAll(storeKeys)
      }),
    forgetAll: Effect.suspend(() => {
      const storeKeys = Array.from(used.values(), (keys) => Array.from(keys)).flat()
      used.clear()
      return removeAll(storeKeys)
    })
  }
}
