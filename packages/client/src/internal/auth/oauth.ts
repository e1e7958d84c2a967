/**
 * `OAuth.make`: the `McpAuth` of OAuth 2.1 — headers for each request (refreshing a token about
 * to expire, a DPoP proof per request), the handling of 401/403 challenges (discovery, step-up,
 * refresh, a new flow) and `complete` — wired from its parts: `oauthCore.ts` (settings, state,
 * storage, DPoP key), `discovery.ts`, `clients.ts`, `grants.ts` (grants without a user) and
 * `authorizationCode.ts`. MCP's policy comes from `policy.ts`, DPoP proofs from `dpop.ts`.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { AuthFailure, Challenge } from "../../McpAuth.js"
import type { AuthError } from "../../McpError.js"
import { InsufficientScopeError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import * as Defaults from "../defaults.js"
import * as AuthorizationCode from "./authorizationCode.js"
import * as Clients from "./clients.js"
import * as Discovery from "./discovery.js"
import * as dpop from "./dpop.js"
import * as Grants from "./grants.js"
import * as OAuthCore from "./oauthCore.js"
import * as policy from "./policy.js"
import type { StoredToken } from "./tokens.js"
import { stringList } from "./tokens.js"

/** @internal */
export const make = (options: OAuth.Options): Effect.Effect<OAuth.OAuthClient, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const core = yield* OAuthCore.make(options)
    const { attempt, proofKey, server, serverUrl, state, tokens } = core
    const discoverer = Discovery.make(core)
    const grants = Grants.make(core, discoverer)
    const code = yield* AuthorizationCode.make(core, discoverer, Clients.make(core))
    const maxScopeAttempts = options.maxScopeAttempts ?? Defaults.MAX_SCOPE_ATTEMPTS
    // One flow or refresh at a time: concurrent 401s share the first flow's token.
    const lock = yield* Effect.makeSemaphore(1)
    /** The nonce the MCP server asked proofs to carry (RFC 9449 §9), if any. */
    const resourceNonce = yield* Ref.make<string | undefined>(undefined)

    const refreshSkew = options.refreshSkew === undefined
      ? Defaults.TOKEN_REFRESH_SKEW_MS
      : Duration.toMillis(options.refreshSkew)

    /**
     * A new token for `stale` from its refresh token — once for every client sharing the storage:
     * under the storage's lock, the storage is read again, and a token another client (another
     * process) obtained meanwhile is used instead. A refresh token the authorization server
     * refuses for good (`invalid_grant`) is retired with its token, so the next challenge starts
     * a new flow instead of trying it again.
     */
    const refreshShared = (stale: StoredToken): Effect.Effect<StoredToken, AuthError> =>
      tokens.exclusive(Effect.gen(function*() {
        const latest = yield* tokens.load
        if (latest === undefined) return yield* core.fail("refresh", "the token was removed meanwhile")
        if (latest.accessToken !== stale.accessToken) return latest
        if (stale.refreshToken === undefined) return stale
        return yield* code.refresh(stale).pipe(
          Effect.tapBoth({
            onFailure: (e) =>
              Effect.zipRight(
                Effect.logDebug(`${server}: token refresh failed (${e.reason}: ${e.message})`),
                e.reason === "invalid_grant" ? tokens.retire(stale) : Effect.void
              ),
            onSuccess: () => Effect.logDebug(`${server}: token refreshed`)
          })
        )
      }))

    /** Obtains a new token from the resource's current authorization server. */
    const obtain = (discovery: OAuthCore.Discovery, challengeScope: string | undefined, stepUp: boolean) =>
      Effect.gen(function*() {
        yield* tokens.checkStorage
        if (options.grant !== undefined) return yield* grants.grantFlow(options.grant, discovery, challengeScope)
        const s = yield* Ref.get(state)
        const token = yield* tokens.load
        const previous = policy.scopeUnion(
          s.requested.get(discovery.as.issuer) ?? [],
          token !== undefined && token.issuer === discovery.as.issuer ? token.scopes : []
        )
        const scopes = policy.selectScopes({
          challengeScope,
          configuredScopes: policy.scopeList(options.scope),
          resourceScopes: discovery.resourceScopes,
          authorizationServerScopes: stringList(discovery.as.scopes_supported),
          previous: stepUp ? previous : [],
          offlineAccess: options.offlineAccess ?? true
        })
        return yield* code.flow(discovery, scopes)
      })

    const sameOrigin = (url: string): boolean => {
      try {
        return new URL(url).origin === serverUrl.origin
      } catch {
        return false
      }
    }

    const headers = (url: string, method = "POST"): Effect.Effect<Record<string, string>, AuthFailure> =>
      Effect.gen(function*() {
        // Credentials never leave the MCP server's origin.
        if (!sameOrigin(url)) return {}
        let token = yield* tokens.load
        if (token === undefined) return {}
        const now = yield* Clock.currentTimeMillis
        if (token.expiresAt !== undefined && now >= token.expiresAt - refreshSkew) {
          const stale = token
          token = yield* lock.withPermits(1)(
            Effect.orElseSucceed(refreshShared(stale), () => stale)
          )
          if (token.expiresAt !== undefined && now >= token.expiresAt) {
            // Expired and not refreshed: send nothing and let the server's challenge start a flow.
            // Unusable for good (no refresh token) it is retired; a refresh token refused for
            // good was retired by the refresh; one that failed otherwise is kept for a later try.
            if (token.refreshToken === undefined) yield* tokens.retire(token)
            return {}
          }
        }
        if (token.tokenType === "Bearer" || proofKey === undefined) {
          return { Authorization: `Bearer ${token.accessToken}` }
        }
        // A DPoP token goes with a proof of its own for every request (RFC 9449 §7.1).
        const key = yield* proofKey
        const accessToken = token.accessToken
        const nonce = yield* Ref.get(resourceNonce)
        const iat = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const proof = yield* attempt("dpop", () => dpop.proof(key, { htm: method, url, iat, accessToken, nonce }))
        return { Authorization: `DPoP ${accessToken}`, DPoP: proof }
      })

    const challenge = (c: Challenge): Effect.Effect<boolean, AuthFailure> =>
      Effect.gen(function*() {
        const bearer = policy.parseBearerChallenge(c.wwwAuthenticate)
        let parsed = bearer
        if (proofKey !== undefined) {
          // A server may send a nonce with any answer (RFC 9449 §9); proofs carry the latest.
          const nonce = c.dpopNonce
          const fresh = nonce !== undefined && policy.isDpopNonce(nonce) && sameOrigin(c.url)
          if (fresh) yield* Ref.set(resourceNonce, nonce)
          const scheme = policy.parseChallenge(c.wwwAuthenticate, "dpop")
          // Only the nonce was missing or stale: the request goes again with it.
          if (scheme.error === "use_dpop_nonce") return c.status === 401 && fresh
          // A DPoP resource may challenge with that scheme alone (RFC 9449 §7.1).
          parsed = {
            resourceMetadata: scheme.resourceMetadata ?? bearer.resourceMetadata,
            scope: scheme.scope ?? bearer.scope,
            error: scheme.error ?? bearer.error,
            errorDescription: scheme.errorDescription ?? bearer.errorDescription
          }
        }
        if (c.status === 403 && parsed.error !== "insufficient_scope") return false
        const before = yield* tokens.load
        return yield* lock.withPermits(1)(
          Effect.gen(function*() {
            const latest = yield* tokens.load
            // Another request already obtained a new token while this one waited.
            if (c.status === 401 && latest !== undefined && latest.accessToken !== before?.accessToken) return true
            const discovery = yield* discoverer.discover(parsed.resourceMetadata)
            if (c.status === 403) {
              const issuer = discovery.as.issuer
              const s = yield* Ref.get(state)
              const wanted = policy.scopeUnion(
                s.requested.get(issuer) ?? [],
                latest?.issuer === issuer ? latest.scopes : [],
                policy.scopeList(parsed.scope)
              )
              const key = `${issuer} ${[...wanted].sort().join(" ")}`
              const attempts = s.stepUps.get(key) ?? 0
              if (attempts >= maxScopeAttempts) {
                return yield* Effect.fail(
                  new InsufficientScopeError({ server, scope: parsed.scope, description: parsed.errorDescription })
                )
              }
              yield* Ref.update(state, (st) => ({ ...st, stepUps: new Map(st.stepUps).set(key, attempts + 1) }))
              yield* obtain(discovery, parsed.scope, true)
              return true
            }
            const current = yield* tokens.load
            // The authorization server changed back to one whose token was kept: try that token.
            if (
              current !== undefined && current.issuer === discovery.as.issuer &&
              current.accessToken !== before?.accessToken
            ) return true
            // The token the server refused, if it came from the current authorization server.
            const refused = current !== undefined && current.issuer === discovery.as.issuer ? current : undefined
            // A refused token that can be refreshed is refreshed before the user is asked again.
            if (options.grant === undefined && refused?.refreshToken !== undefined) {
              const refreshed = yield* Effect.option(refreshShared(refused))
              if (Option.isSome(refreshed) && refreshed.value.accessToken !== refused.accessToken) return true
            }
            // A new token replaces the refused one in both slots; if none comes, it is retired —
            // unless its refresh token may still work (the refresh failed for a while, not for
            // good: `invalid_grant` retired it already), so an outage costs no sign-in.
            const keep = options.grant === undefined && refused?.refreshToken !== undefined
            yield* obtain(discovery, parsed.scope, latest !== undefined).pipe(
              Effect.tapError(() => refused === undefined || keep ? Effect.void : tokens.retire(refused))
            )
            return true
          })
        )
      })

    const complete = (callback: URL): Effect.Effect<void, AuthFailure> =>
      lock.withPermits(1)(code.completePending(callback))

    return { headers, challenge, complete } satisfies OAuth.OAuthClient
  })
