/**
 * A protocol era: how a connection is opened and which server capability each method needs.
 * The connection chooses one `Protocol` value when it opens; features never branch on the era.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as CacheHints from "./internal/cacheHints.js"
import { escapeControl } from "./internal/escape.js"
import {
  CapabilityError,
  HeaderMismatchError,
  InvalidResponseError,
  MissingRequiredClientCapabilityError,
  ServerError,
  UnsupportedProtocolVersionError
} from "./McpError.js"
import type { ConnectError, RequestError } from "./McpError.js"
import * as McpSchema from "./McpSchema.js"
import type { RpcPeer } from "./RpcPeer.js"

/**
 * What the opening exchange established.
 *
 * @since 0.1.0
 * @category models
 */
export interface Negotiated {
  readonly era: "legacy" | "modern"
  readonly protocolVersion: string
  readonly serverInfo: McpSchema.Implementation
  readonly capabilities: McpSchema.ServerCapabilities
  readonly instructions: string | undefined
  /**
   * 2026-07-28: how long (ms) the discovery is fresh, its `ttlMs` (absent: 0); once lapsed it
   * is re-fetched before the next capability check.
   */
  readonly ttlMs?: number | undefined
}

/**
 * What the client says about itself when it opens a connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientIdentity {
  readonly clientInfo: McpSchema.Implementation
  /** Declared on every 2026-07-28 request. */
  readonly capabilities: McpSchema.ClientCapabilities
  /** Declared in `initialize` (the handshake revisions spell some capabilities differently). */
  readonly legacyCapabilities?: McpSchema.ClientCapabilities | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Protocol {
  readonly era: "legacy" | "modern"
  readonly open: (
    server: string,
    peer: RpcPeer,
    identity: ClientIdentity,
    timeoutMs: number
  ) => Effect.Effect<Negotiated, ConnectError>
  /** The capability error for `method`, or `undefined` when the server may be asked. */
  readonly gate: (server: string, negotiated: Negotiated, method: string) => CapabilityError | undefined
}

/**
 * The stateless revision the client speaks with `server/discover` and per-request `_meta`.
 *
 * @since 0.1.0
 * @category constants
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28"

/**
 * Reserved `_meta` keys of 2026-07-28.
 *
 * @since 0.1.0
 * @category constants
 */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/**
 * Which era a connection speaks: `auto` probes with `server/discover` and falls back to
 * `initialize`.
 *
 * @since 0.1.0
 * @category models
 */
export type ProtocolMode = "auto" | "modern" | "legacy"

/**
 * The `_meta` every 2026-07-28 request carries.
 *
 * @since 0.1.0
 * @category modern
 */
export const requestMeta = (
  identity: ClientIdentity,
  version: string,
  logLevel?: string | undefined
): Record<string, unknown> => ({
  [MetaKey.protocolVersion]: version,
  [MetaKey.clientInfo]: identity.clientInfo,
  [MetaKey.clientCapabilities]: identity.capabilities,
  ...(logLevel === undefined ? {} : { [MetaKey.logLevel]: logLevel })
})

/**
 * Maps the JSON-RPC errors that 2026-07-28 gives a meaning to onto their typed errors.
 *
 * @since 0.1.0
 * @category modern
 */
