/**
 * What OAuth keeps in the host's `OAuthStorage`: the token in use and one per authorization
 * server (`OAuth.tokenKey(server, issuer)`), client registrations per issuer, and the check
 * that the storage keeps what a flow is about to produce. Tokens read back are decoded and
 * refused unless they fit this client (Bearer, or DPoP bound to its key).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import * as oauth from "oauth4webapi"
import { AuthError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import * as dpop from "./dpop.js"
import type { Core, Discovery } from "./oauthCore.js"
import * as policy from "./policy.js"

/** A token as stored. @internal */
export interface StoredToken {
  readonly issuer: string
  readonly tokenType: "Bearer" | "DPoP"
  /** The thumbprint of the DPoP key a `DPoP` token is bound to. */
  readonly jkt?: string | undefined
  readonly accessToken: string
  readonly refreshToken?: string | undefined
  /** Epoch milliseconds. */
  readonly expiresAt?: number | undefined
  readonly scopes: ReadonlyArray<string>
}

/** A client registration with one authorization server, as stored. @internal */
export interface StoredClient {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret?: string | undefined
  readonly tokenEndpointAuthMethod: string
  readonly redirectUri?: string | undefined
  /** Epoch seconds; 0 or absent: never. */
  readonly clientSecretExpiresAt?: number | undefined
  readonly source: "pre-registered" | "cimd" | "dcr"
}

/** @internal */
export const isRecord = Predicate.isRecord

