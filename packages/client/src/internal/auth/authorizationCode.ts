/**
 * The authorization code grant with PKCE S256 (and RFC 8707 resource, RFC 9207 issuer, RFC 9449
 * `dpop_jkt`): the authorization URL, the interactive step, the callback checked against its
 * request record and the code redeemed; a request the host completes later (`complete`); and
 * the refresh of a token it issued.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as oauth from "oauth4webapi"
import type { AuthFailure } from "../../McpAuth.js"
import { AuthError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import type { Clients } from "./clients.js"
import type { Discoverer } from "./discovery.js"
import { nonInteractive } from "./eager.js"
import type { Core, Discovery } from "./oauthCore.js"
import { describeError } from "./oauthCore.js"
import type { Pending } from "./pending.js"
import * as PendingSlot from "./pending.js"
import * as policy from "./policy.js"
import type { StoredToken } from "./tokens.js"
import * as Tokens from "./tokens.js"
import { stringList } from "./tokens.js"

/** @internal */
export interface AuthorizationCode {
  /** Sends the user to authorize `scopes` and redeems the code the callback brings. */
  readonly flow: (discovery: Discovery, scopes: ReadonlyArray<string>) => Effect.Effect<StoredToken, AuthFailure>
  /** Redeems the callback of the request left waiting by `AuthorizationRequiredError`. */
  readonly completePending: (callback: URL) => Effect.Effect<void, AuthError>
  /** A new token for `token` from its refresh token, at the resource's current authorization server. */
  readonly refresh: (token: StoredToken) => Effect.Effect<StoredToken, AuthError>
}

