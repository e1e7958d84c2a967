/**
 * `subscriptions/listen` (2026-07-28): opening a listen stream, its acknowledgement, the queue
 * its notifications wait in, and the re-open policy of a dropped stream (backoff, crash loops,
 * what ends a subscription).
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { RequestError } from "../../McpError.js"
import { CapabilityError, ConnectionError, RequestTimeoutError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type { ServerConnection } from "../../ServerConnection.js"
import * as Subscription from "../../Subscription.js"
import * as Limits from "../limits.js"
import * as Policies from "../policies.js"
import type { Core, Listen } from "./core.js"
import * as NotificationQueue from "./notificationQueue.js"

const freezeFilter = (filter: Subscription.Filter): Subscription.Filter =>
  deepFreeze(structuredClone(filter)) as Subscription.Filter

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

/** The requested fields the acknowledgement did not really grant, read from its values. */
const unsupportedOf = (requested: Subscription.Filter, granted: Subscription.Filter): ReadonlyArray<string> => {
  const missing: Array<string> = []
  for (const flag of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    if (requested[flag] === true && granted[flag] !== true) missing.push(flag)
  }
  for (const list of ["resourceSubscriptions", "taskIds"] as const) {
    const asked = requested[list]
    if (asked === undefined || asked.length === 0) continue
    const given = Array.isArray(granted[list]) ? new Set(granted[list]) : new Set<string>()
    if (!asked.some((item) => given.has(item))) missing.push(list)
  }
  return missing
}

const listenRefused = (server: string) =>
  new CapabilityError({
    server,
    capability: "subscriptions/listen (2026-07-28)",
    method: "subscriptions/listen"
  })

const isReopenable = (error: { readonly _tag: string }) =>
  error._tag === "ResponseStreamClosedError" || error._tag === "TransientServerError" ||
  error._tag === "ConnectionError"

/** The resources a first acknowledgement named and a later one no longer does. */
const lostResources = (first: Record<string, unknown>, granted: Record<string, unknown>): ReadonlyArray<unknown> => {
  const now = Array.isArray(granted.resourceSubscriptions) ? granted.resourceSubscriptions : []
  const before = Array.isArray(first.resourceSubscriptions) ? first.resourceSubscriptions : []
  return before.filter((uri) => !now.includes(uri))
}

/** What subscriptions use of the core. @internal */
export type Needs = Pick<Core, "server" | "defaultTimeoutMs" | "listens" | "session" | "isClosed" | "send">

