/**
 * `NodeOAuth.makeFileStorage`: the entries in one file (plain or sealed: `fileContent.ts`),
 * replaced atomically on every write; writes and refreshes serialized across processes by lock
 * files (`fileLock.ts`).
 *
 * @internal
 */
import type * as OAuth from "@mcp-effect/client/OAuth"
import { OAuthStorageError } from "@mcp-effect/client/OAuth"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import type { FileStorageOptions } from "../NodeOAuth.js"
import * as FileContent from "./fileContent.js"
import * as FileLock from "./fileLock.js"

/** @internal */
export const make = (file: string, options: FileStorageOptions): OAuth.OAuthStorage => {
  const key = options.encryptionKey === undefined ? undefined : FileContent.keyOf(options.encryptionKey)
  const storageError = (message: string) => new OAuthStorageError({ message: `${file}: ${message}` })
  const sealKey: Effect.Effect<Buffer | undefined, OAuthStorageError> = typeof key === "string"
    ? Effect.fail(storageError(key))
    : Effect.succeed(key)
  const read = Effect.flatMap(sealKey, (k) =>
    Effect.flatMap(
      Effect.tryPromise({
        try: async (): Promise<string | undefined> => {
          try {
            return await Fs.readFile(file, "utf8")
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
            throw e
          }
        },
        catch: (e) => storageError(`reading: ${errorCode(e)}`)
      }),
      (text) =>
        text === undefined ? Effect.succeed<Record<string, unknown>>({}) : Either.match(FileContent.decode(text, k), {
          onLeft: (refused) => Effect.fail(storageError(refused)),
          onRight: Effect.succeed
        })
    ))
  const write = (data: Record<string, unknown>) =>
    Effect.flatMap(sealKey, (k) =>
      Effect.tryPromise({
        try: async () => {
          await Fs.mkdir(Path.dirname(file), { recursive: true, mode: 0o700 })
          const temp = `${file}.${process.pid}.${Crypto.randomBytes(4).toString("hex")}.tmp`
          try {
            await Fs.writeFile(temp, FileContent.encode(data, k), { mode: 0o600 })
            await Fs.chmod(temp, 0o600)
            await Fs.rename(temp, file)
          } catch (e) {
            await Fs.rm(temp, { force: true })
            throw e
          }
        },
        catch: (e) => storageError(`writing: ${errorCode(e)}`)
      }))
  const semaphore = Effect.unsafeMakeSemaphore(1)
  const locked = <A, E, R>(
    path: string,
    ttl: Duration.DurationInput,
    wait: Duration.DurationInput,
    effect: Effect.Effect<A, E, R>
  ) =>
    Effect.acquireUseRelease(
      Effect.mapError(FileLock.acquire(path, { ttl, wait }), (e) => storageError(e.message)),
      () => effect,
      (token) => FileLock.release(path, token)
    )
  // A write reads the file, changes one entry and replaces the file: other processes' writes
  // wait (a lock of their own, held for the few milliseconds that takes), so none is lost.
  const update = (f: (data: Record<string, unknown>) => Record<string, unknown>) =>
    semaphore.withPermits(1)(
      locked(`${file}.write.lock`, "10 seconds", "30 seconds", Effect.flatMap(read, (data) => write(f(data))))
    )
  return {
    get: (key) => Effect.map(read, (data) => data[key]),
    set: (key, value) => update((data) => ({ ...data, [key]: value })),
    remove: (key) =>
      update((data) => {
        const { [key]: _removed, ...rest } = data
        return rest
      }),
    // One lock file for the whole storage: refreshes of different servers wait for each other,
    // which costs little (a refresh is one request).
    withLock: (_key, effect) =>
      locked(`${file}.lock`, options.lockTtl ?? "60 seconds", options.lockWait ?? "90 seconds", effect)
  }
}

/** What failed in a file operation, without the text of the file (it holds secrets). */
const errorCode = (e: unknown): string =>
  (e as NodeJS.ErrnoException | undefined)?.code ?? (e instanceof Error ? e.name : "failed")