/** @internal */
export const make = (core: Core, discoverer: Discoverer, clients: Clients): Effect.Effect<AuthorizationCode> =>
  Effect.gen(function*() {
    const { dpopFor, fail, options, server, tokenRequest } = core
    const redirectUri = core.redirectUri
    const authorize = options.authorize ?? nonInteractive(server)

    /**
     * The authorization request waiting for `complete`: after `AuthorizationRequiredError`, or —
     * kept in `pendingStorage` before the step — after a page that navigated away came back.
     */
    const slot = yield* PendingSlot.make(server, options.pendingStorage)

    const flow = (discovery: Discovery, scopes: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const as = discovery.as
        const methods = stringList(as.code_challenge_methods_supported)
        if (methods === undefined || !methods.includes("S256")) {
          return yield* fail("policy", `${as.issuer} does not support PKCE S256`)
        }
        if (typeof as.authorization_endpoint !== "string") {
          return yield* fail("discovery", `${as.issuer} has no authorization_endpoint`)
        }
        // Checked before the user is sent anywhere.
        const key = yield* dpopFor(as)
        // The interactive step's resources (a callback server) live as long as this flow.
        const step: OAuth.InteractiveStep = options.interactive === undefined
          ? { redirectUri, authorize }
          : yield* options.interactive
        const configuredRedirect = policy.checkRedirectUri(step.redirectUri)
        if (configuredRedirect !== undefined) return yield* fail("policy", configuredRedirect)
        const client = yield* clients.clientFor(discovery, scopes, step.redirectUri)
        const redirect = policy.redirectUriFor(client.redirectUri, step.redirectUri)
        // One request record: issuer, verifier, state, client and redirect URI travel together.
        const verifier = oauth.generateRandomCodeVerifier()
        const request = {
          issuer: as.issuer,
          verifier,
          state: oauth.generateRandomState(),
          clientId: client.clientId,
          redirectUri: redirect
        }
        const challenge = yield* Effect.promise(() => oauth.calculatePKCECodeChallenge(verifier))
        const url = policy.authorizationUrl(as.authorization_endpoint, [
          ["response_type", "code"],
          ["client_id", request.clientId],
          ["redirect_uri", request.redirectUri],
          ...(scopes.length === 0 ? [] : [["scope", scopes.join(" ")] as const]),
          ["state", request.state],
          ["code_challenge", challenge],
          ["code_challenge_method", "S256"],
          ["resource", discovery.resource],
          // Binds the code to the DPoP key (RFC 9449 §10).
          ...(key === undefined ? [] : [["dpop_jkt", key.jkt] as const])
        ])
        yield* Ref.update(core.state, (s) => ({ ...s, requested: new Map(s.requested).set(as.issuer, scopes) }))
        const pending: Pending = { request, client, discovery, scopes }
        // A step that leaves the page (a full-page redirect) finds the request kept already.
        if (slot.durable) yield* slot.keep(pending)
        const callback = yield* step.authorize(url).pipe(
          // A host that cannot run the step itself completes it later with `complete(callback)`.
          Effect.tapError((e) =>
            e._tag === "AuthorizationRequiredError" ? (slot.durable ? Effect.void : slot.keep(pending)) : slot.drop
          )
        )
        if (slot.durable) yield* slot.drop
        return yield* redeem(pending, callback)
      }).pipe(Effect.scoped)

    /** Validates a callback against its request record, then redeems the code. */
    const redeem = ({ client, discovery, request, scopes }: Pending, callback: URL) =>
      Effect.gen(function*() {
        const as = discovery.as
        const repeated = policy.repeatedParameter(callback)
        if (repeated !== undefined) {
          return yield* fail("authorization", `the authorization response repeats the parameter ${repeated}`)
        }
        const issRefused = policy.checkIss({
          recordedIssuer: request.issuer,
          issParameterSupported: as.authorization_response_iss_parameter_supported === true,
          iss: callback.searchParams.get("iss") ?? undefined
        })
        // On an issuer mismatch the error fields are neither acted on nor shown.
        if (issRefused !== undefined) return yield* fail("authorization", issRefused)
        const oauthClient: oauth.Client = { client_id: request.clientId }
        const params = yield* Effect.try({
          try: () => oauth.validateAuthResponse(as, oauthClient, callback, request.state),
          catch: (e) => new AuthError({ server, reason: "authorization", message: describeError(e) })
        })
        const auth = yield* clients.clientAuth(client)
        const key = yield* dpopFor(as)
        const response = yield* tokenRequest("token", key, async (proof) =>
          oauth.processAuthorizationCodeResponse(
            as,
            oauthClient,
            await oauth.authorizationCodeGrantRequest(
              as,
              oauthClient,
              auth,
              params,
              request.redirectUri,
              request.verifier,
              { ...core.oauthOptions(), ...proof, additionalParameters: { resource: discovery.resource } }
            )
          ))
        return yield* Tokens.accept(core, discovery, response, scopes, undefined, key)
      })

    const refresh = (token: StoredToken) =>
      Effect.gen(function*() {
        const discovery = yield* discoverer.current
        if (discovery.as.issuer !== token.issuer || token.refreshToken === undefined) {
          return yield* fail("refresh", "no refresh possible")
        }
        const refreshToken = token.refreshToken
        const as = discovery.as
        const client = (yield* core.tokens.loadClient(as.issuer)) ??
          (yield* clients.clientFor(discovery, token.scopes, redirectUri))
        const oauthClient: oauth.Client = { client_id: client.clientId }
        const auth = yield* clients.clientAuth(client)
        const key = yield* dpopFor(as)
        const response = yield* tokenRequest("refresh", key, async (proof) =>
          oauth.processRefreshTokenResponse(
            as,
            oauthClient,
            await oauth.refreshTokenGrantRequest(as, oauthClient, auth, refreshToken, {
              ...core.oauthOptions(),
              ...proof,
              additionalParameters: { resource: discovery.resource }
            })
          ))
        return yield* Tokens.accept(core, discovery, response, token.scopes, refreshToken, key)
      })

    const completePending = (callback: URL) =>
      Effect.gen(function*() {
        const pending = yield* slot.take(callback)
        // A client made after the page came back has discovered nothing yet.
        yield* discoverer.adopt(pending.discovery)
        yield* redeem(pending, callback)
      })

    return { flow, completePending, refresh }
  })