export const modernError = <E>(error: E | ServerError): E | ServerError | ModernProtocolError => {
  if (!(error instanceof ServerError)) return error
  const data = Predicate.isRecord(error.data) ? error.data : {}
  switch (error.code) {
    case -32022:
      return new UnsupportedProtocolVersionError({
        server: error.server,
        requested: typeof data.requested === "string" ? data.requested.slice(0, 64) : MODERN_PROTOCOL_VERSION,
        supported: Array.isArray(data.supported)
          ? data.supported.filter((v): v is string => typeof v === "string").slice(0, 32)
          : []
      })
    case -32021:
      return new MissingRequiredClientCapabilityError({
        server: error.server,
        method: error.method,
        message: error.message,
        requiredCapabilities: data.requiredCapabilities
      })
    case -32020:
      return new HeaderMismatchError({
        server: error.server,
        method: error.method,
        message: error.message,
        data: error.data
      })
    default:
      return error
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type ModernProtocolError =
  | UnsupportedProtocolVersionError
  | MissingRequiredClientCapabilityError
  | HeaderMismatchError

const DiscoverResult = Schema.Struct({
  supportedVersions: Schema.Array(Schema.String),
  capabilities: McpSchema.ServerCapabilities,
  instructions: Schema.optional(Schema.String),
  serverInfo: Schema.optional(McpSchema.Implementation),
  _meta: Schema.optional(McpSchema.JsonObject)
})
const isDiscoverResult = Schema.is(DiscoverResult)
const isImplementation = Schema.is(McpSchema.Implementation)

/**
 * The HTTP headers of a 2026-07-28 request other than `Mcp-Name` and `Mcp-Param-*`.
 *
 * @since 0.1.0
 * @category modern
 */
export const modernHeaders = (method: string, version: string = MODERN_PROTOCOL_VERSION): Record<string, string> => ({
  "mcp-protocol-version": version,
  "mcp-method": method
})

// What a failed `server/discover` was answered with, for logs and errors (server text escaped).
const answerOf = (error: RequestError): string => {
  switch (error._tag) {
    case "ServerError": {
      const status = Predicate.isRecord(error.data) && typeof error.data.status === "number"
        ? error.data.status
        : undefined
      return status !== undefined && error.message === `HTTP ${status}`
        ? `HTTP ${status}`
        : `error ${error.code} ${escapeControl(JSON.stringify(error.message), 200)}`
    }
    case "RequestTimeoutError":
      return `silence (no answer within ${error.timeoutMs} ms)`
    case "TransientServerError":
      return `HTTP ${error.status}`
    default:
      return `${error._tag}: ${escapeControl(error.message, 200)}`
  }
}

/**
 * Whether an answer to `initialize` is a refusal only a 2026-07-28 server gives: a modern error
 * (`-32020`, `-32021`, or `-32022` naming 2026-07-28), where a legacy server would have
 * answered with a revision of its own.
 *
 * @since 0.2.0
 * @category eras
 */
export const refusedAsModern = (error: ConnectError): error is ServerError => {
  if (error._tag !== "ServerError") return false
  const typed = modernError(error)
  return typed._tag === "UnsupportedProtocolVersionError"
    ? typed.supported.includes(MODERN_PROTOCOL_VERSION)
    : typed._tag !== "ServerError"
}

// What to do when a probe finds no 2026-07-28 server: `reason` says what the server answered
// (server text escaped), `supported` what it named.
type OnLegacy = (reason: string, supported?: ReadonlyArray<string>) => Effect.Effect<Negotiated, ConnectError>

/**
 * Probes with `server/discover` (DIGEST §3): a `DiscoverResult` or a recognised modern error
 * means modern (`-32022` is retried once with a version from `data.supported`); anything else —
 * another error, an HTTP 400 that is not a modern error, `-32601`, silence — means legacy, and
 * `initialize` follows on the same connection. Never keyed to one error code. An `initialize`
 * refused as only a 2026-07-28 server refuses it (its `server/discover` answer came after the
 * timeout) is followed by one more probe, bounded by `timeoutMs`, which decides: modern, or
 * an `UnsupportedProtocolVersionError`. `remembered: "legacy"` (an `EraCache`'s) skips the
 * first probe.
 *
 * @since 0.1.0
 * @category eras
 */
export const detect = (
  server: string,
  peer: RpcPeer,
  identity: ClientIdentity,
  options: {
    readonly mode: ProtocolMode
    readonly discoverTimeoutMs: number
    readonly timeoutMs: number
    readonly remembered?: "modern" | "legacy" | undefined
  }
): Effect.Effect<Negotiated, ConnectError> => {
  if (options.mode === "legacy") return legacy.open(server, peer, identity, options.timeoutMs)
  const probe = (timeoutMs: number, onLegacy: OnLegacy, retried = false): Effect.Effect<Negotiated, ConnectError> =>
    peer.request("server/discover", { _meta: requestMeta(identity, MODERN_PROTOCOL_VERSION) }, {
      timeoutMs,
      hints: { modern: true, headers: modernHeaders("server/discover") }
    }).pipe(
      Effect.matchEffect({
        onSuccess: (result): Effect.Effect<Negotiated, ConnectError> => {
          if (!isDiscoverResult(result)) return onLegacy("a result that is not a DiscoverResult")
          if (!result.supportedVersions.includes(MODERN_PROTOCOL_VERSION)) {
            return result.supportedVersions.some((v) =>
                (McpSchema.LEGACY_PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(v)
              )
              ? onLegacy(
                `supportedVersions ${escapeControl(result.supportedVersions.slice(0, 8).join(", "), 200)}`,
                result.supportedVersions.slice(0, 32)
              )
              : Effect.fail(
                new UnsupportedProtocolVersionError({
                  server,
                  requested: MODERN_PROTOCOL_VERSION,
                  supported: result.supportedVersions.slice(0, 32)
                })
              )
          }
          const metaInfo = result._meta?.[MetaKey.serverInfo]
          return Effect.succeed({
            era: "modern",
            protocolVersion: MODERN_PROTOCOL_VERSION,
            serverInfo: isImplementation(metaInfo)
              ? metaInfo
              : result.serverInfo ?? { name: server, version: "unknown" },
            capabilities: result.capabilities,
            instructions: result.instructions,
            ttlMs: CacheHints.ttlOf(result)
          })
        },
        onFailure: (error): Effect.Effect<Negotiated, ConnectError> => {
          // A dead connection or a refused credential is not an era question.
          if (
            error._tag === "ConnectionError" || error._tag === "AuthError" ||
            error._tag === "InsufficientScopeError" || error._tag === "AuthorizationRequiredError"
          ) return Effect.fail(error)
          if (error._tag !== "ServerError") return onLegacy(answerOf(error))
          const typed = modernError(error)
          if (typed._tag === "UnsupportedProtocolVersionError") {
            if (typed.supported.includes(MODERN_PROTOCOL_VERSION) && !retried) return probe(timeoutMs, onLegacy, true)
            if (
              typed.supported.some((v) => (McpSchema.LEGACY_PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(v))
            ) {
              return onLegacy(
                `error -32022 naming ${escapeControl(typed.supported.slice(0, 8).join(", "), 200)}`,
                typed.supported
              )
            }
            return Effect.fail(typed)
          }
          if (typed._tag === "ServerError") return onLegacy(answerOf(typed))
          return Effect.fail(typed)
        }
      })
    )
  // The second probe waits as long as any request: the refusal said the server is 2026-07-28,
  // so no silent legacy server can cost that wait. Whatever it gets, it decides (no loop).
  const initialize = Effect.catchIf(
    legacy.open(server, peer, identity, options.timeoutMs),
    refusedAsModern,
    (refusal) => {
      const refused = `initialize was refused with ${answerOf(refusal)}`
      return Effect.zipRight(
        Effect.logDebug(`${server}: ${refused}, as only a 2026-07-28 server refuses it; asking server/discover again`),
        probe(options.timeoutMs, (reason, supported = []) =>
          Effect.fail(
            new UnsupportedProtocolVersionError({
              server,
              requested: MODERN_PROTOCOL_VERSION,
              supported,
              answered: `${refused}, then server/discover with ${reason}`,
              offered: [MODERN_PROTOCOL_VERSION, McpSchema.LEGACY_PROTOCOL_VERSIONS[0]]
            })
          ))
      )
    }
  )
  if (options.mode === "auto" && options.remembered === "legacy") return initialize
  return probe(
    options.discoverTimeoutMs,
    options.mode === "modern"
      ? (reason, supported = []) =>
        Effect.fail(
          new UnsupportedProtocolVersionError({
            server,
            requested: MODERN_PROTOCOL_VERSION,
            supported,
            answered: `server/discover was answered with ${reason}`,
            offered: [MODERN_PROTOCOL_VERSION]
          })
        )
      : (reason) =>
        Effect.zipRight(Effect.logDebug(`${server}: not a 2026-07-28 server (${reason}); using initialize`), initialize)
  )
}

/**
 * Whether a result carries a `resultType` this client understands, and which.
 *
 * @since 0.1.0
 * @category modern
 */
export const resultTypeOf = (result: unknown): "complete" | "input_required" | "invalid" => {
  if (!Predicate.isRecord(result)) return "invalid"
  const type = result.resultType
  if (type === undefined || type === "complete") return "complete"
  return type === "input_required" ? "input_required" : "invalid"
}

/**
 * The invalid-response error for a result this client cannot accept.
 *
 * @since 0.1.0
 * @category modern
 */
export const invalidResult = (server: string, method: string, result: unknown): RequestError =>
  new InvalidResponseError({
    server,
    method,
    message: Predicate.isRecord(result)
      ? `unknown resultType ${JSON.stringify(String(result.resultType)).slice(0, 64)}`
      : "the result is not an object"
  })

const decodeInitialize = Schema.decodeUnknown(McpSchema.InitializeResult, McpSchema.parseOptions)

const requiredCapability = (capabilities: McpSchema.ServerCapabilities, method: string): string | undefined => {
  switch (method) {
    case "completion/complete":
      return capabilities.completions === undefined ? "completions" : undefined
    case "logging/setLevel":
      return capabilities.logging === undefined ? "logging" : undefined
    case "resources/subscribe":
    case "resources/unsubscribe":
      return capabilities.resources?.subscribe === true ? undefined : "resources.subscribe"
    default:
      return undefined
  }
}

/**
 * The handshake era (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): `initialize` offering the
 * newest revision, accepting any of the four, then `notifications/initialized`.
 *
 * @since 0.1.0
 * @category eras
 */
export const legacy: Protocol = {
  era: "legacy",
  open: (server, peer, identity, timeoutMs) =>
    Effect.gen(function*() {
      const raw = yield* peer.request("initialize", {
        protocolVersion: McpSchema.LEGACY_PROTOCOL_VERSIONS[0],
        capabilities: identity.legacyCapabilities ?? identity.capabilities,
        clientInfo: identity.clientInfo
      }, { timeoutMs, cancellable: false })
      const result = yield* decodeInitialize(raw).pipe(
        Effect.mapError((error) =>
          new InvalidResponseError({ server, method: "initialize", message: error.message.slice(0, 500) })
        )
      )
      if (!(McpSchema.LEGACY_PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(result.protocolVersion)) {
        return yield* new UnsupportedProtocolVersionError({
          server,
          requested: result.protocolVersion.slice(0, 64),
          supported: McpSchema.LEGACY_PROTOCOL_VERSIONS
        })
      }
      yield* peer.notify("notifications/initialized")
      return {
        era: "legacy",
        protocolVersion: result.protocolVersion,
        serverInfo: result.serverInfo,
        capabilities: result.capabilities,
        instructions: result.instructions
      } satisfies Negotiated
    }),
  gate: (server, negotiated, method) => {
    const capability = requiredCapability(negotiated.capabilities, method)
    return capability === undefined ? undefined : new CapabilityError({ server, capability, method })
  }
}
