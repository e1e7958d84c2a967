/**
 * An OAuth-protected MCP server on loopback, for OAuth tests: a gateway that checks Bearer
 * tokens in front of a {@link FakeHttpServer} (dual era), and a local authorization server
 * (metadata, dynamic registration, an authorization endpoint that approves at once, a token
 * endpoint with refresh). `tools/call` needs the scope `mcp:write`: a token without it gets
 * `403 insufficient_scope`. Tokens live 30 seconds, inside a client's refresh margin, so every
 * later request refreshes first.
 *
 * @example
 * ```ts
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
 * import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
 * import * as Effect from "effect/Effect"
 *
 * const test = Effect.gen(function*() {
 *   const server = yield* FakeOAuthServer.make
 *   // A headless browser: the user approves at once.
 *   const interactive = NodeOAuthBrowser.make({ openBrowser: server.approve })
 *   return yield* OAuth.make({ serverUrl: server.mcpUrl, interactive })
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/fakeOAuthServer.js"

/**
 * One request to the token endpoint.
 *
 * @since 0.1.0
 * @category models
 */
export interface Grant {
  readonly grant: string | null
  readonly scope: string | null
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FakeOAuthServer {
  /** The protected MCP endpoint (`…/mcp`). */
  readonly mcpUrl: string
  /** The authorization server's issuer. */
  readonly issuer: string
  /** Every token-endpoint request, in order. */
  readonly grants: ReadonlyArray<Grant>
  /** The tokens the gateway accepts, with their scopes; a test may add its own. */
  readonly tokens: Map<string, { readonly scopes: ReadonlyArray<string> }>
  /**
   * What a browser whose user approves does with an authorization URL: follow it, then request
   * the callback it redirects to. Returns at once (the callback arrives in the background).
   */
  readonly approve: (authorizationUrl: string) => void
  /**
   * Every secret that passed through the authorization server (codes, PKCE verifiers, client
   * secrets, access and refresh tokens), for tests that check none leaks.
   */
  readonly secrets: ReadonlySet<string>
  /** Revokes every refresh token issued so far: refreshing with one gets `invalid_grant`. */
  readonly revokeRefreshTokens: () => void
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Lifetime of access tokens in seconds (default 30), or a function of the token's number
   * (1 for the first issued); the gateway refuses expired tokens.
   */
  readonly expiresIn?: number | ((issued: number) => number) | undefined
  /**
   * Refresh tokens are single use (default false): a refresh revokes the one it used, so a
   * second refresh with it gets `invalid_grant`.
   */
  readonly rotateRefreshTokens?: boolean | undefined
  /**
   * Serve pages of other origins (default false): the authorization server and the MCP gateway
   * answer CORS preflights, echo the page's `Origin` and expose `WWW-Authenticate` and the other
   * headers a page must read (docs/browser.md), as a server a browser client talks to must.
   */
  readonly cors?: boolean | undefined
}

/**
 * Starts the gateway and the authorization server on free loopback ports; the scope stops them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<FakeOAuthServer, never, Scope.Scope> = internal.make({})

/**
 * {@link make} with token lifetimes and refresh token rotation of the test's choice.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith: (options: Options) => Effect.Effect<FakeOAuthServer, never, Scope.Scope> = internal.make
