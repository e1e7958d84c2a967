/**
 * A lock shared by every process that reaches one Redis: `SET key token NX PX ttl` takes it (so
 * a holder that dies loses it when it expires), a waiter retries with jittered backoff until its
 * deadline, and only the owner (the same token) deletes it, in one Lua script that compares and
 * deletes.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { Redis } from "ioredis"
import * as Crypto from "node:crypto"

/** @internal */
export interface LockOptions {
  /** How long a lock is held at most before others may take it. */
  readonly ttl: Duration.DurationInput
  /** How long a waiter waits before it gives up. */
  readonly wait: Duration.DurationInput
}

/** Deletes the lock only if it still holds the caller's token. */
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`

class Busy {
  readonly _tag = "Busy"
}

const failure = (key: string, e: unknown) =>
  new Error(`redis lock ${key}: ${e instanceof Error ? e.message : String(e)}`)

/** Backoff from 5 ms doubling to 200 ms, jittered so that waiters that started together spread out. */
const backoff = Schedule.exponential("5 millis").pipe(
  Schedule.union(Schedule.spaced("200 millis")),
  Schedule.jittered
)

/**
 * Takes the lock (waiting while another holds it) and returns its token; fails after `options.wait`.
 *
 * @internal
 */
export const acquire = (client: Redis, key: string, options: LockOptions): Effect.Effect<string, Error> => {
  const token = Crypto.randomBytes(16).toString("hex")
  const ttl = Duration.toMillis(options.ttl)
  const attempt = Effect.tryPromise({
    try: () => client.set(key, token, "PX", ttl, "NX"),
    catch: (e) => failure(key, e)
  }).pipe(Effect.flatMap((reply) => reply === "OK" ? Effect.succeed(token) : Effect.fail(new Busy())))
  // The deadline is the schedule's: an acquisition runs uninterruptibly (acquireUseRelease).
  return attempt.pipe(
    Effect.retry({ schedule: Schedule.upTo(backoff, options.wait), while: (e) => e instanceof Busy }),
    Effect.catchIf((e): e is Busy => e instanceof Busy, () => Effect.fail(failure(key, "timed out; held by another")))
  )
}

/**
 * Deletes the lock if `token` still holds it (one taken over after expiry is left alone).
 *
 * @internal
 */
export const release = (client: Redis, key: string, token: string): Effect.Effect<void> =>
  Effect.promise(() => client.eval(RELEASE, 1, key, token).then(() => undefined, () => undefined))