/** @internal */
export const stringList = (u: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : undefined

/**
 * What a usable token is bound to: nothing (`undefined`, Bearer), or the client's DPoP key
 * (`jkt` undefined when no key could be made: then no token is usable).
 *
 * @internal
 */
export type Binding = { readonly jkt: string | undefined } | undefined

/**
 * Without DPoP only Bearer tokens are used; with it, only DPoP tokens bound to this client's key.
 * Anything else read back (the other kind, another key's token, a hand-edited file) is refused.
 */
const decodeToken = (u: unknown, binding: Binding): StoredToken | undefined => {
  if (
    !isRecord(u) || typeof u.issuer !== "string" || typeof u.accessToken !== "string" ||
    typeof u.tokenType !== "string"
  ) return undefined
  const type = u.tokenType.toLowerCase()
  if (
    binding === undefined
      ? type !== "bearer"
      : type !== "dpop" || binding.jkt === undefined || u.jkt !== binding.jkt
  ) {
    return undefined
  }
  return {
    issuer: u.issuer,
    tokenType: binding === undefined ? "Bearer" : "DPoP",
    ...(binding === undefined ? {} : { jkt: binding.jkt }),
    accessToken: u.accessToken,
    refreshToken: typeof u.refreshToken === "string" ? u.refreshToken : undefined,
    expiresAt: typeof u.expiresAt === "number" ? u.expiresAt : undefined,
    scopes: stringList(u.scopes) ?? []
  }
}

const decodeClient = (u: unknown): StoredClient | undefined =>
  isRecord(u) && typeof u.issuer === "string" && typeof u.clientId === "string" &&
    typeof u.tokenEndpointAuthMethod === "string"
    ? {
      issuer: u.issuer,
      clientId: u.clientId,
      clientSecret: typeof u.clientSecret === "string" ? u.clientSecret : undefined,
      tokenEndpointAuthMethod: u.tokenEndpointAuthMethod,
      redirectUri: typeof u.redirectUri === "string" ? u.redirectUri : undefined,
      clientSecretExpiresAt: typeof u.clientSecretExpiresAt === "number" ? u.clientSecretExpiresAt : undefined,
      source: u.source === "pre-registered" || u.source === "cimd" ? u.source : "dcr"
    }
    : undefined

/** @internal */
export const memoryStorage = (): OAuth.OAuthStorage => {
  const map = new Map<string, unknown>()
  return {
    get: (key) => Effect.sync(() => map.get(key)),
    set: (key, value) => Effect.sync(() => void map.set(key, value)),
    remove: (key) => Effect.sync(() => void map.delete(key))
  }
}

/** @internal */
export interface Tokens {
  /** The token in use, if it fits this client. */
  readonly load: Effect.Effect<StoredToken | undefined>
  /** The token kept for `issuer`, only if that issuer issued it. */
  readonly loadIssuer: (issuer: string) => Effect.Effect<StoredToken | undefined>
  /** The token in use, and its issuer's copy (best effort: the slot in use is what counts). */
  readonly save: (token: StoredToken) => Effect.Effect<void, AuthError>
  /** Makes `token` (or none) the one in use, without touching the issuers' copies. */
  readonly use: (token: StoredToken | undefined) => Effect.Effect<void, AuthError>
  /** Keeps `token` under its issuer's slot only (best effort). */
  readonly keep: (token: StoredToken) => Effect.Effect<void>
  /** A retired token (refused, or expired for good) is deleted wherever it is kept. */
  readonly retire: (token: StoredToken) => Effect.Effect<void>
  /** The registration kept for `issuer`, if any. */
  readonly loadClient: (issuer: string) => Effect.Effect<StoredClient | undefined>
  readonly saveClient: (client: StoredClient) => Effect.Effect<void, AuthError>
  /**
   * A flow starts only if the storage keeps what it will produce (a registration, a token):
   * a probe is written and read back before the user is sent anywhere or a client registered.
   */
  readonly checkStorage: Effect.Effect<void, AuthError>
  /** The last discovery of the resource, and when it was made (epoch milliseconds). */
  readonly loadDiscovery: Effect.Effect<{ readonly discovery: Discovery; readonly savedAt: number } | undefined>
  /** Keeps a discovery for the clients that start later (best effort). */
  readonly saveDiscovery: (discovery: Discovery, savedAt: number) => Effect.Effect<void>
  /**
   * Runs `effect` holding the storage's lock of this server's tokens, when the storage has locks
   * (every process sharing it then waits its turn); as is otherwise.
   */
  readonly exclusive: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | AuthError, R>
}

/** @internal */
export const make = (server: string, storage: OAuth.OAuthStorage, binding: Effect.Effect<Binding>): Tokens => {
  const tokenKey = `token:${server}`
  // One token per authorization server: the one in use sits under `tokenKey`, and a copy of
  // each under its issuer's slot, so a resource that moves back to an earlier AS resumes it.
  const issuerTokenKey = (issuer: string) => `token:${server} ${issuer}`
  const clientKey = (issuer: string) => `client:${issuer}`

  const store = {
    get: (key: string) => Effect.orElseSucceed(storage.get(key), () => undefined),
    set: (key: string, value: unknown) =>
      Effect.mapError(
        storage.set(key, value),
        (e) => new AuthError({ server, reason: "storage", message: e.message })
      ),
    remove: (key: string) => Effect.ignore(storage.remove(key))
  }

  const load = Effect.zipWith(store.get(tokenKey), binding, decodeToken)

  const loadIssuer = (issuer: string) =>
    Effect.zipWith(store.get(issuerTokenKey(issuer)), binding, (u, b) => {
      const token = decodeToken(u, b)
      return token?.issuer === issuer ? token : undefined
    })

  const keep = (token: StoredToken) => Effect.ignore(storage.set(issuerTokenKey(token.issuer), token))

  const retire = (token: StoredToken) =>
    Effect.gen(function*() {
      if ((yield* load)?.accessToken === token.accessToken) yield* store.remove(tokenKey)
      if ((yield* loadIssuer(token.issuer))?.accessToken === token.accessToken) {
        yield* store.remove(issuerTokenKey(token.issuer))
      }
    })

  const checkStorage = Effect.gen(function*() {
    const key = `flow:${server}`
    const nonce = oauth.generateRandomState()
    const refused = (detail: string) =>
      new AuthError({
        server,
        reason: "storage",
        message: `the OAuth storage cannot keep what an authorization needs (${detail}); no authorization started`
      })
    yield* Effect.mapError(storage.set(key, { nonce }), (e) => refused(e.message))
    const back = yield* Effect.mapError(storage.get(key), (e) => refused(e.message))
    yield* Effect.ignore(storage.remove(key))
    if (!isRecord(back) || back.nonce !== nonce) {
      return yield* Effect.fail(refused("a value written was not read back"))
    }
  })

  const exclusive = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | AuthError, R> =>
    storage.withLock === undefined ? effect : storage.withLock(`refresh:${server}`, Effect.either(effect)).pipe(
      Effect.mapError((e) => new AuthError({ server, reason: "storage", message: e.message })),
      Effect.flatten
    )

  const discoveryKey = `discovery:${server}`
  const loadDiscovery = Effect.map(store.get(discoveryKey), (u) => {
    if (!isRecord(u) || typeof u.savedAt !== "number" || typeof u.resource !== "string" || !isRecord(u.as)) {
      return undefined
    }
    const as = u.as
    if (typeof as.issuer !== "string" || typeof as.token_endpoint !== "string") return undefined
    const discovery: Discovery = {
      resource: u.resource,
      resourceScopes: stringList(u.resourceScopes),
      as: as as unknown as oauth.AuthorizationServer
    }
    return { discovery, savedAt: u.savedAt }
  })
  const saveDiscovery = (discovery: Discovery, savedAt: number) =>
    Effect.ignore(storage.set(discoveryKey, { ...discovery, savedAt }))

  return {
    load,
    loadIssuer,
    loadDiscovery,
    saveDiscovery,
    save: (token) => Effect.zipRight(store.set(tokenKey, token), keep(token)),
    use: (token) => token === undefined ? store.remove(tokenKey) : store.set(tokenKey, token),
    keep,
    retire,
    loadClient: (issuer) => Effect.map(store.get(clientKey(issuer)), decodeClient),
    saveClient: (client) => store.set(clientKey(client.issuer), client),
    checkStorage,
    exclusive
  }
}

/**
 * A token endpoint's answer, checked (its type, its DPoP binding, that its issuer is still the
 * resource's authorization server) and stored as the token in use.
 *
 * @internal
 */
export const accept = (
  core: Core,
  discovery: Discovery,
  response: oauth.TokenEndpointResponse,
  requested: ReadonlyArray<string>,
  previousRefresh: string | undefined,
  key: dpop.ProofKey | undefined,
  retention: { readonly keepRefresh: boolean } = { keepRefresh: true }
): Effect.Effect<StoredToken, AuthError> =>
  Effect.gen(function*() {
    const { fail, server } = core
    const type = response.token_type.toLowerCase()
    if (key === undefined && type !== "bearer") {
      return yield* fail("token", `token type ${response.token_type} is not supported (Bearer only: DPoP is off)`)
    }
    if (key !== undefined) {
      if (type !== "dpop") {
        return yield* fail("token", `token type ${response.token_type} refused: DPoP was asked for`)
      }
      const bound = dpop.boundThumbprint(response.access_token)
      if (bound !== undefined && bound !== key.jkt) {
        return yield* fail("dpop", "the access token is bound to another key (cnf.jkt)")
      }
    }
    // The resource's authorization server may have changed while the request was in flight.
    const current = (yield* Ref.get(core.state)).discovery
    if (current === undefined || current.as.issuer !== discovery.as.issuer) {
      return yield* fail("token", `${discovery.as.issuer} is no longer the authorization server of ${server}`)
    }
    const now = yield* Clock.currentTimeMillis
    const token: StoredToken = {
      issuer: discovery.as.issuer,
      tokenType: key === undefined ? "Bearer" : "DPoP",
      ...(key === undefined ? {} : { jkt: key.jkt }),
      accessToken: response.access_token,
      refreshToken: retention.keepRefresh ? response.refresh_token ?? previousRefresh : undefined,
      expiresAt: typeof response.expires_in === "number" ? now + response.expires_in * 1000 : undefined,
      scopes: response.scope === undefined ? requested : policy.scopeList(response.scope)
    }
    yield* core.tokens.save(token)
    return token
  })
