/**
 * Every error the client reports. Each is a tagged class extending `Error`, so it works with
 * `Effect.catchTag` and with `instanceof` in plain async code.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { describe as describeDrift } from "./internal/drift.js"
import { TaggedError } from "./internal/taggedError.js"

/**
 * Why a connection failed, when the client could tell:
 *
 * - `refused`: nothing listens at the address (`ECONNREFUSED`).
 * - `dns`: the host name could not be looked up (`ENOTFOUND`, `EAI_AGAIN`, `EAI_NONAME`).
 * - `tls`: the TLS handshake failed: a certificate not trusted here, expired, or not naming the
 *   host, or a server that does not speak TLS.
 * - `timeout`: the connection could not be made in time (`ETIMEDOUT`, undici's connect timeout),
 *   the server stopped sending within undici's header or body timeout, or a stdio server printed
 *   nothing on stdout until the handshake timed out.
 * - `reset`: the peer closed or reset the connection (`ECONNRESET`, `EPIPE`, a closed socket).
 * - `proxy`: the HTTP proxy refused or failed the request (a cause with code `EPROXY`).
 * - `exited`: the server process exited (`exitCode` or `signal`, and its last `stderr` lines).
 * - `spawn`: the server process could not be started (`ENOENT`, `EACCES`).
 * - `closed`: the connection was closed: a stdin pipe, a stream or a session that ended.
 * - `protocol`: the server broke the transport's rules (a bad redirect, an SSE `endpoint` on
 *   another origin, no usable events).
 * - `cors`: in a browser page, a request to another origin failed as a CORS refusal does (the
 *   server sent no `Access-Control-Allow-Origin` for the page, or refused the preflight); the
 *   browser keeps the exact reason in its console (docs/browser.md).
 * - `stream-limit`: a new long-lived stream (a GET or listen stream) would exceed the streams
 *   allowed to the server's origin (`maxStreamsPerOrigin`, 4 by default in browsers); the
 *   message names the origin and the limit (docs/browser.md). Added in 0.2.0.
 *
 * @since 0.2.0
 * @category models
 */
export const ConnectionFailureReason = Schema.Literal(
  "refused",
  "dns",
  "tls",
  "timeout",
  "reset",
  "proxy",
  "exited",
  "spawn",
  "closed",
  "protocol",
  "cors",
  "stream-limit"
)

/**
 * @since 0.2.0
 * @category models
 */
export type ConnectionFailureReason = typeof ConnectionFailureReason.Type