/** @internal */
export const make = (core: Needs): Pick<ServerConnection, "listen"> => {
  const { defaultTimeoutMs, listens, server } = core

  const listen: ServerConnection["listen"] = (filter, listenOptions) =>
    Effect.gen(function*() {
      const s = yield* core.session
      if (s.negotiated.era !== "modern") return yield* listenRefused(server)
      // The filter is copied and frozen: later edits by the caller change nothing.
      const frozen = freezeFilter(filter)
      const queue = NotificationQueue.make<RequestError | CapabilityError>(
        Subscription.MAX_PENDING_NOTIFICATIONS,
        Subscription.MAX_PENDING_NOTIFICATION_BYTES
      )
      const acknowledged = yield* Deferred.make<Record<string, unknown>, RequestError | CapabilityError>()
      let id: number | undefined
      let active = false
      // Completed by the acknowledgement of the current request: the first one answers `listen`,
      // later ones the re-opens.
      let nextAck = yield* Deferred.make<void>()
      const clock = yield* Effect.clock
      let firstGranted: Record<string, unknown> | undefined
      // Why the subscription ended badly, for `whenActive`; the stream itself fails with it too.
      let failure: RequestError | CapabilityError | undefined
      let over = false
      const state: Listen = {
        acknowledge: (granted) => {
          // A re-opened stream is a new listen the server may grant less: a resource it no
          // longer names is no longer watched, and the subscription ends rather than report it.
          const lost = firstGranted === undefined ? [] : lostResources(firstGranted, granted)
          if (lost.length > 0) {
            active = false
            failure = new CapabilityError({
              server,
              capability: `resources.subscribe (${String(lost[0]).slice(0, 200)})`,
              method: "subscriptions/listen"
            })
            over = true
            queue.fail(failure)
            if (id !== undefined) listens.delete(id)
            Deferred.unsafeDone(nextAck, Effect.void)
            return
          }
          firstGranted ??= structuredClone(granted)
          active = true
          acknowledgedAt = clock.unsafeCurrentTimeMillis()
          resetBackoff = true
          Deferred.unsafeDone(acknowledged, Effect.succeed(structuredClone(granted)))
          Deferred.unsafeDone(nextAck, Effect.void)
        },
        end: () => {
          active = false
          over = true
          queue.end()
          Deferred.unsafeDone(nextAck, Effect.void)
        },
        queue
      }
      const onId = (next: number) => {
        if (id !== undefined) {
          listens.delete(id)
        }
        id = next
        listens.set(next, state)
      }
      // `false` waits for ever, like an infinite duration.
      const ackSetting = listenOptions?.ackTimeout === false ? Duration.infinity : listenOptions?.ackTimeout
      const ackTimeoutMs = ackSetting === undefined
        ? defaultTimeoutMs
        : Duration.toMillis(Duration.decode(ackSetting))
      let acknowledgedAt = -Infinity
      // The re-open backoff grows with failures and starts over after each acknowledgement.
      const backoff = yield* Schedule.driver(Policies.listenReopen)
      let resetBackoff = false
      const failWith = (error: RequestError | CapabilityError) =>
        Effect.sync(() => {
          failure ??= error
          over = true
          queue.fail(error)
          Deferred.unsafeDone(acknowledged, Effect.fail(error))
          Deferred.unsafeDone(nextAck, Effect.void)
        })
      // Waits for the acknowledgement the current (or next) stream gets, or for the end.
      const whenActive: Effect.Effect<void, RequestError | CapabilityError> = Effect.suspend(() =>
        active
          ? Effect.void
          : over
          ? failure === undefined
            ? Effect.fail(new ConnectionError({ server, message: "the subscription ended", reason: "closed" }))
            : Effect.fail(failure)
          : Effect.zipRight(Deferred.await(nextAck), whenActive)
      )
      // One listen request: resolves when the server ends it (or fails).
      const once = core.send({
        method: "subscriptions/listen",
        params: { notifications: frozen },
        options: { timeout: Duration.infinity },
        onId
      })
      // Fails once `ack` is still pending after ackTimeout; never succeeds.
      const acknowledgedWithin = (ack: Deferred.Deferred<void>) =>
        Effect.zipRight(
          Effect.timeoutFail(Deferred.await(ack), {
            duration: Duration.millis(ackTimeoutMs),
            onTimeout: () =>
              new RequestTimeoutError({ server, method: "subscriptions/listen", timeoutMs: ackTimeoutMs })
          }),
          Effect.never
        )
      // A dropped stream (or a restarted stdio process) is a new listen: the server keeps no
      // subscription state. Re-opened with backoff; each re-open must be acknowledged within
      // ackTimeout (the first one is bounded by `listen` itself); a drop right after an
      // acknowledgement (a crash loop) ends it, and so does the host closing the connection.
      const loop = (reopen: boolean): Effect.Effect<void> =>
        Effect.suspend(() => {
          const ack = nextAck
          return Effect.matchEffect(reopen ? Effect.raceFirst(once, acknowledgedWithin(ack)) : once, {
            onSuccess: (result) =>
              Protocol.resultTypeOf(result) === "complete"
                ? Effect.sync(() => state.end())
                : failWith(Protocol.invalidResult(server, "subscriptions/listen", result)),
            onFailure: (error): Effect.Effect<void> => {
              active = false
              // Waiters (`whenActive`) now wait for the replacement's acknowledgement.
              if (!over) nextAck = Deferred.unsafeMake<void>(FiberId.none)
              const acknowledgedOnce = acknowledgedAt !== -Infinity
              const ended = acknowledgedOnce ? Effect.sync(() => state.end()) : failWith(error as RequestError)
              if (core.isClosed()) return ended
              // Before any acknowledgement only an HTTP stream's failure (a 5xx, a drop) is retried.
              const retry = isReopenable(error) && (acknowledgedOnce
                ? clock.unsafeCurrentTimeMillis() - acknowledgedAt >= Limits.RESTART_MIN_INTERVAL_MS
                : error._tag !== "ConnectionError")
              if (!retry) return failWith(error as RequestError)
              return Effect.gen(function*() {
                if (resetBackoff) {
                  resetBackoff = false
                  yield* backoff.reset
                }
                // Sleeps the next delay; the schedule never ends.
                yield* Effect.orDie(backoff.next(undefined))
                const s = yield* Effect.either(core.session)
                if (core.isClosed()) return yield* ended
                if (s._tag === "Left") return yield* failWith(s.left as RequestError)
                if (s.right.negotiated.era !== "modern") return yield* failWith(listenRefused(server))
                return yield* loop(true)
              })
            }
          })
        })
      const request = loop(false).pipe(
        Effect.ensuring(Effect.sync(() => {
          active = false
          if (id !== undefined) listens.delete(id)
        }))
      )
      const fiber = yield* Effect.forkScoped(request)
      // A `listen` still waiting for its acknowledgement fails rather than waits for one.
      const close = Effect.asVoid(Effect.zipRight(
        Fiber.interrupt(fiber),
        Effect.sync(() => {
          state.end()
          Deferred.unsafeDone(
            acknowledged,
            Effect.fail(new ConnectionError({ server, message: "the subscription was closed", reason: "closed" }))
          )
        })
      ))
      yield* Effect.addFinalizer(() => close)
      const ackTimeout = Duration.millis(ackTimeoutMs)
      const granted = yield* Deferred.await(acknowledged).pipe(
        Effect.timeoutFail({
          duration: ackTimeout,
          onTimeout: () =>
            new RequestTimeoutError({
              server,
              method: "subscriptions/listen",
              timeoutMs: Duration.toMillis(ackTimeout)
            })
        }),
        Effect.tapError(() => close)
      )
      const acknowledgedFilter = deepFreeze(granted) as Subscription.Filter
      return {
        server,
        filter: frozen,
        acknowledged: acknowledgedFilter,
        unsupported: unsupportedOf(frozen, acknowledgedFilter),
        notifications: Stream.repeatEffectOption(queue.take),
        isActive: () => active,
        whenActive,
        pendingNotifications: queue.pending,
        pendingNotificationBytes: queue.pendingBytes,
        droppedNotifications: queue.dropped,
        close
      } satisfies Subscription.Subscription
    })

  return { listen }
}
