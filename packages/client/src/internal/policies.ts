/**
 * Every retry, re-issue and reconnect the client does on its own, named here with when it
 * applies and how often; the code that runs one imports its rule from this module, the values
 * it starts from are `defaults.ts`'s.
 *
 * - HTTP: transient failures retried ({@link retryTransient}); a broken response stream resumed
 *   ({@link resumeAttempts}); the optional GET stream re-opened ({@link getStreamDelay},
 *   {@link getStreamGivesUp}); OAuth requests retried on transport failures
 *   ({@link oauthTransportRetry}).
 * - Requests (steps under `request/`): a broken 2026-07-28 response stream re-issued
 *   ({@link reissuesBrokenStream}); an expired session's request re-sent
 *   ({@link resendsOnExpiredSession}); a `-32020` header mismatch rebuilt and sent again, once,
 *   when the request can be rebuilt (`request/headerMismatch.ts`: a request with `refresh`); a
 *   busy server's `input_required` waited out ({@link inputRoundPauseMs}).
 * - Connection: a dropped listen stream re-opened ({@link listenReopen}); a dead session
 *   re-opened under supervision on `ServerConfig.reconnect` ({@link reconnectSchedule}, run by
 *   `connection/supervisor.ts`).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { Reconnect } from "../ConnectionState.js"
import type { ConnectError } from "../McpError.js"
import * as Defaults from "./defaults.js"
import * as Limits from "./limits.js"

// --- HTTP ------------------------------------------------------------------------------------

/**
 * A request that failed in transport or with a 5xx is tried `retries` more times, the first
 * after `retryBase`, then 2×, 4×, … — never a `tools/call`, which may have had effects, nor a
 * request a browser refused for CORS.
 */
export const retryTransient = <A, E extends { readonly _tag: string }>(
  settings: { readonly retries: number; readonly retryBase: Duration.Duration },
  method: string | undefined,
  effect: Effect.Effect<A, E>
): Effect.Effect<A, E> => {
  if (method === "tools/call" || settings.retries <= 0) return effect
  // A CORS refusal is the server's configuration: trying again only delays the report.
  const retryable = (error: E) =>
    (error._tag === "ConnectionError" && (error as { readonly reason?: string }).reason !== "cors") ||
    error._tag === "TransientServerError"
  // `Effect.retry(effect, { schedule: Schedule.exponential(retryBase), times: retries,
  // while: retryable })`, with the schedule's driver built only once a first attempt failed (most
  // requests never pay for it): the second attempt after retryBase, the others after 2×, 4×, …
  return Effect.catchIf(effect, retryable, () =>
    Effect.retry(Effect.delay(effect, settings.retryBase), {
      schedule: Schedule.exponential(Duration.times(settings.retryBase, 2)),
      times: settings.retries - 1,
      while: retryable
    }))
}

/** The resumptions (`Last-Event-ID`) of one broken response stream before it is reported broken. */
export const resumeAttempts = (retries: number): number => Math.max(3, retries)

/** The wait before resuming or re-opening a stream when the server sent no `retry:`. */
export const sseReconnectDelay: Duration.Duration = Duration.decode(Defaults.SSE_RECONNECT_DELAY)

const getStreamMaxDelay = Duration.decode(Defaults.GET_RECONNECT_MAX_DELAY)

/**
 * The wait before re-opening the GET stream after `failures` failed attempts in a row:
 * `retryBase` doubling per failure, capped. After a stream that ended cleanly (no failures),
 * the caller waits the server's `retry:` instead.
 */
export const getStreamDelay = (retryBase: Duration.Duration, failures: number): Duration.Duration =>
  Duration.min(Duration.times(retryBase, 2 ** (failures - 1)), getStreamMaxDelay)

/** The GET stream is given up after this many failed attempts in a row. */
export const getStreamGivesUp = (failures: number): boolean => failures >= Limits.MAX_GET_FAILURES

/** Transport failures of idempotent OAuth requests: two more tries, 100 ms then 200 ms later. */
export const oauthTransportRetry = Schedule.exponential(Defaults.OAUTH_RETRY_BASE).pipe(
  Schedule.intersect(Schedule.recurs(Defaults.OAUTH_RETRIES))
)

// --- Requests --------------------------------------------------------------------------------

/**
 * A request whose 2026-07-28 response stream broke before its result is re-issued once, with a
 * new id — not a listen: its subscription re-opens it ({@link listenReopen}, re-acknowledged).
 */
export const reissuesBrokenStream = (method: string): boolean => method !== "subscriptions/listen"

/**
 * A request whose HTTP session expired is re-sent once, on a new session — not a tool call,
 * which may have had effects: that fails, and the caller decides.
 */
export const resendsOnExpiredSession = (method: string): boolean => method !== "tools/call"

/**
 * The pause before round `round` (from 1) when a busy server answered `input_required` with
 * state only: doubling, capped; a host's `onInputRequiredWait` may choose otherwise, and the
 * request's timeout bounds the whole wait.
 */
export const inputRoundPauseMs = (round: number): number =>
  Math.min(Defaults.INPUT_ROUND_PAUSE_MS * 2 ** (round - 1), Defaults.INPUT_ROUND_MAX_PAUSE_MS)

// --- Connection ------------------------------------------------------------------------------

/** Re-opening a dropped listen stream: 200 ms doubling per failure, at most 30 s apart. */
export const listenReopen = Schedule.exponential(Defaults.LISTEN_REOPEN_DELAY).pipe(
  Schedule.union(Schedule.spaced(Defaults.LISTEN_REOPEN_MAX_DELAY))
)

/**
 * The schedule of a supervised reconnect (`ServerConfig.reconnect`): a `Schedule` as given, or a
 * `ReconnectPolicy`'s capped exponential backoff, for at most `maxAttempts` attempts in all.
 */
export const reconnectSchedule = (reconnect: Reconnect): Schedule.Schedule<unknown, ConnectError> => {
  if (Schedule.isSchedule(reconnect)) return reconnect
  const maxDelay = Duration.decode(reconnect.maxDelay ?? Defaults.RECONNECT_MAX_DELAY)
  const backoff = Schedule.exponential(
    reconnect.initialDelay ?? Defaults.RECONNECT_INITIAL_DELAY,
    reconnect.factor ?? Defaults.RECONNECT_FACTOR
  ).pipe(Schedule.modifyDelay((delay) => Duration.min(delay, maxDelay)))
  return reconnect.maxAttempts === undefined
    ? backoff
    : Schedule.intersect(backoff, Schedule.recurs(Math.max(0, reconnect.maxAttempts - 1)))
}
