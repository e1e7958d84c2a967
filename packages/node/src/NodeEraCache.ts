/**
 * An `EraCache` kept in a JSON file, as `connect()` and the CLI keep it by default
 * ({@link defaultPath}, beside the OAuth tokens): the era of each server is probed once, then
 * remembered across processes. The file is readable by its owner only (0600), written
 * atomically (a temporary file renamed over it), and holds no command line or URL: entries are
 * keyed by the SHA-256 digest of the key. A file that cannot be read or parsed counts as empty
 * (and is replaced by the next write); a failed write is logged at debug level and changes
 * nothing else: the connection probes as without a cache.
 *
 * @since 0.2.0
 */
import * as EraCache from "@mcp-effect/client/EraCache"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import { configDirectory } from "./internal/configDirectory.js"

/**
 * Where the facade and the CLI keep eras by default: `mcp-effect/era.json` in the directory of
 * `NodeOAuth.defaultStoragePath()` (`$XDG_CONFIG_HOME`, else `~/.config`; `%APPDATA%` on
 * Windows, `~/Library/Application Support` on macOS).
 *
 * @since 0.2.0
 * @category utils
 */
export const defaultPath = (): string => Path.join(configDirectory(), "mcp-effect", "era.json")

/** Entries kept at most: the oldest go first (a cache, not a registry). */
const MAX_ENTRIES = 1_000

type Entries = Record<string, EraCache.Entry>

// The entries of `from`, copied key by key into a prototype-less object: a spread
// or `Object.fromEntries` of a full file (a thousand keys) walks V8's hidden-class transitions,
// ~6 ms each on a first run, where this copy takes ~0.4 ms; without a prototype, a key
// "__proto__" stays a key.
const copy = (from: Entries): Entries => {
  const entries: Entries = Object.create(null)
  for (const key of Object.keys(from)) entries[key] = from[key]!
  return entries
}

// Loaded when a cache is made, not when this module is: importing the facade loads neither, and
// a connect's server process starts while they load.
const importModules = () => Promise.all([import("node:fs/promises"), import("node:crypto")])
let loading: ReturnType<typeof importModules> | undefined
const load = () => loading ??= importModules()
const modules = Effect.promise(load)

type Modules = Awaited<ReturnType<typeof importModules>>

let temporaries = 0

/**
 * An `EraCache` in `file` (created with its directory on the first write).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (file: string, options: EraCache.Options = {}): EraCache.Service => {
  const maxAgeMs = Duration.toMillis(Duration.decode(options.maxAge ?? EraCache.DEFAULT_MAX_AGE))
  void load()
  const digest = (key: string) =>
    Effect.map(modules, ([, Crypto]) => Crypto.createHash("sha256").update(key).digest("base64url"))
  // The file as last read or written, by its modification time and size: unchanged, it is not
  // parsed again (a host connecting many servers reads it once per connect). Never mutated.
  let known: { readonly mtimeMs: number; readonly size: number; readonly entries: Entries } | undefined
  const remember = async (Fs: Modules[0], entries: Entries) => {
    const stat = await Fs.stat(file)
    known = { mtimeMs: stat.mtimeMs, size: stat.size, entries }
  }
  const readFile = async (Fs: Modules[0]): Promise<Entries> => {
    try {
      const stat = await Fs.stat(file)
      if (known !== undefined && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.entries
      const parsed: unknown = JSON.parse(await Fs.readFile(file, "utf8"))
      const entries = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed as Entries : {}
      known = { mtimeMs: stat.mtimeMs, size: stat.size, entries }
      return entries
    } catch {
      return {}
    }
  }
  const read: Effect.Effect<Entries> = Effect.flatMap(modules, ([Fs]) => Effect.promise(() => readFile(Fs)))
  // Lookups at the same time (a host connecting many servers) share one read of the file.
  let reading: Promise<Entries> | undefined
  const readShared: Effect.Effect<Entries> = Effect.flatMap(
    modules,
    ([Fs]) =>
      Effect.promise(() =>
        reading ??= readFile(Fs).finally(() => {
          reading = undefined
        })
      )
  )
  const write = (entries: Entries) =>
    Effect.flatMap(modules, ([Fs]) =>
      Effect.tryPromise(async () => {
        await Fs.mkdir(Path.dirname(file), { recursive: true, mode: 0o700 })
        const temporary = `${file}.${process.pid}.${++temporaries}.tmp`
        try {
          await Fs.writeFile(temporary, JSON.stringify(entries), { mode: 0o600 })
          await Fs.chmod(temporary, 0o600)
          await Fs.rename(temporary, file)
          await remember(Fs, entries)
        } catch (error) {
          await Fs.rm(temporary, { force: true })
          throw error
        }
      })).pipe(
        Effect.catchAll((error) => Effect.logDebug(`era cache ${file} not written: ${String(error.error)}`))
      )
  // Read, change, write back: under a lock within this process; between processes the last
  // writer wins, which costs at most one probe more. The changes that wait for the lock are
  // written together, in order, by the next holder (one read and one write for a host that
  // connects a thousand servers at once, not one each); each update returns once its change
  // is written.
  const lock = Effect.unsafeMakeSemaphore(1)
  let pending: Array<(entries: Entries, now: number) => boolean> = []
  const flush = Effect.suspend(() => {
    if (pending.length === 0) return Effect.void
    const changes = pending
    pending = []
    return Effect.flatMap(Effect.all([read, Clock.currentTimeMillis]), ([current, now]) => {
      const entries = copy(current)
      let changed = false
      for (const change of changes) changed = change(entries, now) || changed
      return changed ? write(prune(entries, now)) : Effect.void
    })
  })
  const update = (key: string, change: (entries: Entries, id: string, now: number) => boolean) =>
    Effect.flatMap(digest(key), (id) => {
      pending.push((entries, now) => change(entries, id, now))
      return lock.withPermits(1)(flush)
    })
  // In place: `entries` is the flush's own copy (a second copy per write would walk a full file
  // again on every write of a host connecting new servers).
  const prune = (entries: Entries, now: number): Entries => {
    for (const key of Object.keys(entries)) {
      if (EraCache.fresh(entries[key], now, maxAgeMs) === undefined) delete entries[key]
    }
    const kept = Object.keys(entries)
    if (kept.length <= MAX_ENTRIES) return entries
    // The oldest go: everything no newer than the newest of the `over` oldest times (sorting the
    // times alone is cheap).
    const over = kept.length - MAX_ENTRIES
    const cutoff = Float64Array.from(kept, (key) => entries[key]!.at).sort()[over - 1]!
    for (const key of kept) {
      if (entries[key]!.at <= cutoff) delete entries[key]
    }
    return entries
  }
  return {
    get: (key) =>
      Effect.map(
        Effect.all([readShared, digest(key), Clock.currentTimeMillis]),
        ([entries, id, now]) => Object.hasOwn(entries, id) ? EraCache.fresh(entries[id], now, maxAgeMs) : undefined
      ),
    set: (key, era) =>
      update(key, (entries, id, now) => {
        entries[id] = { era, at: now }
        return true
      }),
    invalidate: (key) =>
      update(key, (entries, id) => {
        if (!Object.hasOwn(entries, id)) return false
        delete entries[id]
        return true
      })
  }
}

/**
 * {@link make} as a layer; `file` defaults to {@link defaultPath}.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (file?: string, options: EraCache.Options = {}): Layer.Layer<EraCache.EraCache> =>
  Layer.sync(EraCache.EraCache, () => make(file ?? defaultPath(), options))
