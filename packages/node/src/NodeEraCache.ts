/**
 * An `EraCache` kept in a file, as `connect()` and the CLI keep it by default
 * ({@link defaultPath}, beside the OAuth tokens): the era of each server is probed once, then
 * remembered across processes (a 2026-07-28 era only when it replaces a remembered legacy one:
 * the client writes what changes the next connect). The file is read from when the cache is
 * made, so a connect's first lookup finds it read. The file is readable by its owner only
 * (0600) and holds no command line or URL: entries are keyed by the SHA-256 digest of the key.
 * An era learnt is appended as one line, and the file is compacted into one JSON object
 * (written to a temporary file renamed over it) once its appended lines outnumber that object's
 * entries: a host connecting many new servers writes each once, not the whole file per server.
 * A process reads only what was appended since its last read. A file or line that cannot be
 * read or parsed counts as empty; a failed write is logged at debug level and changes nothing
 * else: the connection probes as without a cache.
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
import * as EraFile from "./internal/eraFile.js"

/**
 * Where the facade and the CLI keep eras by default: `mcp-effect/era.json` in the directory of
 * `NodeOAuth.defaultStoragePath()` (`$XDG_CONFIG_HOME`, else `~/.config`; `%APPDATA%` on
 * Windows, `~/Library/Application Support` on macOS).
 *
 * @since 0.2.0
 * @category utils
 */
export const defaultPath = (): string => Path.join(configDirectory(), "mcp-effect", "era.json")

/** Entries kept at most by a compaction: the oldest go first (a cache, not a registry). */
const MAX_ENTRIES = 1_000

type Change = readonly [digest: string, entry: EraCache.Entry | null]

// Loaded when a cache is made, not when this module is: importing the facade loads neither, and
// a connect's server process starts while they load.
const importModules = () => Promise.all([import("node:fs/promises"), import("node:crypto")])
let loading: ReturnType<typeof importModules> | undefined
const load = () => loading ??= importModules()
const modules = Effect.promise(load)

type Fs = Awaited<ReturnType<typeof importModules>>[0]

/** The file as far as this process has read it. */
interface Known {
  readonly ino: number
  /** Bytes applied to `contents`: a later read starts here when the file only grew. */
  consumed: number
  /** Bytes and modification time seen when last read: unchanged, the file is not read again. */
  size: number
  mtimeMs: number
  readonly contents: EraFile.Contents
}

let temporaries = 0

/**
 * An `EraCache` in `file` (created with its directory on the first write).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (file: string, options: EraCache.Options = {}): EraCache.Service => {
  const maxAgeMs = Duration.toMillis(Duration.decode(options.maxAge ?? EraCache.DEFAULT_MAX_AGE))
  const digest = (key: string) =>
    Effect.map(modules, ([, Crypto]) => Crypto.createHash("sha256").update(key).digest("base64url"))
  let known: Known | undefined
  const reader = fileReader(file, () => known, (next) => (known = next))
  const readEntries = () => load().then(([Fs]) => reader.readShared(Fs))
  // The first read starts now: a connect's first lookup comes after its client is built, and
  // finds the file read (or its read under way) instead of waiting for it before the probe.
  void readEntries()
  const fileEntries: Effect.Effect<EraFile.Entries> = Effect.promise(readEntries)
  // After an append (the folder exists), from the file as read now: a file that could not be
  // read is left as it is rather than replaced by what this process alone knows.
  const compact = async (Fs: Fs, now: number) => {
    await reader.read(Fs)
    if (known === undefined) return
    const entries = prune(known.contents.entries, now)
    const text = EraFile.snapshot(entries)
    const temporary = `${file}.${process.pid}.${++temporaries}.tmp`
    try {
      await Fs.writeFile(temporary, text, { mode: 0o600 })
      await Fs.chmod(temporary, 0o600)
      await Fs.rename(temporary, file)
    } catch (error) {
      await Fs.rm(temporary, { force: true })
      throw error
    }
    const stat = await Fs.stat(file)
    const size = Buffer.byteLength(text)
    const contents = { entries, snapshotKeys: Object.keys(entries).length, changes: 0 }
    known = { ino: stat.ino, consumed: size, size, mtimeMs: stat.mtimeMs, contents }
  }
  const write = (changes: ReadonlyArray<Change>, now: number) =>
    Effect.flatMap(modules, ([Fs]) =>
      Effect.tryPromise(async () => {
        await reader.append(Fs, changes)
        if (known !== undefined && EraFile.shouldCompact(known.contents)) await compact(Fs, now)
      })).pipe(
        Effect.catchAll((error) => Effect.logDebug(`era cache ${file} not written: ${String(error.error)}`))
      )
  // Appended under a lock within this process; between processes appends of a line land whole,
  // and a compaction is the last writer: what another process appended meanwhile costs a probe.
  // The changes that wait for the lock are appended together, in order, by the next holder;
  // each update returns once its change is written.
  const lock = Effect.unsafeMakeSemaphore(1)
  let pending: Array<readonly [digest: string, era: EraCache.Era | null]> = []
  const flush = Effect.suspend(() => {
    if (pending.length === 0) return Effect.void
    const batch = pending
    pending = []
    return Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => write(batch.map(([id, era]): Change => [id, era === null ? null : { era, at: now }]), now)
    )
  })
  const update = (key: string, era: EraCache.Era | null) =>
    Effect.flatMap(digest(key), (id) => {
      pending.push([id, era])
      return lock.withPermits(1)(flush)
    })
  // In place: `entries` are the file's as read, about to become its snapshot.
  const prune = (entries: EraFile.Entries, now: number): EraFile.Entries => {
    for (const key of Object.keys(entries)) {
      if (EraCache.fresh(entries[key], now, maxAgeMs) === undefined) delete entries[key]
    }
    const kept = Object.keys(entries)
    if (kept.length <= MAX_ENTRIES) return entries
    // The oldest go: everything no newer than the newest of the `over` oldest times (sorting the
    // times alone is cheap).
    const over = kept.length - MAX_ENTRIES
    const at = (key: string) => (entries[key] as EraCache.Entry).at
    const cutoff = Float64Array.from(kept, at).sort()[over - 1]!
    for (const key of kept) {
      if (at(key) <= cutoff) delete entries[key]
    }
    return entries
  }
  return {
    get: (key) =>
      Effect.map(
        Effect.all([fileEntries, digest(key), Clock.currentTimeMillis]),
        ([entries, id, now]) => Object.hasOwn(entries, id) ? EraCache.fresh(entries[id], now, maxAgeMs) : undefined
      ),
    set: (key, era) => update(key, era),
    invalidate: (key) => update(key, null)
  }
}

/**
 * Reads the file (whole, or only what was appended since the last read; reads at the same
 * time share one) and appends to it, keeping `known` in step. Another read or append may move `known` while one is under way: each
 * commits only if `known` is still where it started (else the next read catches up).
 */