/**
 * The connection to a server could not be opened, or died: a process that exited, a closed
 * pipe, a transport that refused to send. `reason` says why when the client could tell, `cause`
 * is the underlying failure; a server process that exited gives its `exitCode` or `signal` and
 * the last lines of its `stderr` (escaped, bounded).
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectionError extends TaggedError<ConnectionError>()("ConnectionError", {
  server: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect),
  reason: Schema.optional(ConnectionFailureReason),
  exitCode: Schema.optional(Schema.Number),
  signal: Schema.optional(Schema.String),
  stderr: Schema.optional(Schema.Array(Schema.String))
}) {}

/**
 * No response arrived within the request's timeout. The request was cancelled on the server
 * (best effort). Never retried automatically.
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestTimeoutError extends TaggedError<RequestTimeoutError>()("RequestTimeoutError", {
  server: Schema.String,
  method: Schema.String,
  timeoutMs: Schema.Number
}) {
  override get message(): string {
    return `${this.method} on ${this.server} timed out after ${this.timeoutMs} ms`
  }
}

/**
 * A body (after decompression) or a single message grew past its cap; the response was
 * abandoned. Never retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResponseTooLargeError extends TaggedError<ResponseTooLargeError>()("ResponseTooLargeError", {
  server: Schema.String,
  limit: Schema.Number
}) {
  override get message(): string {
    return `a response from ${this.server} exceeded ${this.limit} bytes and was abandoned`
  }
}

/**
 * The server answered HTTP 5xx: the request probably did not complete, so it is retried
 * (never for `tools/call`) while the retry budget lasts. Belongs to the server-error family.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransientServerError extends TaggedError<TransientServerError>()("TransientServerError", {
  server: Schema.String,
  method: Schema.String,
  status: Schema.Number
}) {
  override get message(): string {
    return `${this.server} answered HTTP ${this.status} to ${this.method}`
  }
}

/**
 * The server no longer knows the HTTP session (404 for a session id). Idempotent requests are
 * re-sent once on a new session; a `tools/call` fails with this error so the caller decides.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionExpiredError extends TaggedError<SessionExpiredError>()("SessionExpiredError", {
  server: Schema.String,
  method: Schema.String
}) {
  override get message(): string {
    return `${this.server} expired the session; ${this.method} was not re-sent`
  }
}

/**
 * A response stream ended before the response arrived and could not be resumed.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResponseStreamClosedError extends TaggedError<ResponseStreamClosedError>()("ResponseStreamClosedError", {
  server: Schema.String,
  method: Schema.String,
  message: Schema.String
}) {}

/**
 * The server's HTTP reply to a request ended without that request's response: an empty JSON
 * body, a response for another id, only notifications, or (2026-07-28) a reply of another kind.
 * `message` says what arrived (server text escaped and bounded). Never retried: the server did
 * answer, so the request may have had effects.
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingResponseError extends TaggedError<MissingResponseError>()("MissingResponseError", {
  server: Schema.String,
  method: Schema.String,
  message: Schema.String
}) {}

/**
 * The server answered with a JSON-RPC error. `code`, `message` and `data` are the server's.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerError extends TaggedError<ServerError>()("ServerError", {
  server: Schema.String,
  method: Schema.String,
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {}

/**
 * The server's answer could not be understood: a result that does not match the method's
 * schema.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidResponseError extends TaggedError<InvalidResponseError>()("InvalidResponseError", {
  server: Schema.String,
  method: Schema.String,
  message: Schema.String
}) {}

/**
 * The server chose a protocol revision the client cannot speak; the client disconnected. When
 * the server named no revision at all (`protocol: "modern"` against a server of the handshake
 * era), `answered` says what it did answer (an error, an HTTP status, silence; server text
 * escaped) and `offered` the revisions the client offered.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedProtocolVersionError
  extends TaggedError<UnsupportedProtocolVersionError>()("UnsupportedProtocolVersionError", {
    server: Schema.String,
    requested: Schema.String,
    supported: Schema.Array(Schema.String),
    answered: Schema.optional(Schema.String),
    offered: Schema.optional(Schema.Array(Schema.String))
  })
{
  readonly code = -32022
  override get message(): string {
    if (this.answered !== undefined) {
      return `${this.server} does not speak protocol version ${this.requested}: ${this.answered}; the client offers ${
        (this.offered ?? [this.requested]).join(", ")
      }`
    }
    return `${this.server} answered protocol version ${this.requested}; supported: ${this.supported.join(", ")}`
  }
}

/**
 * A tool's structured result broke its `outputSchema` (in `"strict"` mode), its `outputSchema`
 * could not be used to check it (in `"strict"` mode; `unusable` says why), a schema declares a
 * JSON Schema dialect the client cannot read, or (before sending) a tool's `inputSchema` does.
 *
 * @since 0.1.0
 * @category errors
 */
export class ValidationError extends TaggedError<ValidationError>()("ValidationError", {
  server: Schema.String,
  tool: Schema.String,
  message: Schema.String,
  errors: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))),
  /**
   * Why the schema itself could not be used (strict mode), e.g. `$ref to https://… points outside
   * the schema (…nothing is fetched)`, `the schema has more than 10000 subschemas`, or the time
   * budget. Absent when a usable schema rejected the content.
   */
  unusable: Schema.optional(Schema.String)
}) {}

/**
 * A 2026-07-28 server rejected the request's headers (-32020), still after the client
 * re-fetched `tools/list` and retried once with recomputed `Mcp-Param-*` headers.
 *
 * @since 0.1.0
 * @category errors
 */
