/**
 * The era each server spoke, remembered across connections: with an `EraCache` in the context,
 * `protocol: "auto"` opens a server remembered as legacy with `initialize` at once instead of
 * paying the `server/discover` probe (a legacy server silent on it costs the whole
 * `discoverTimeout`), and detects afresh, in the same connect, when the remembered era fails.
 * Without one, every connection probes.
 *
 * Keys are what `ServerConfig.eraCacheKey` holds: a stdio server's normalized command line
 * (with its `cwd` and `env`), an HTTP server's URL. `@mcp-effect/node`'s `NodeEraCache` keeps
 * them in a file.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * The era of a server: `modern` (2026-07-28) or `legacy` (the `initialize` revisions).
 *
 * @since 0.2.0
 * @category models
 */
export type Era = "modern" | "legacy"

/**
 * A store of eras by key. Its effects never fail: a store that cannot be read or written
 * answers "unknown" and the connection probes, as without a cache.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly get: (key: string) => Effect.Effect<Era | undefined>
  readonly set: (key: string, era: Era) => Effect.Effect<void>
  readonly invalidate: (key: string) => Effect.Effect<void>
}

/**
 * @since 0.2.0
 * @category tags
 */
export class EraCache extends Context.Tag("@mcp-effect/client/EraCache")<EraCache, Service>() {}

/**
 * How long a remembered era is trusted, by default: a day. A dual-era server detected as legacy
 * (its `server/discover` answer came late) is probed again within that time.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_MAX_AGE: Duration.Duration = Duration.hours(24)

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** How long an entry is trusted after it was written (default {@link DEFAULT_MAX_AGE}). */
  readonly maxAge?: Duration.DurationInput | undefined
}

/**
 * One remembered era and when it was written (ms since the epoch).
 *
 * @since 0.2.0
 * @category models
 */
export interface Entry {
  readonly era: Era
  readonly at: number
}

/**
 * Whether a stored value is an entry (a file may hold anything).
 *
 * @since 0.2.0
 * @category guards
 */
export const isEntry = (u: unknown): u is Entry =>
  typeof u === "object" && u !== null && ((u as Entry).era === "modern" || (u as Entry).era === "legacy") &&
  typeof (u as Entry).at === "number"

/**
 * The era of `entry` if it is still trusted at `now`.
 *
 * @since 0.2.0
 * @category utils
 */
export const fresh = (entry: unknown, now: number, maxAgeMs: number): Era | undefined =>
  isEntry(entry) && now - entry.at < maxAgeMs && entry.at <= now ? entry.era : undefined

/**
 * The key of a stdio server: its command line as words (quoting does not matter), its `cwd`
 * and its `env` (sorted), since the same command may start another server elsewhere.
 *
 * @since 0.2.0
 * @category keys
 */
export const stdioKey = (options: {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  readonly env?: Record<string, string> | undefined
}): string =>
  `stdio ${
    JSON.stringify([
      options.cwd ?? "",
      [options.command, ...options.args ?? []],
      Object.entries(options.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    ])
  }`

/**
 * The key of an HTTP server: its URL as `URL` normalizes it (scheme and host lower-cased,
 * default port dropped), without a fragment.
 *
 * @since 0.2.0
 * @category keys
 */
export const urlKey = (url: string): string => {
  try {
    const parsed = new URL(url.trim())
    parsed.hash = ""
    return `url ${parsed.href}`
  } catch {
    return `url ${url.trim()}`
  }
}

/**
 * An `EraCache` in this process's memory.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeMemory = (options: Options = {}): Service => {
  const maxAgeMs = Duration.toMillis(Duration.decode(options.maxAge ?? DEFAULT_MAX_AGE))
  const entries = new Map<string, Entry>()
  return {
    get: (key) => Effect.map(Clock.currentTimeMillis, (now) => fresh(entries.get(key), now, maxAgeMs)),
    set: (key, era) => Effect.map(Clock.currentTimeMillis, (at) => void entries.set(key, { era, at })),
    invalidate: (key) => Effect.sync(() => void entries.delete(key))
  }
}

/**
 * {@link makeMemory} as a layer (one store per build).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory = (options: Options = {}): Layer.Layer<EraCache> =>
  Layer.sync(EraCache, () => makeMemory(options))
