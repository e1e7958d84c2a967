/**
 * The one cache of a connection's results (DIGEST §7): complete lists, 2026-07-28 reads and the
 * 2026-07-28 discovery (`docs/caching.md` has the rules in one table).
 * Entries remember how fresh they are, the `_meta` their request carried and, for
 * `cacheScope: "private"`, the SHA-256 of the `Authorization` the request actually sent; a
 * lookup under another context misses.
 *
 * @internal
 */
import * as Limits from "../limits.js"

/** @internal */
export interface CacheContext {
  /** Stable key of the request's effective `_meta` (host metadata, log level). */
  readonly meta: string
  /** SHA-256 (hex) of the `Authorization` header sent, if any. */
  readonly authorization: string | undefined
}

/** @internal */
export interface CacheInfo {
  readonly ttlMs: number | undefined
  readonly cacheScope: "public" | "private"
  readonly receivedAt: number
  readonly fresh: boolean
}

interface Entry {
  readonly value: unknown
  readonly receivedAt: number
  /** `undefined`: no hint (legacy): fresh until invalidated. */
  readonly ttlMs: number | undefined
  readonly scope: "public" | "private"
  readonly context: CacheContext
}

/** @internal */
export interface ResultCache {
  /** A fresh entry for `key` under `context`, if any. */
  readonly fresh: (key: string, context: CacheContext, now: number) => unknown
  /** An entry for `key` under `context`, fresh or not (for serving stale on failures). */
  readonly any: (key: string, context: CacheContext) => unknown
  readonly set: (
    key: string,
    value: unknown,
    hints: { readonly ttlMs: number | undefined; readonly scope: "public" | "private" },
    context: CacheContext,
    now: number
  ) => void
  readonly delete: (key: string) => void
  readonly clear: () => void
  readonly info: (key: string, now: number) => CacheInfo | undefined
}

const matches = (entry: Entry, context: CacheContext) =>
  entry.context.meta === context.meta &&
  (entry.scope === "public" || entry.context.authorization === context.authorization)

/** The longest a `ttlMs` is honoured: a day (`CacheStore.MAX_TTL`). */
const MAX_TTL_MS = 24 * 60 * 60 * 1000

const isFresh = (entry: Entry, now: number) =>
  entry.ttlMs === undefined || now < entry.receivedAt + Math.min(entry.ttlMs, MAX_TTL_MS)

/** @internal */
export const make = (): ResultCache => {
  const entries = new Map<string, Entry>()
  return {
    fresh: (key, context, now) => {
      const entry = entries.get(key)
      return entry !== undefined && matches(entry, context) && isFresh(entry, now) ? entry.value : undefined
    },
    any: (key, context) => {
      const entry = entries.get(key)
      return entry !== undefined && matches(entry, context) ? entry.value : undefined
    },
    set: (key, value, hints, context, now) => {
      entries.delete(key)
      if (entries.size >= Limits.MAX_CACHE_ENTRIES) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, receivedAt: now, ttlMs: hints.ttlMs, scope: hints.scope, context })
    },
    delete: (key) => void entries.delete(key),
    clear: () => entries.clear(),
    info: (key, now) => {
      const entry = entries.get(key)
      return entry === undefined
        ? undefined
        : { ttlMs: entry.ttlMs, cacheScope: entry.scope, receivedAt: entry.receivedAt, fresh: isFresh(entry, now) }
    }
  }
}

/** The cache key of the 2026-07-28 discovery (its capabilities are judged fresh by its `ttlMs`). @internal */
export const DISCOVER_KEY = "server/discover"
