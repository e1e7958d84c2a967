/**
 * A protocol era: how a connection is opened and which server capability each method needs.
 * The connection chooses one `Protocol` value when it opens; features never branch on the era.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CapabilityError, InvalidResponseError, UnsupportedProtocolVersionError } from "./McpError.js"
import type { ConnectError } from "./McpError.js"
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
}

/**
 * What the client says about itself when it opens a connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientIdentity {
  readonly clientInfo: McpSchema.Implementation
  readonly capabilities: McpSchema.ClientCapabilities
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
        capabilities: identity.capabilities,
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
