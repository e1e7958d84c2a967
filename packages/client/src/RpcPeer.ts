/**
 * JSON-RPC correlation over one transport: request ids, the pending map, timeouts,
 * cancellation, progress routing and answering server-initiated requests (under one budget: at
 * most `maxConcurrentServerRequests` answers in the transport at once, however many the server
 * sends; every request read is answered, a flood pausing the transport's reading instead).
 *
 * Requests complete through a callback registered in the pending map, and all deadlines are
 * watched by one fiber sleeping on `Clock` until the earliest one — no timer or fiber per
 * request (see `docs/architecture.md`).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/rpc/rpcPeer.js"
import type { AuthFailure } from "./McpAuth.js"
import type { ConnectionError, RequestError, ServerError } from "./McpError.js"
import type { SendError, SendHints, TransportFactory } from "./Transport.js"

/**
 * A `notifications/progress` payload routed to the request that asked for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RequestOptions {
  /** Timeout in milliseconds; defaults to the peer's `defaultTimeoutMs`. */
  readonly timeoutMs?: number | undefined
  /** Receives this request's own progress notifications; adds a `progressToken` to `_meta`. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /** Told the JSON-RPC id the request goes out with (each attempt gets a new one). */
  readonly onId?: ((id: number) => void) | undefined
  /**
   * Each progress notification of this request restarts its timeout (and asks for progress:
   * a `progressToken` is added even without `onProgress`), up to `maxTotalTimeoutMs`.
   */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /**
   * The bound from the start, whatever progress arrives (default with `resetTimeoutOnProgress`:
   * ten times the timeout).
   */
  readonly maxTotalTimeoutMs?: number | undefined
  /**
   * Whether a timeout or interruption sends `notifications/cancelled` (not for `initialize`). The
   * transport may carry it otherwise: 2026-07-28 Streamable HTTP aborts the request's POST instead.
   */
  readonly cancellable?: boolean | undefined
  /** Passed to the transport with the request. */
  readonly hints?: SendHints | undefined
}

/**
 * Serves one server-initiated request; `undefined` means "method not found".
 *
 * @since 0.1.0
 * @category models
 */
export type RequestHandler = (
  method: string,
  params: Record<string, unknown> | undefined
) => Effect.Effect<unknown, ServerError> | undefined

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  readonly server: string
  readonly transport: TransportFactory<R>
  readonly defaultTimeoutMs: number
  /** Every notification the peer does not consume itself (progress, cancellation). */
  readonly onNotification: (method: string, params: Record<string, unknown> | undefined) => void
  readonly onRequest: RequestHandler
  /** Called once when the connection dies. */
  readonly onClose?: ((error: ConnectionError) => void) | undefined
  /**
   * How many server-initiated requests may be handled at once, and how many answers (results,
   * errors, refusals) may be in the transport at once (default 16). A request beyond the budget
   * is refused with `-32603`.
   */
  readonly maxConcurrentServerRequests?: number | undefined
  /**
   * Refusals waiting for a free answer slot (default 1,024, and 1 Mi characters of string ids);
   * past it the transport is asked to stop reading until the queue is down to half
   * (`TransportSink.backpressure`), so every request read is answered. A stream stopped for
   * longer than `defaultTimeoutMs` fails with `ConnectionError`. Only a transport that does not
   * stop can push the queue to 64 times this bound (4 times the id characters), past which
   * refusals are dropped unanswered and counted in the log summary.
   */
  readonly maxQueuedRefusals?: number | undefined
  /** Refused server requests are logged as one summary line per this interval (default 5 seconds). */
  readonly refusalSummaryInterval?: Duration.DurationInput | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RpcPeer {
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options?: RequestOptions
  ) => Effect.Effect<unknown, RequestError>
  /**
   * `request` without a fiber, where the transport writes synchronously (stdio; `undefined`
   * elsewhere): the request is written at once and `onExit` is called once with its outcome
   * (response, error, timeout or closed connection). Returns the function that abandons it
   * (forgotten, and `notifications/cancelled` sent), or the error that kept it from being sent.
   */
  readonly unsafeRequest?:
    | ((
      method: string,
      params: Record<string, unknown> | undefined,
      options: RequestOptions | undefined,
      onExit: (exit: Exit.Exit<unknown, RequestError>) => void
    ) => (() => void) | RequestError)
    | undefined
  readonly notify: (
    method: string,
    params?: Record<string, unknown>,
    hints?: SendHints
  ) => Effect.Effect<void, SendError>
  /** Whether the transport is still open. */
  readonly isOpen: () => boolean
  /** Resolves when the connection dies, with the reason. */
  readonly closed: Effect.Effect<ConnectionError>
  readonly description: string
  /** The transport's authorization context (see `Transport.authorization`). */
  readonly authorization: Effect.Effect<string | undefined>
  readonly reusableCache: boolean
  /** See `Transport.streamRefused`. Added in 0.2.0. */
  readonly streamRefused?: (() => ConnectionError | undefined) | undefined
}

/**
 * Opens the transport in the current scope and starts correlating.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: <R>(options: Options<R>) => Effect.Effect<RpcPeer, ConnectionError | AuthFailure, Scope.Scope | R> =
  internal.make