export class HeaderMismatchError extends TaggedError<HeaderMismatchError>()("HeaderMismatchError", {
  server: Schema.String,
  method: Schema.String,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {
  readonly code = -32020
}

/**
 * A 2026-07-28 server needs a client capability the request did not declare (-32021).
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingRequiredClientCapabilityError
  extends TaggedError<MissingRequiredClientCapabilityError>()("MissingRequiredClientCapabilityError", {
    server: Schema.String,
    method: Schema.String,
    message: Schema.String,
    requiredCapabilities: Schema.Unknown
  })
{
  readonly code = -32021
}

/**
 * A multi-round-trip request (`input_required`) the client could not finish by itself: more
 * than 10 rounds, an input request it cannot serve, or a malformed one. `resumable` says whether
 * `resumeInputRequired(error, inputResponses)` can continue it; `params` are the original
 * parameters, `requestState` is the server's opaque state, echoed as is.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputRequiredError extends TaggedError<InputRequiredError>()("InputRequiredError", {
  server: Schema.String,
  method: Schema.String,
  params: Schema.Unknown,
  inputRequests: Schema.Unknown,
  requestState: Schema.optional(Schema.String),
  resumable: Schema.Boolean,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.method} on ${this.server} needs input the client could not provide: ${this.reason}`
  }
}

/**
 * The server gave this task's id to a new task: the handle named a task that no longer exists
 * there, so nothing was sent on its behalf (a replacement is never reached through an old handle).
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskReplacedError extends TaggedError<TaskReplacedError>()("TaskReplacedError", {
  server: Schema.String,
  taskId: Schema.String
}) {
  override get message(): string {
    return `task ${this.taskId} on ${this.server} was replaced by a new task with the same id`
  }
}

/**
 * Authorization failed: the server refused the credentials and no flow could fix it, or a
 * flow failed (discovery, registration, token exchange). `reason` says which.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthError extends TaggedError<AuthError>()("AuthError", {
  server: Schema.String,
  reason: Schema.String,
  message: Schema.String,
  status: Schema.optional(Schema.Number)
}) {}

/**
 * The server needs a scope the token lacks (403 `insufficient_scope`) and re-authorization
 * did not obtain it.
 *
 * @since 0.1.0
 * @category errors
 */
export class InsufficientScopeError extends TaggedError<InsufficientScopeError>()("InsufficientScopeError", {
  server: Schema.String,
  scope: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${this.server} needs scope ${this.scope ?? "(unspecified)"}${
      this.description === undefined ? "" : `: ${this.description}`
    }`
  }
}

/**
 * The user must authorize in a browser and this host cannot run that flow: open
 * `authorizationUrl`, then retry.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationRequiredError
  extends TaggedError<AuthorizationRequiredError>()("AuthorizationRequiredError", {
    server: Schema.String,
    authorizationUrl: Schema.String
  })
{
  override get message(): string {
    return `${this.server} needs authorization: open ${this.authorizationUrl}`
  }
}

/**
 * The server did not declare the capability the method needs, so nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class CapabilityError extends TaggedError<CapabilityError>()("CapabilityError", {
  server: Schema.String,
  capability: Schema.String,
  method: Schema.String
}) {
  override get message(): string {
    return `${this.server} does not declare the "${this.capability}" capability needed by ${this.method}`
  }
}

/**
 * No connected server offers a tool of that name.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolNotFoundError extends TaggedError<ToolNotFoundError>()("ToolNotFoundError", {
  name: Schema.String,
  server: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return this.server === undefined
      ? `no server offers a tool named "${this.name}"`
      : `server ${this.server} offers no tool named "${this.name}"`
  }
}

/**
 * A call refused by strict drift pinning (`ServerConfig.pin`): the tool's definition no longer
 * matches its pin (`changed`, with the `fields` that changed when the pin knows them), the tool
 * is not pinned (`added`), or a pinned tool is no longer listed (`removed`). Nothing was sent.
 *
 * @since 0.2.0
 * @category errors
 */
export class ToolPinMismatchError extends TaggedError<ToolPinMismatchError>()("ToolPinMismatchError", {
  server: Schema.String,
  tool: Schema.String,
  kind: Schema.Literal("changed", "added", "removed"),
  fields: Schema.optional(Schema.Array(Schema.String))
}) {
  override get message(): string {
    return `server ${this.server}: ${describeDrift(this)}; refused (strict pinning)`
  }
}

/**
 * A bare tool name is offered by more than one server; pass `server` to choose.
 *
 * @since 0.1.0
 * @category errors
 */
export class AmbiguousToolError extends TaggedError<AmbiguousToolError>()("AmbiguousToolError", {
  name: Schema.String,
  servers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `tool "${this.name}" is offered by several servers (${this.servers.join(", ")}); pass { server }`
  }
}

/**
 * Two tools would be shown under one name (after each server's `toolPrefix` and `toolNames`) and
 * the client's `toolCollisions` is `"error"`: `servers` names the server of each (the same server
 * twice when a rename lands on one of its own names). Fix it with a prefix or a rename, or choose
 * `"first"` or `"prefix"`.
 *
 * @since 0.2.0
 * @category errors
 */
export class ToolNameCollisionError extends TaggedError<ToolNameCollisionError>()("ToolNameCollisionError", {
  name: Schema.String,
  servers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `servers ${this.servers.join(" and ")} both offer a tool named "${this.name}" (toolCollisions: "error"); ` +
      `give a server a toolPrefix or rename the tool in its toolNames`
  }
}

/**
 * A bare id (a task id) names no server and several are configured: the client does not
 * guess; pass `server`.
 *
 * @since 0.1.0
 * @category errors
 */
export class AmbiguousServerError extends TaggedError<AmbiguousServerError>()("AmbiguousServerError", {
  subject: Schema.String,
  servers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `${this.subject} could be on any of ${this.servers.join(", ")}; pass { server }`
  }
}

/**
 * No configured server has that name.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerNotFoundError extends TaggedError<ServerNotFoundError>()("ServerNotFoundError", {
  server: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `no server named "${this.server}" (known: ${this.known.join(", ") || "none"})`
  }
}

/**
 * A server configuration or a configuration file is invalid.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigError extends TaggedError<ConfigError>()("ConfigError", {
  message: Schema.String
}) {}

/**
 * Errors of the wire: the request may or may not have reached the server.
 *
 * @since 0.1.0
 * @category models
 */
export type TransportError =
  | AuthError
  | InsufficientScopeError
  | AuthorizationRequiredError
  | ConnectionError
  | RequestTimeoutError
  | ResponseTooLargeError
  | TransientServerError
  | SessionExpiredError
  | ResponseStreamClosedError
  | MissingResponseError

/**
 * Everything a request to a server can fail with once the connection is up.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestError = TransportError | ServerError | InvalidResponseError

/**
 * What opening a connection (process start and handshake) can fail with.
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectError =
  | RequestError
  | UnsupportedProtocolVersionError
  | MissingRequiredClientCapabilityError
  | HeaderMismatchError

const all = [
  ValidationError,
  AuthError,
  InsufficientScopeError,
  AuthorizationRequiredError,
  HeaderMismatchError,
  MissingRequiredClientCapabilityError,
  InputRequiredError,
  TaskReplacedError,
  ConnectionError,
  RequestTimeoutError,
  ResponseTooLargeError,
  TransientServerError,
  SessionExpiredError,
  ResponseStreamClosedError,
  MissingResponseError,
  ServerError,
  InvalidResponseError,
  UnsupportedProtocolVersionError,
  CapabilityError,
  ToolNotFoundError,
  ToolPinMismatchError,
  AmbiguousToolError,
  ToolNameCollisionError,
  AmbiguousServerError,
  ServerNotFoundError,
  ConfigError
] as const

/**
 * Every error of this package.
 *
 * @since 0.1.0
 * @category models
 * @useDeclaredType
 */
export type McpError = InstanceType<typeof all[number]>

const tags = new Set<string>(all.map((error) => error._tag))

/**
 * True for any error this library produces.
 *
 * @since 0.1.0
 * @category guards
 */
export const isMcpError = (u: unknown): u is McpError =>
  Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && tags.has(u._tag)

// Groups: what a caller catches by kind. Every class is placed (or deliberately left out) in
// test/ErrorGroups.test.ts, and docs/errors.md lists each group's tags.

/**
 * Errors worth a retry: the request may not have reached the server or may not have run, and
 * the next attempt can succeed (a new connection, a new session, a server past its overload).
 * A `tools/call` that failed so may still have run: retry it only when it is safe to repeat.
 *
 * @since 0.1.0
 * @category groups
 */
export type TransientError =
  | ConnectionError
  | RequestTimeoutError
  | TransientServerError
  | SessionExpiredError
  | ResponseStreamClosedError

/**
 * The server answered and refused: a JSON-RPC error, an HTTP 5xx (`TransientServerError` is
 * also transient), or a 2026-07-28 protocol rejection (-32020, -32021).
 *
 * @since 0.1.0
 * @category groups
 */
export type ServerRejectedError =
  | ServerError
  | TransientServerError
  | HeaderMismatchError
  | MissingRequiredClientCapabilityError

/**
 * The connection, the session or the wire failed: nothing the server decided about the request.
 *
 * @since 0.1.0
 * @category groups
 */
export type ConnectionProblem =
  | ConnectionError
  | RequestTimeoutError
  | ResponseTooLargeError
  | SessionExpiredError
  | ResponseStreamClosedError
  | MissingResponseError
  | UnsupportedProtocolVersionError

/**
 * Authorization failed or needs the user.
 *
 * @since 0.1.0
 * @category groups
 */
export type AuthProblem = AuthError | InsufficientScopeError | AuthorizationRequiredError

/**
 * A value broke its schema: a tool's output (strict mode) or an unreadable schema, or a server
 * result that is not what the method (or the caller's `schema`) expects.
 *
 * @since 0.1.0
 * @category groups
 */
export type ValidationProblem = ValidationError | InvalidResponseError

/**
 * The tags of each group, for code that switches on `_tag`.
 *
 * @since 0.1.0
 * @category groups
 */
export const groups: {
  readonly transient: ReadonlyArray<TransientError["_tag"]>
  readonly serverRejected: ReadonlyArray<ServerRejectedError["_tag"]>
  readonly connection: ReadonlyArray<ConnectionProblem["_tag"]>
  readonly auth: ReadonlyArray<AuthProblem["_tag"]>
  readonly validation: ReadonlyArray<ValidationProblem["_tag"]>
} = {
  transient: [
    "ConnectionError",
    "RequestTimeoutError",
    "TransientServerError",
    "SessionExpiredError",
    "ResponseStreamClosedError"
  ],
  serverRejected: [
    "ServerError",
    "TransientServerError",
    "HeaderMismatchError",
    "MissingRequiredClientCapabilityError"
  ],
  connection: [
    "ConnectionError",
    "RequestTimeoutError",
    "ResponseTooLargeError",
    "SessionExpiredError",
    "ResponseStreamClosedError",
    "MissingResponseError",
    "UnsupportedProtocolVersionError"
  ],
  auth: ["AuthError", "InsufficientScopeError", "AuthorizationRequiredError"],
  validation: ["ValidationError", "InvalidResponseError"]
}

const tagged = <E>(tags: ReadonlyArray<string>): (u: unknown) => u is E => {
  const set = new Set(tags)
  return (u: unknown): u is E => Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && set.has(u._tag)
}

const transientTag: (u: unknown) => u is TransientError = tagged(groups.transient)

/**
 * A spawn that failed because the command does not exist or may not run: Node's errno error
 * (`code`), or the platform's `SystemError` made from it (`reason`); both keep the `syscall`.
 */
const isMissingCommand = (cause: unknown): boolean =>
  Predicate.hasProperty(cause, "syscall") && typeof cause.syscall === "string" && cause.syscall.startsWith("spawn") &&
  ((Predicate.hasProperty(cause, "code") && (cause.code === "ENOENT" || cause.code === "EACCES")) ||
    (Predicate.hasProperty(cause, "reason") && (cause.reason === "NotFound" || cause.reason === "PermissionDenied")))

/**
 * True for an error worth a retry (`TransientError`):
 * `Effect.retry(call, { schedule, while: McpError.isTransient })`,
 * `Effect.catchIf(call, McpError.isTransient, …)`. Not for a `ConnectionError` of a server
 * process whose command does not exist or may not run (`ENOENT`, `EACCES`): every attempt would
 * fail the same way.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransient = (u: unknown): u is TransientError =>
  transientTag(u) && !(u._tag === "ConnectionError" && isMissingCommand(u.cause))

/**
 * True for an error the server answered with (`ServerRejectedError`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isServerRejected: (u: unknown) => u is ServerRejectedError = tagged(groups.serverRejected)

/**
 * True for a failure of the connection, the session or the wire (`ConnectionProblem`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isConnectionProblem: (u: unknown) => u is ConnectionProblem = tagged(groups.connection)

/**
 * True for an authorization failure (`AuthProblem`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isAuthProblem: (u: unknown) => u is AuthProblem = tagged(groups.auth)

/**
 * True for a value that broke its schema (`ValidationProblem`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isValidationProblem: (u: unknown) => u is ValidationProblem = tagged(groups.validation)

/**
 * Recovers from the errors of a group and leaves the others in the error channel, e.g.
 * `call.pipe(McpError.catchGroup(McpError.isTransient, () => Effect.succeed(fallback)))`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const catchGroup: {
  <G, A2, E2, R2>(
    guard: (u: unknown) => u is G,
    f: (error: G) => Effect.Effect<A2, E2, R2>
  ): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A | A2, Exclude<E, G> | E2, R | R2>
  <A, E, R, G, A2, E2, R2>(
    self: Effect.Effect<A, E, R>,
    guard: (u: unknown) => u is G,
    f: (error: G) => Effect.Effect<A2, E2, R2>
  ): Effect.Effect<A | A2, Exclude<E, G> | E2, R | R2>
} = dual(
  3,
  <A, E, R, G, A2, E2, R2>(
    self: Effect.Effect<A, E, R>,
    guard: (u: unknown) => u is G,
    f: (error: G) => Effect.Effect<A2, E2, R2>
  ): Effect.Effect<A | A2, Exclude<E, G> | E2, R | R2> =>
    Effect.catchAll(
      self,
      (error): Effect.Effect<A2, Exclude<E, G> | E2, R2> =>
        guard(error) ? f(error) : Effect.fail(error as Exclude<E, G>)
    )
)
