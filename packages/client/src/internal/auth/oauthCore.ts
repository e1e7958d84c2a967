/**
 * What every part of `OAuth.make` may use: the client's settings, its state (the resource's
 * discovery, scopes requested, step-up attempts), the storage (`tokens.ts`), the requests to
 * the OAuth peers (`oauthHttp.ts`) and this client's DPoP key. The parts — `discovery.ts`,
 * `clients.ts`, `grants.ts`, `authorizationCode.ts` — each take a `Core`; `oauth.ts` wires them.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as oauth from "oauth4webapi"
import { AuthError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import * as dpop from "./dpop.js"
import { storageTag } from "./eager.js"
import * as OAuthHttp from "./oauthHttp.js"
import * as policy from "./policy.js"
import type { Binding } from "./tokens.js"
import * as Tokens from "./tokens.js"
import { stringList } from "./tokens.js"

/** What discovery found for the resource. @internal */
export interface Discovery {
  /** The `resource` to send (RFC 8707), as the resource metadata publishes it. */
  readonly resource: string
  readonly resourceScopes: ReadonlyArray<string> | undefined
  readonly as: oauth.AuthorizationServer
}

/** @internal */
export interface State {
  readonly discovery: Discovery | undefined
  /** Scopes requested so far, per issuer. */
  readonly requested: ReadonlyMap<string, ReadonlyArray<string>>
  /** Step-up attempts, per issuer and scope set. */
  readonly stepUps: ReadonlyMap<string, number>
}

/** @internal */
export interface Core extends OAuthHttp.OAuthHttp {
  readonly server: string
  readonly serverUrl: URL
  readonly options: OAuth.Options
  /** The redirect URI when no interactive step names one. */
  readonly redirectUri: string
  readonly warn: (message: string) => void
  readonly state: Ref.Ref<State>
  readonly tokens: Tokens.Tokens
  /** This client's DPoP key, made at first use (an unusable key option fails that use); none without DPoP. */
  readonly proofKey: Effect.Effect<dpop.ProofKey, AuthError> | undefined
  readonly fail: (reason: string, message: string) => Effect.Effect<never, AuthError>
  /** A promise of oauth4webapi, its rejection an `AuthError` of `reason`. */
  readonly attempt: <A>(reason: string, f: () => Promise<A>) => Effect.Effect<A, AuthError>
  /**
   * This client's DPoP key for token requests to `as` (none without DPoP). The authorization
   * server must advertise DPoP with the key's algorithm: otherwise it would issue a Bearer token
   * we refuse, after the user signed in for nothing.
   */
  readonly dpopFor: (as: oauth.AuthorizationServer) => Effect.Effect<dpop.ProofKey | undefined, AuthError>
  /**
   * A token request and the processing of its answer, with a DPoP proof when `key` is given; an
   * authorization server that answers `use_dpop_nonce` gets the request once more, carrying the
   * nonce it sent (RFC 9449 §8: the handle keeps it).
   */
  readonly tokenRequest: <A>(
    reason: string,
    key: dpop.ProofKey | undefined,
    f: (proof: { readonly DPoP?: oauth.DPoPHandle }) => Promise<A>
  ) => Effect.Effect<A, AuthError>
}

/** @internal */
export const describeError = (error: unknown): string => {
  if (error instanceof oauth.ResponseBodyError) {
    return `${error.error}${
      error.error_description === undefined ? "" : `: ${error.error_description}`
    } (HTTP ${error.status})`
  }
  if (error instanceof oauth.AuthorizationResponseError) return `authorization refused: ${error.error}`
  if (error instanceof Error) return error.message
  return String(error)
}

/**
 * The authorization server refused a refresh token for good (RFC 6749 §5.2): it is dropped, and
 * the user is asked again.
 */
const refusedRefresh = (reason: string, error: unknown): boolean =>
  reason === "refresh" && error instanceof oauth.ResponseBodyError && error.error === "invalid_grant"

/** @internal */
export const make = (options: OAuth.Options): Effect.Effect<Core, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const contextStorage = yield* Effect.serviceOption(storageTag)
    const storage = options.storage ?? Option.getOrElse(contextStorage, Tokens.memoryStorage)
    const server = options.serverUrl
    const serverUrl = new URL(server)

    const fail = (reason: string, message: string) => Effect.fail(new AuthError({ server, reason, message }))
    const attempt = <A>(reason: string, f: () => Promise<A>): Effect.Effect<A, AuthError> =>
      Effect.tryPromise({
        try: f,
        catch: (e) =>
          new AuthError({
            server,
            reason: refusedRefresh(reason, e) ? "invalid_grant" : reason,
            message: describeError(e)
          })
      })

    // DPoP: one key per client, made at first use (an unusable key option fails that use).
    const dpopSettings = options.dpop === undefined || options.dpop === false
      ? undefined
      : options.dpop === true
      ? {}
      : options.dpop
    const proofKey = dpopSettings === undefined ? undefined : yield* Effect.cached(
      Effect.tryPromise({
        try: () => dpop.makeKey(dpopSettings),
        catch: (e) => new AuthError({ server, reason: "dpop", message: describeError(e) })
      })
    )
    const binding: Effect.Effect<Binding> = proofKey === undefined
      ? Effect.succeed(undefined)
      : Effect.match(proofKey, { onFailure: () => ({ jkt: undefined }), onSuccess: (key) => ({ jkt: key.jkt }) })

    const dpopFor = (as: oauth.AuthorizationServer): Effect.Effect<dpop.ProofKey | undefined, AuthError> =>
      proofKey === undefined ? Effect.succeed(undefined) : Effect.flatMap(proofKey, (key) => {
        const supported = stringList(as.dpop_signing_alg_values_supported)
        if (supported === undefined) {
          return fail("dpop", `${as.issuer} does not support DPoP (no dpop_signing_alg_values_supported)`)
        }
        if (!dpop.accepts(supported, key.alg)) {
          return fail("dpop", `${as.issuer} does not take DPoP proofs signed with ${key.alg} (${supported.join(", ")})`)
        }
        return Effect.succeed(key)
      })

    const tokenRequest = <A>(
      reason: string,
      key: dpop.ProofKey | undefined,
      f: (proof: { readonly DPoP?: oauth.DPoPHandle }) => Promise<A>
    ): Effect.Effect<A, AuthError> =>
      attempt(reason, async () => {
        const proof = key === undefined ? {} : { DPoP: key.handle }
        try {
          return await f(proof)
        } catch (e) {
          if (key !== undefined && oauth.isDPoPNonceError(e)) return await f(proof)
          throw e
        }
      })

    const http = yield* OAuthHttp.make({
      server,
      allowInsecure: policy.isLoopbackHost(policy.bareHost(serverUrl)),
      fail
    })

    return {
      ...http,
      server,
      serverUrl,
      options,
      redirectUri: options.redirectUri ?? "http://127.0.0.1:8976/callback",
      warn: options.onWarning ?? (() => {}),
      state: yield* Ref.make<State>({ discovery: undefined, requested: new Map(), stepUps: new Map() }),
      tokens: Tokens.make(server, storage, binding),
      proofKey,
      fail,
      attempt,
      dpopFor,
      tokenRequest
    }
  })
