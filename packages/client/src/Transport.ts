/**
 * The message-level contract every transport implements.
 *
 * A transport is opened with a {@link TransportSink}: the transport pushes each decoded message
 * (or its own death) into the sink synchronously, and the layer above correlates. Delivering
 * through a callback rather than a `Stream` per request keeps the per-request cost of an
 * Effect client near a raw JSON-RPC loop (see `docs/architecture.md`).
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { AuthFailure } from "./McpAuth.js"
import type { ConnectError, ConnectionError, ServerError, TransportError } from "./McpError.js"

/**
 * Where a transport delivers what arrives from the server.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransportSink {
  /** One parsed JSON value from the peer; its envelope is checked by the receiver. */
  readonly onMessage: (message: unknown) => void
  /** The connection is gone (process exit, closed pipe). Called at most once. */
  readonly onClose: (error: ConnectionError) => void
  /**
   * The exchange of one request failed after it was sent (an HTTP response stream that broke
   * and could not be resumed): the request with that id fails with `error`.
   */
  readonly onRequestFailed: (id: string | number, error: SendError) => void
  /**
   * The transport started (`true`) or finished (`false`) handling an authorization challenge —
   * an OAuth flow may be waiting for a person. Request deadlines stand still meanwhile.
   */
  readonly onAuthorizing?: ((active: boolean) => void) | undefined
  /**
   * Flow control: when present, a transport checks it between the chunks it reads and stops
   * reading while it says so (see {@link Backpressure}).
   */
  readonly backpressure?: Backpressure | undefined
  /**
   * The runtime of the fiber opening the transport, already captured by the connection: a
   * transport that runs effects of its own later (logs, its close) takes it instead of its own
   * `Effect.runtime()`, a copy of the fiber's refs per connection. Added in 0.2.0.
   */
  readonly runtime?: Runtime.Runtime<never> | undefined
}

/**
 * The receiver's request to stop reading: its queue of answers to server requests is full. A
 * transport that honours it stops reading its stream (an SSE stream, a process's stdout) at the
 * next chunk boundary and resumes once `resumed` completes; a stream that stays stopped longer
 * than `stallTimeout` is failed with `ConnectionError` (the answers do not drain: the server
 * does not take them) and handled as any dropped stream. What one chunk holds is taken in full:
 * a pause never splits or drops messages.
 *
 * @since 0.2.0
 * @category models
 */
export interface Backpressure {
  /** Whether reading should stop now. */
  readonly paused: () => boolean
  /** Completes once the receiver takes messages again (at once when it does already). */
  readonly resumed: Effect.Effect<void>
  /** How long a stream may stay stopped before it is failed. */
  readonly stallTimeout: Duration.Duration
}

/**
 * What sending one message can fail with: the wire, or the server refusing it outright (an
 * HTTP 4xx carrying a JSON-RPC error).
 *
 * @since 0.1.0
 * @category models
 */
export type SendError = TransportError | ServerError

/**
 * Per-message instructions for the transport; stdio and in-memory ignore them.
 *
 * @since 0.1.0
 * @category models
 */
export interface SendHints {
  /** HTTP headers of this message (protocol version, method, name, `Mcp-Param-*`). */
  readonly headers?: Record<string, string> | undefined
  /**
   * A 2026-07-28 message: no session, no `Last-Event-ID` resumption (a broken stream is
   * reported at once, the caller re-issues), configured `Mcp-Param-*` headers dropped.
   */
  readonly modern?: boolean | undefined
  /** Told the SHA-256 of the `Authorization` the request actually carried (HTTP only). */
  readonly onAuthorization?: ((sha256: string | undefined) => void) | undefined
}

/**
 * An open connection to one server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Transport {
  /** Sends one JSON-RPC message. */
  readonly send: (message: object, hints?: SendHints) => Effect.Effect<void, SendError>
  /**
   * Writes one message at once, for transports whose send never waits and takes no hints
   * (stdio): the error, or `undefined` once written. When present, requests use it instead of
   * `send` (an effect per request costs more than the write).
   */
  readonly write?: ((message: object) => SendError | undefined) | undefined
  /** Short description for logs and errors, e.g. `stdio:node server.js`. Never holds credentials. */
  readonly description: string
  /** The SHA-256 of the `Authorization` the next request would carry (HTTP only). */
  readonly authorization?: Effect.Effect<string | undefined> | undefined
  /** `false` when a host hook alters requests invisibly: cached results are then not reused. */
  readonly reusableCache?: boolean | undefined
  /** The session id the server issued (legacy Streamable HTTP `Mcp-Session-Id`), for telemetry. */
  readonly sessionId?: (() => string | undefined) | undefined
  /** Where the transport connects (HTTP: the URL's host and port), for telemetry. */
  readonly address?: { readonly host: string; readonly port: number } | undefined
  /**
   * The handshake failed with `error` (a timeout, most often) while the connection stayed up:
   * a transport that heard nothing at all from the server says so with a `ConnectionError` (stdio:
   * the process's last stderr lines and a hint about its environment), else `undefined`.
   */
  readonly unanswered?: ((error: ConnectError) => ConnectionError | undefined) | undefined
  /**
   * Why the transport holds no stream for what the server sends outside requests (its GET
   * stream found the origin's `maxStreamsPerOrigin` reached), else `undefined`. Added in 0.2.0.
   */
  readonly streamRefused?: (() => ConnectionError | undefined) | undefined
}

/**
 * Opens a connection in the given scope; closing the scope closes the connection. `server` is
 * the configured server name, for errors and logs.
 *
 * @since 0.1.0
 * @category models
 */
export type TransportFactory<R = never> = (
  sink: TransportSink,
  server: string
) => Effect.Effect<Transport, ConnectionError | AuthFailure, Scope.Scope | R>
