/**
 * A lock shared by processes through a file: whoever creates `path` holds the lock. The file
 * names its owner (pid, host, a random token) and when the lock expires; a waiter retries with
 * backoff, and recovers a lock whose holder is gone (expired, or its pid dead on this host).
 * Only the owner (same token) removes it.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"

/** What a lock file holds. @internal */
export interface LockRecord {
  readonly pid: number
  readonly host: string
  readonly token: string
  /** Epoch milliseconds. */
  readonly expiresAt: number
}

/** @internal */
export interface LockOptions {
  /** How long a lock is held at most before others may take it over. */
  readonly ttl: Duration.DurationInput
  /** How long a waiter waits before it gives up. */
  readonly wait: Duration.DurationInput
}

const parse = (text: string): LockRecord | undefined => {
  try {
    const u: unknown = JSON.parse(text)
    if (typeof u !== "object" || u === null) return undefined
    const r = u as Record<string, unknown>
    return typeof r.pid === "number" && typeof r.host === "string" && typeof r.token === "string" &&
        typeof r.expiresAt === "number"
      ? { pid: r.pid, host: r.host, token: r.token, expiresAt: r.expiresAt }
      : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists, under another user.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A holder that can no longer release its lock. @internal */
export const isStale = (record: LockRecord, now: number): boolean =>
  now >= record.expiresAt || (record.host === Os.hostname() && !alive(record.pid))

const readRecord = async (path: string): Promise<LockRecord | undefined> => {
  try {
    return parse(await Fs.readFile(path, "utf8"))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw e
  }
}

/** The lock file exists, has no record, and was last written before `before` (epoch ms). */
const unreadableSince = async (path: string, before: number): Promise<boolean> => {
  try {
    const stat = await Fs.stat(path)
    return stat.mtimeMs < before && (await readRecord(path)) === undefined
  } catch {
    return false
  }
}

/**
 * Creates the lock file with its whole content at once: written beside it, then hard-linked to
 * its name (a link fails if the name exists, like `O_EXCL`), so no reader sees it half written.
 */
const tryCreate = async (path: string, record: LockRecord): Promise<boolean> => {
  const temp = `${path}.${record.token}.tmp`
  await Fs.writeFile(temp, JSON.stringify(record), { mode: 0o600, flag: "wx" })
  try {
    await Fs.link(temp, path)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  } finally {
    await Fs.rm(temp, { force: true })
  }
}

/**
 * Removes the lock if `token` holds it, and only then: the file is first moved aside, and put
 * back if what was moved is another holder's (one that took it over meanwhile).
 */
const removeIfHeld = async (path: string, token: string): Promise<void> => {
  const aside = `${path}.${Crypto.randomBytes(8).toString("hex")}.aside`
  try {
    await Fs.rename(path, aside)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return
    throw e
  }
  const moved = await readRecord(aside)
  if (moved !== undefined && moved.token !== token) {
    await Fs.link(aside, path).catch(() => {})
  }
  await Fs.rm(aside, { force: true })
}

const failure = (path: string, e: unknown) => new Error(`lock ${path}: ${e instanceof Error ? e.message : String(e)}`)

/**
 * Takes the lock (waiting, with backoff, while another live holder has it) and returns its
 * token; fails after `options.wait`.
 *
 * @internal
 */
export const acquire = (path: string, options: LockOptions): Effect.Effect<string, Error> =>
  Effect.gen(function*() {
    const ttl = Duration.toMillis(options.ttl)
    const deadline = Date.now() + Duration.toMillis(options.wait)
    const token = Crypto.randomBytes(16).toString("hex")
    yield* Effect.tryPromise({
      try: () => Fs.mkdir(Path.dirname(path), { recursive: true, mode: 0o700 }),
      catch: (e) => failure(path, e)
    })
    let delay = 5
    let holder: LockRecord | undefined
    while (true) {
      const record: LockRecord = { pid: process.pid, host: Os.hostname(), token, expiresAt: Date.now() + ttl }
      const taken = yield* Effect.tryPromise({ try: () => tryCreate(path, record), catch: (e) => failure(path, e) })
      if (taken) return token
      holder = yield* Effect.tryPromise({ try: () => readRecord(path), catch: (e) => failure(path, e) })
      if (holder !== undefined && isStale(holder, Date.now())) {
        const stale = holder
        yield* Effect.tryPromise({ try: () => removeIfHeld(path, stale.token), catch: (e) => failure(path, e) })
        continue
      }
      if (holder === undefined && (yield* Effect.promise(() => unreadableSince(path, Date.now() - ttl)))) {
        // Not a lock this code writes (hand-made, or damaged): as stale as an expired one.
        yield* Effect.tryPromise({ try: () => removeIfHeld(path, ""), catch: (e) => failure(path, e) })
        continue
      }
      if (Date.now() >= deadline) {
        return yield* Effect.fail(
          failure(
            path,
            holder === undefined ? "timed out" : `timed out; held by pid ${holder.pid} on ${holder.host}`
          )
        )
      }
      // Jitter keeps waiters that started together from retrying together.
      yield* Effect.sleep(Duration.millis(delay + Math.floor(Math.random() * delay)))
      delay = Math.min(delay * 2, 200)
    }
  })

/**
 * Removes the lock if `token` still holds it (a lock taken over after expiry is left alone).
 *
 * @internal
 */
export const release = (path: string, token: string): Effect.Effect<void> =>
  Effect.promise(() => removeIfHeld(path, token).catch(() => {}))
