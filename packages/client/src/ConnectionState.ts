/**
 * The state of one server connection, as a value and as a stream of changes
 * (`ServerConnection.state`), and the policy of a supervised reconnect (`ServerConfig.reconnect`).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import type * as Schedule from "effect/Schedule"
import * as Policies from "./internal/policies.js"
import type { ConnectError } from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type { Negotiated } from "./Protocol.js"

/**
 * `Connecting` (the first opening), `Ready` (a session is open), `Reconnecting` (re-opening
 * after the session died: `attempt` counts from 1 since the last `Ready`, `cause` is why the
 * last session or attempt ended), `Failed` (no session, and nobody is trying: the next request
 * re-opens it) and `Closed` (the host closed the connection; the stream of changes ends).
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectionState = Data.TaggedEnum<{
  Connecting: Record<never, never>
  Ready: {
    readonly protocolVersion: string
    readonly serverInfo: McpSchema.Implementation
    readonly negotiated: Negotiated
  }
  Reconnecting: { readonly attempt: number; readonly cause: ConnectError | undefined }
  Failed: { readonly cause: ConnectError }
  Closed: Record<never, never>
}>

/**
 * Constructors, `$is` and `$match` of `ConnectionState`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ConnectionState: Data.TaggedEnum.Constructor<ConnectionState> = Data.taggedEnum<ConnectionState>()

/**
 * A one-line description of a state (server text escaped by the caller when printed).
 *
 * @since 0.1.0
 * @category utils
 */
export const describe = (state: ConnectionState): string =>
  ConnectionState.$match(state, {
    Connecting: () => "connecting",
    Ready: (s) => `ready (${s.protocolVersion}, ${s.serverInfo.name} ${s.serverInfo.version})`,
    Reconnecting: (s) =>
      `reconnecting (attempt ${s.attempt}${s.cause === undefined ? "" : `: ${s.cause._tag}: ${s.cause.message}`})`,
    Failed: (s) => `failed (${s.cause._tag}: ${s.cause.message})`,
    Closed: () => "closed"
  })

/**
 * A reconnect policy without `Schedule`: exponential backoff from `initialDelay` (default
 * 100 ms) after the first attempt (made at once), multiplied by `factor` (default 2) and capped
 * at `maxDelay` (default 30 s), for at most `maxAttempts` attempts in all (default: without end).
 *
 * @since 0.1.0
 * @category models
 */
export interface ReconnectPolicy {
  readonly initialDelay?: Duration.DurationInput | undefined
  readonly maxDelay?: Duration.DurationInput | undefined
  readonly factor?: number | undefined
  readonly maxAttempts?: number | undefined
}

/**
 * What `ServerConfig.reconnect` takes: a `Schedule` fed with each failed attempt's error (its
 * delays are the pauses between attempts; when it ends the state is `Failed`), or a policy.
 *
 * @since 0.1.0
 * @category models
 */
export type Reconnect = Schedule.Schedule<unknown, ConnectError> | ReconnectPolicy

/**
 * The `Schedule` of a reconnect setting.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toSchedule: (reconnect: Reconnect) => Schedule.Schedule<unknown, ConnectError> = Policies.reconnectSchedule
