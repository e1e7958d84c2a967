/**
 * An `OAuthStorage` on `@effect/platform`'s `KeyValueStore`: each entry a JSON value under its
 * key (with a prefix), so any store (memory, a directory of files, a browser's storage, a
 * fleet's) keeps tokens and registrations. A `KeyValueStore` has no atomic "set if absent", so
 * `withLock` is a semaphore per key within this process (or the host's own lock).
 *
 * @internal
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as OAuth from "../../OAuth.js"
import { OAuthStorageError } from "../../OAuth.js"

/** @internal */
export interface Options {
  readonly prefix?: string | undefined
  readonly withLock?: OAuth.OAuthStorage["withLock"] | undefined
}

/** What failed, without the value (it holds secrets). */
const failure = (operation: string, key: string) => (error: { readonly _tag: string; readonly message?: string }) =>
  new OAuthStorageError({ message: `key-value store ${operation} of ${key}: ${error._tag}` })

/** A semaphore per key, made on first use. @internal */
export const processLocks = (): NonNullable<OAuth.OAuthStorage["withLock"]> => {
  const locks = new Map<string, Effect.Semaphore>()
  return (key, effect) =>
    Effect.suspend(() => {
      let lock = locks.get(key)
      if (lock === undefined) {
        lock = Effect.unsafeMakeSemaphore(1)
        locks.set(key, lock)
      }
      return lock.withPermits(1)(effect)
    })
}

/** @internal */
export const make = (store: KeyValueStore.KeyValueStore, options: Options = {}): OAuth.OAuthStorage => {
  const prefix = options.prefix ?? "mcp-effect/oauth/"
  return {
    get: (key) =>
      store.get(prefix + key).pipe(
        Effect.mapError(failure("get", key)),
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeed(undefined),
          onSome: (text) =>
            Effect.try({
              try: (): unknown => JSON.parse(text),
              catch: () => new OAuthStorageError({ message: `key-value store entry ${key} is not JSON` })
            })
        }))
      ),
    set: (key, value) => Effect.mapError(store.set(prefix + key, JSON.stringify(value)), failure("set", key)),
    remove: (key) =>
      // A file-system store fails to remove what is not there; removing nothing is no failure.
      store.has(prefix + key).pipe(
        Effect.flatMap((present) => present ? store.remove(prefix + key) : Effect.void),
        Effect.mapError(failure("remove", key))
      ),
    withLock: options.withLock ?? processLocks()
  }
}
