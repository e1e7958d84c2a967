/**
 * `subscriptions/listen` (2026-07-28) as a scoped resource: the subscription lives as long as
 * its scope, its notifications are a `Stream`, its failures typed. Notifications wait in a
 * queue bounded by count and by bytes; overflow gives up repeats, not signals. The subscriptions
 * of one connection share one listen stream.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { CapabilityError, RequestError } from "./McpError.js"

/**
 * What to listen to. Every field is opt-in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Filter {
  readonly toolsListChanged?: boolean | undefined
  readonly promptsListChanged?: boolean | undefined
  readonly resourcesListChanged?: boolean | undefined
  readonly resourceSubscriptions?: ReadonlyArray<string> | undefined
  /** Tasks extension. */
  readonly taskIds?: ReadonlyArray<string> | undefined
}

/**
 * One notification of a subscription.
 *
 * @since 0.1.0
 * @category models
 */
export interface Notification {
  readonly method: string
  readonly params: Record<string, unknown> | undefined
}

/**
 * Most notifications waiting for a slow consumer.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PENDING_NOTIFICATIONS = 1_000

/**
 * Most bytes (method name and params) the waiting notifications may retain.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PENDING_NOTIFICATION_BYTES = 4 * 1024 * 1024

/**
 * @since 0.1.0
 * @category models
 */
export interface Subscription {
  /** The server, for messages. */
  readonly server: string
  /** What was asked, frozen. */
  readonly filter: Filter
  /** A frozen copy of what the server granted. */
  readonly acknowledged: Filter
  /** Requested fields the acknowledgement did not really grant (read from values). */
  readonly unsupported: ReadonlyArray<string>
  /** The notifications, in order; ends when the subscription ends, fails if it fails. */
  readonly notifications: Stream.Stream<Notification, SubscriptionError>
  readonly isActive: () => boolean
  /**
   * Succeeds once the stream is acknowledged: at once while it is active, else after the
   * re-opened stream's acknowledgement (which may grant less); fails with the reason the
   * subscription ended. Added in 0.2.0.
   */
  readonly whenActive: Effect.Effect<void, SubscriptionError>
  readonly pendingNotifications: () => number
  readonly pendingNotificationBytes: () => number
  readonly droppedNotifications: () => number
  /** Ends the subscription (closing its scope does too). */
  readonly close: Effect.Effect<void>
}

/**
 * Why a subscription ended badly (a restart that negotiated a legacy revision is a
 * `CapabilityError`).
 *
 * @since 0.1.0
 * @category models
 */
export type SubscriptionError = RequestError | CapabilityError
