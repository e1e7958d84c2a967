/**
 * What the HTTP transports consult for credentials: headers for every request (POSTs, GET
 * streams, resumption, DELETE) and the handling of 401/403 challenges. Static headers, OAuth
 * 2.1 and anything else a host needs are implementations of this one interface.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { AuthError, AuthorizationRequiredError, InsufficientScopeError } from "./McpError.js"

/**
 * A 401 or 403 answer of the protected server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Challenge {
  /** The URL that was refused (the MCP endpoint). */
  readonly url: string
  readonly status: 401 | 403
  /** The `WWW-Authenticate` header, if any. */
  readonly wwwAuthenticate: string | undefined
  /** The `DPoP-Nonce` header, if any: the nonce a DPoP proof must carry (RFC 9449 §9). */
  readonly dpopNonce?: string | undefined
}

/**
 * Every way authorization can fail.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthFailure = AuthError | InsufficientScopeError | AuthorizationRequiredError

/**
 * @since 0.1.0
 * @category models
 */
export interface McpAuth {
  /**
   * Headers for a request to `url` (typically `Authorization`); may refresh a token first.
   * `method` is the request's HTTP method (default `POST`), for credentials bound to the request
   * (a DPoP proof names its method and URL).
   */
  readonly headers: (url: string, method?: string) => Effect.Effect<Record<string, string>, AuthFailure>
  /**
   * Handles a challenge (runs an authorization flow, steps up a scope, takes a DPoP nonce).
   * `true`: send the request again, once, with fresh headers (a challenge carrying a DPoP nonce
   * has a retry of its own); `false`: give up (the request fails with `AuthError`).
   */
  readonly challenge: (challenge: Challenge) => Effect.Effect<boolean, AuthFailure>
}

/**
 * Fixed headers, no challenge handling: what `headers: { Authorization }` does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromHeaders = (headers: Record<string, string>): McpAuth => ({
  headers: () => Effect.succeed(headers),
  challenge: () => Effect.succeed(false)
})
