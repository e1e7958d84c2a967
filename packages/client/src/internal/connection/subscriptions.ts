/**
 * `subscriptions/listen` (2026-07-28): one subscription on the connection's shared listen
 * stream (`listenHub.ts`): its acknowledgement, what it loses on a re-open, and the queue its
 * notifications wait in.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Stream from "effect/Stream"
import type { RequestError } from "../../McpError.js"
import { CapabilityError, ConnectionError, RequestTimeoutError } from "../../McpError.js"
import type { ServerConnection } from "../../ServerConnection.js"
import * as Subscription from "../../Subscription.js"
import type { Core } from "./core.js"
import type * as ListenHub from "./listenHub.js"
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

/** The resources a first acknowledgement named and a later one no longer does. */
const lostResources = (first: Record<string, unknown>, granted: Record<string, unknown>): ReadonlyArray<unknown> => {
  const now = Array.isArray(granted.resourceSubscriptions) ? granted.resourceSubscriptions : []
  const before = Array.isArray(first.resourceSubscriptions) ? first.resourceSubscriptions : []
  return before.filter((uri) => !now.includes(uri))
}

/** What subscriptions use of the core. @internal */
export type Needs = Pick<Core, "server" | "defaultTimeoutMs" | "session">

/** @internal */
export const make = (core: Needs, hub: ListenHub.Hub): Pick<ServerConnection, "listen"> => {
  const { defaultTimeoutMs, server } = core

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
      let active = false
      // Completed by the acknowledgement of the stream that carries it: the first one answers
      // `listen`, later ones the re-opens (and the replacements of the shared stream).
      let nextAck = yield* Deferred.make<void>()
      let firstGranted: Record<string, unknown> | undefined
      // Why the subscription ended badly, for `whenActive`; the stream itself fails with it too.
      let failure: RequestError | CapabilityError | undefined
      let over = false
      let nextAckDone = false
      const settleAck = () => {
        nextAckDone = true
        Deferred.unsafeDone(nextAck, Effect.void)
      }
      const failWith = (error: RequestError | CapabilityError) => {
        active = false
        failure ??= error
        over = true
        queue.fail(error)
        Deferred.unsafeDone(acknowledged, Effect.fail(error))
        settleAck()
      }
      const end = () => {
        active = false
        over = true
        queue.end()
        Deferred.unsafeDone(
          acknowledged,
          Effect.fail(new ConnectionError({ server, message: "the listen stream ended", reason: "closed" }))
        )
        settleAck()
      }
      // `false` waits for ever, like an infinite duration.
      const ackSetting = listenOptions?.ackTimeout === false ? Duration.infinity : listenOptions?.ackTimeout
      const ackTimeoutMs = ackSetting === undefined
        ? defaultTimeoutMs
        : Duration.toMillis(Duration.decode(ackSetting))
      const member: ListenHub.Member = {
        filter: frozen,
        ackTimeoutMs,
        acknowledge: (granted) => {
          if (over) return false
          // A re-opened stream is a new listen the server may grant less: a resource it no
          // longer names is no longer watched, and the subscription ends rather than report it.
          const lost = firstGranted === undefined ? [] : lostResources(firstGranted, granted)
          if (lost.length > 0) {
            failWith(
              new CapabilityError({
                server,
                capability: `resources.subscribe (${String(lost[0]).slice(0, 200)})`,
                method: "subscriptions/listen"
              })
            )
            return false
          }
          firstGranted ??= structuredClone(granted)
          active = true
          Deferred.unsafeDone(acknowledged, Effect.succeed(structuredClone(granted)))
          settleAck()
          return true
        },
        dropped: () => {
          active = false
          // Waiters (`whenActive`) now wait for the replacement's acknowledgement.
          if (!over && nextAckDone) {
            nextAck = Deferred.unsafeMake<void>(FiberId.none)
            nextAckDone = false
          }
        },
        end,
        fail: failWith,
        offer: queue.offer
      }
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
      // A `listen` still waiting for its acknowledgement fails rather than waits for one.
      const close = Effect.zipRight(
        hub.leave(member),
        Effect.sync(() => {
          Deferred.unsafeDone(
            acknowledged,
            Effect.fail(new ConnectionError({ server, message: "the subscription was closed", reason: "closed" }))
          )
          end()
        })
      )
      yield* Effect.addFinalizer(() => close)
      yield* hub.join(member)
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