const fileReader = (file: string, getKnown: () => Known | undefined, setKnown: (known: Known) => void) => {
  const readWhole = async (Fs: Fs, from: Known | undefined, ino: number, mtimeMs: number): Promise<EraFile.Entries> => {
    const bytes = await Fs.readFile(file)
    const contents = EraFile.empty()
    const consumed = EraFile.apply(contents, bytes)
    if (getKnown() === from) setKnown({ ino, consumed, size: bytes.byteLength, mtimeMs, contents })
    return contents.entries
  }
  // What was appended after `from.consumed`; false when it does not start a record (the file
  // was rewritten in place).
  const readTail = async (Fs: Fs, from: Known, size: number, mtimeMs: number): Promise<boolean> => {
    const start = from.consumed
    const handle = await Fs.open(file, "r")
    let tail: Buffer
    try {
      const buffer = Buffer.allocUnsafe(size - start)
      tail = buffer.subarray(0, (await handle.read(buffer, 0, buffer.byteLength, start)).bytesRead)
    } finally {
      await handle.close()
    }
    if (!EraFile.startsRecord(tail)) return false
    if (getKnown() === from && from.consumed === start) {
      from.consumed = start + EraFile.apply(from.contents, tail)
      from.size = start + tail.byteLength
      from.mtimeMs = mtimeMs
    }
    return true
  }
  const read = async (Fs: Fs): Promise<EraFile.Entries> => {
    try {
      const stat = await Fs.stat(file)
      const known = getKnown()
      if (known === undefined || known.ino !== stat.ino) return await readWhole(Fs, known, stat.ino, stat.mtimeMs)
      if (known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.contents.entries
      if (stat.size > known.size && (await readTail(Fs, known, stat.size, stat.mtimeMs))) {
        return getKnown()!.contents.entries
      }
      return await readWhole(Fs, known, stat.ino, stat.mtimeMs)
    } catch {
      return EraFile.empty().entries
    }
  }
  // Reads at the same time (lookups of a host connecting many servers, a first append) share one.
  let reading: Promise<EraFile.Entries> | undefined
  const readShared = (Fs: Fs): Promise<EraFile.Entries> =>
    reading ??= read(Fs).finally(() => {
      reading = undefined
    })
  const appendText = async (Fs: Fs, text: string) => {
    try {
      await Fs.appendFile(file, text, { mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
      await Fs.mkdir(Path.dirname(file), { recursive: true, mode: 0o700 })
      await Fs.appendFile(file, text, { mode: 0o600 })
    }
  }
  // Appends `changes`; when they landed right after what was read, applies them to `known`
  // without reading them back.
  const append = async (Fs: Fs, changes: ReadonlyArray<Change>): Promise<void> => {
    // Read once first: what is in the file counts towards its compaction.
    if (getKnown() === undefined) await readShared(Fs)
    const before = getKnown()
    const at = before?.consumed
    const complete = before !== undefined && before.consumed === before.size
    const text = EraFile.changeRecords(changes)
    await appendText(Fs, text)
    const stat = await Fs.stat(file)
    const bytes = Buffer.byteLength(text)
    const now = getKnown()
    if (before === undefined && now === undefined && stat.size === bytes) {
      // This append made the file.
      const contents = EraFile.empty()
      EraFile.applyChanges(contents, changes)
      setKnown({ ino: stat.ino, consumed: bytes, size: bytes, mtimeMs: stat.mtimeMs, contents })
    } else if (
      now !== undefined && now === before && complete && now.consumed === at && stat.ino === now.ino &&
      stat.size === now.consumed + bytes
    ) {
      EraFile.applyChanges(now.contents, changes)
      now.consumed = now.size = stat.size
      now.mtimeMs = stat.mtimeMs
    }
  }
  return { read, readShared, append }
}

/**
 * {@link make} as a layer; `file` defaults to {@link defaultPath}.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (file?: string, options: EraCache.Options = {}): Layer.Layer<EraCache.EraCache> =>
  Layer.sync(EraCache.EraCache, () => make(file ?? defaultPath(), options))
