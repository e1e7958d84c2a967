/**
 * The OAuth 2.1 flows behind `OAuth.make`: discovery, registration, authorization code with
 * PKCE, client credentials, JWT bearer and enterprise-managed grants, refresh, step-up, DPoP.
 * Requests go through the host's `HttpClient` (bridged to the `fetch` shape `oauth4webapi`
 * expects); MCP's policy comes from `oauthPolicy.ts`, DPoP proofs for the MCP server from
 * `dpop.ts`.
 *
 * @internal
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as oauth from "oauth4webapi"
import type { AuthFailure, Challenge } from "../McpAuth.js"
import { AuthError, AuthorizationRequiredError, InsufficientScopeError } from "../McpError.js"
import type * as OAuth from "../OAuth.js"
import * as dpop from "./dpop.js"
import * as policy from "./oauthPolicy.js"

/** @internal */
export const storageTag = Context.GenericTag<OAuth.OAuthStorage>("@mcp-effect/client/OAuthStorage")

/** Cap on any response body of the OAuth peers (metadata, registration, tokens). */
const maxBodyBytes = 256 * 1024

class BodyTooLarge extends Error {
  readonly _tag = "BodyTooLarge"
  constructor() {
    super(`a response body exceeds ${maxBodyBytes} bytes`)
  }
}

/** Reads at most `maxBodyBytes` of a body, never buffering more. */
const readBounded = (
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<Uint8Array, HttpClientError.ResponseError | BodyTooLarge> =>
  Effect.map(
    Stream.runFoldEffect(
      response.stream,
      { chunks: [] as Array<Uint8Array>, size: 0 },
      (acc, chunk) => {
        const size = acc.size + chunk.length
        if (size > maxBodyBytes) return Effect.fail(new BodyTooLarge())
        acc.chunks.push(chunk)
        return Effect.succeed({ chunks: acc.chunks, size })
      }
    ),
    ({ chunks, size }) => {
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return bytes
    }
  )
const requestTimeout = "30 seconds"
/** Transport failures of idempotent requests: two more tries, 100 ms then 200 ms later. */
const transportRetry = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(2)))
/** Refresh this long before a token expires. */
const refreshSkewMs = 30_000

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

interface Discovery {
  /** The `resource` to send (RFC 8707), as the resource metadata publishes it. */
  readonly resource: string
  readonly resourceScopes: ReadonlyArray<string> | undefined
  readonly as: oauth.AuthorizationServer
}

/** One authorization request: what the callback is checked against and the code redeemed with. */
interface Pending {
  readonly request: {
    readonly issuer: string
    readonly verifier: string
    readonly state: string
    readonly clientId: string
    readonly redirectUri: string
  }
  readonly client: StoredClient
  readonly discovery: Discovery
  readonly scopes: ReadonlyArray<string>
}

interface State {
  readonly discovery: Discovery | undefined
  /** Scopes requested so far, per issuer. */
  readonly requested: ReadonlyMap<string, ReadonlyArray<string>>
  /** Step-up attempts, per issuer and scope set. */
  readonly stepUps: ReadonlyMap<string, number>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const stringList = (u: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : undefined

/**
 * What a usable token is bound to: nothing (`undefined`, Bearer), or the client's DPoP key
 * (`jkt` undefined when no key could be made: then no token is usable).
 */
type Binding = { readonly jkt: string | undefined } | undefined

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
export const nonInteractive = (server: string) => (authorizationUrl: URL): Effect.Effect<URL, AuthFailure> =>
  Effect.fail(new AuthorizationRequiredError({ server, authorizationUrl: authorizationUrl.href }))

const describeError = (error: unknown): string => {
  if (error instanceof oauth.ResponseBodyError) {
    return `${error.error}${
      error.error_description === undefined ? "" : `: ${error.error_description}`
    } (HTTP ${error.status})`
  }
  if (error instanceof oauth.AuthorizationResponseError) return `authorization refused: ${error.error}`
  if (error instanceof Error) return error.message
  return String(error)
}

const memoryStorage = (): OAuth.OAuthStorage => {
  const map = new Map<string, unknown>()
  return {
    get: (key) => Effect.sync(() => map.get(key)),
    set: (key, value) => Effect.sync(() => void map.set(key, value)),
    remove: (key) => Effect.sync(() => void map.delete(key))
  }
}

const jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
const tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
const idJagTokenType = "urn:ietf:params:oauth:token-type:id-jag"

/** No client authentication and no `client_id`: the assertion of a JWT bearer grant identifies the client. */
const noClientAuth: oauth.ClientAuth = () => {}

/** WHATWG `application/x-www-form-urlencoded` (keeps `-._*`, which many servers never decode). */
const formEncode = (value: string): string => new URLSearchParams([["v", value]]).toString().slice(2)

/**
 * `client_secret_basic` (RFC 6749 §2.3.1) with form encoding that leaves unreserved characters
 * alone; oauth4webapi's escapes `-` and `.` too, which servers that skip decoding reject.
 */
const clientSecretBasic = (secret: string): oauth.ClientAuth => (_as, client, _body, headers) => {
  headers.set("authorization", `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(secret)}`)}`)
}

const pemToDer = (pem: string): ArrayBuffer => {
  const base64 = pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "")
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes.buffer
}

type ImportParams = Parameters<typeof crypto.subtle.importKey>[2]

const importAlgorithm = (alg: string): ImportParams | undefined => {
  switch (alg) {
    case "ES256":
      return { name: "ECDSA", namedCurve: "P-256" }
    case "ES384":
      return { name: "ECDSA", namedCurve: "P-384" }
    case "ES512":
      return { name: "ECDSA", namedCurve: "P-521" }
    case "RS256":
    case "RS384":
    case "RS512":
      return { name: "RSASSA-PKCS1-v1_5", hash: `SHA-${alg.slice(2)}` }
    case "PS256":
    case "PS384":
    case "PS512":
      return { name: "RSA-PSS", hash: `SHA-${alg.slice(2)}` }
    default:
      return undefined
  }
}

/** @internal */
export const make = (options: OAuth.Options): Effect.Effect<OAuth.OAuthClient, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const httpClient = yield* HttpClient.HttpClient
    const runtime = yield* Effect.runtime<never>()
    const contextStorage = yield* Effect.serviceOption(storageTag)
    const storage = options.storage ?? Option.getOrElse(contextStorage, memoryStorage)
    const server = options.serverUrl
    const serverUrl = new URL(server)
    const serverLocal = policy.isLoopbackHost(policy.bareHost(serverUrl))
    const redirectUri = options.redirectUri ?? "http://127.0.0.1:8976/callback"
    const authorize = options.authorize ?? nonInteractive(server)
    const maxScopeAttempts = options.maxScopeAttempts ?? 2
    const warn = options.onWarning ?? (() => {})
    const tokenKey = `token:${server}`
    // One token per authorization server: the one in use sits under `tokenKey`, and a copy of
    // each under its issuer's slot, so a resource that moves back to an earlier AS resumes it.
    const issuerTokenKey = (issuer: string) => `token:${server} ${issuer}`
    const clientKey = (issuer: string) => `client:${issuer}`

    const state = yield* Ref.make<State>({ discovery: undefined, requested: new Map(), stepUps: new Map() })
    // One flow or refresh at a time: concurrent 401s share the first flow's token.
    const lock = yield* Effect.makeSemaphore(1)

    const fail = (reason: string, message: string) => Effect.fail(new AuthError({ server, reason, message }))

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
    /** The nonce the MCP server asked proofs to carry (RFC 9449 §9), if any. */
    const resourceNonce = yield* Ref.make<string | undefined>(undefined)

    const store = {
      get: (key: string) => Effect.orElseSucceed(storage.get(key), () => undefined),
      set: (key: string, value: unknown) =>
        Effect.mapError(
          storage.set(key, value),
          (e) => new AuthError({ server, reason: "storage", message: e.message })
        ),
      remove: (key: string) => Effect.ignore(storage.remove(key))
    }

    const loadToken = Effect.zipWith(store.get(tokenKey), binding, decodeToken)

    /** The token kept for `issuer`, only if that issuer issued it. */
    const loadIssuerToken = (issuer: string) =>
      Effect.zipWith(store.get(issuerTokenKey(issuer)), binding, (u, b) => {
        const token = decodeToken(u, b)
        return token?.issuer === issuer ? token : undefined
      })

    /** The token in use, and its issuer's copy (best effort: the slot in use is what counts). */
    const saveToken = (token: StoredToken) =>
      Effect.zipRight(store.set(tokenKey, token), Effect.ignore(storage.set(issuerTokenKey(token.issuer), token)))

    /** A retired token (refused, or expired for good) is deleted wherever it is kept. */
    const retire = (token: StoredToken) =>
      Effect.gen(function*() {
        if ((yield* loadToken)?.accessToken === token.accessToken) yield* store.remove(tokenKey)
        if ((yield* loadIssuerToken(token.issuer))?.accessToken === token.accessToken) {
          yield* store.remove(issuerTokenKey(token.issuer))
        }
      })

    /**
     * A flow starts only if the storage keeps what it will produce (a registration, a token):
     * a probe is written and read back before the user is sent anywhere or a client registered.
     */
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

    // --- HTTP -------------------------------------------------------------------------------

    /** The `fetch` shape oauth4webapi calls, on the host's HttpClient. */
    const customFetch = (url: string, init: oauth.CustomFetchOptions<string, unknown>): Promise<Response> => {
      const headers = init.headers
      const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === "content-type")?.[1]
      const body = init.body === undefined || init.body === null ? undefined : String(init.body)
      let request = HttpClientRequest.make(init.method as "GET")(url).pipe(HttpClientRequest.setHeaders(headers))
      if (body !== undefined) request = HttpClientRequest.bodyText(request, body, contentType)
      const effect = Effect.flatMap(
        httpClient.execute(request),
        (response) =>
          Effect.map(
            readBounded(response),
            (bytes) =>
              new Response(response.status === 204 || response.status === 304 ? null : bytes, {
                status: response.status,
                headers: response.headers as Record<string, string>
              })
          )
      ).pipe(Effect.timeout(requestTimeout))
      return Runtime.runPromise(runtime)(effect)
    }

    const oauthOptions = (): { [oauth.customFetch]: typeof customFetch; [oauth.allowInsecureRequests]: boolean } => ({
      [oauth.customFetch]: customFetch,
      // Plain HTTP passed our policy only for a loopback server talking to loopback peers.
      [oauth.allowInsecureRequests]: serverLocal
    })

    const attempt = <A>(reason: string, f: () => Promise<A>): Effect.Effect<A, AuthError> =>
      Effect.tryPromise({ try: f, catch: (e) => new AuthError({ server, reason, message: describeError(e) }) })

    /**
     * This client's DPoP key for token requests to `as` (none without DPoP). The authorization
     * server must advertise DPoP with the key's algorithm: otherwise it would issue a Bearer token
     * we refuse, after the user signed in for nothing.
     */
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

    /**
     * A token request and the processing of its answer, with a DPoP proof when `key` is given; an
     * authorization server that answers `use_dpop_nonce` gets the request once more, carrying the
     * nonce it sent (RFC 9449 §8: the handle keeps it).
     */
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

    const getJson = (url: string): Effect.Effect<{ readonly status: number; readonly json: unknown }, AuthError> =>
      httpClient.get(url, { headers: { accept: "application/json" } }).pipe(
        Effect.flatMap((response) =>
          response.status !== 200
            ? Effect.as(Effect.ignore(response.text), { status: response.status, json: undefined })
            : Effect.flatMap(readBounded(response), (bytes) =>
              Effect.try({
                try: () => ({ status: 200, json: JSON.parse(new TextDecoder().decode(bytes)) as unknown }),
                catch: () => new AuthError({ server, reason: "discovery", message: `metadata at ${url} is not JSON` })
              }))
        ),
        Effect.timeout(requestTimeout),
        // Metadata GETs are safe to repeat when the connection failed (not on HTTP answers).
        Effect.retry({ schedule: transportRetry, while: (e) => e._tag === "RequestError" }),
        Effect.catchTag(
          "RequestError",
          "ResponseError",
          "TimeoutException",
          (e) => fail("discovery", `fetching ${url} failed: ${e.message}`)
        ),
        Effect.catchTag("BodyTooLarge", () => fail("discovery", `metadata at ${url} exceeds ${maxBodyBytes} bytes`))
      )

    // --- Discovery ----------------------------------------------------------------------------

    const checkPeer = (url: string, what: string) => {
      const refused = policy.checkPeerUrl(url, serverUrl)
      return refused === undefined ? Effect.void : fail("policy", `${what}: ${refused}`)
    }

    const fetchResourceMetadata = (challengeUrl: string | undefined) =>
      Effect.gen(function*() {
        if (challengeUrl !== undefined) {
          // A refused or broken challenge fails closed: no fallback to well-known locations.
          yield* checkPeer(challengeUrl, "resource_metadata of the challenge")
          const { json, status } = yield* getJson(challengeUrl)
          if (status !== 200) return yield* fail("discovery", `resource metadata at ${challengeUrl}: HTTP ${status}`)
          return Option.some(json)
        }
        for (const url of policy.resourceMetadataUrls(serverUrl)) {
          const { json, status } = yield* getJson(url)
          if (status === 200) return Option.some(json)
        }
        return Option.none()
      })

    const fetchAuthorizationServer = (issuer: string) =>
      Effect.gen(function*() {
        yield* checkPeer(issuer, "authorization server")
        const reasons: Array<string> = []
        for (const url of policy.authorizationServerMetadataUrls(new URL(issuer))) {
          const { json, status } = yield* getJson(url)
          if (status !== 200) {
            reasons.push(`${url}: HTTP ${status}`)
            continue
          }
          if (!isRecord(json) || json.issuer !== issuer) {
            // RFC 8414 §3.3: the issuer must be the one the URL was built from, exactly.
            reasons.push(`${url}: issuer ${JSON.stringify(isRecord(json) ? json.issuer : undefined)} is not ${issuer}`)
            continue
          }
          for (const field of ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const) {
            const value = json[field]
            if (value === undefined) continue
            if (typeof value !== "string") return yield* fail("discovery", `${field} is not a string`)
            yield* checkPeer(value, field)
          }
          if (typeof json.token_endpoint !== "string") {
            return yield* fail("discovery", `authorization server ${issuer} has no token_endpoint`)
          }
          return json as unknown as oauth.AuthorizationServer
        }
        return yield* fail("discovery", `no valid authorization server metadata for ${issuer} (${reasons.join("; ")})`)
      })

    const discover = (challengeUrl: string | undefined): Effect.Effect<Discovery, AuthError> =>
      Effect.gen(function*() {
        const prm = yield* fetchResourceMetadata(challengeUrl)
        let discovery: Discovery
        if (Option.isSome(prm)) {
          const doc = prm.value
          if (!isRecord(doc) || typeof doc.resource !== "string") {
            return yield* fail("discovery", "protected resource metadata has no resource")
          }
          if (!policy.resourceMatches(doc.resource, serverUrl)) {
            return yield* fail("policy", `protected resource metadata names ${doc.resource}, not ${server}`)
          }
          const servers = stringList(doc.authorization_servers) ?? []
          const issuer = servers[0]
          if (issuer === undefined) {
            return yield* fail("discovery", "protected resource metadata names no authorization server")
          }
          discovery = {
            resource: doc.resource,
            resourceScopes: stringList(doc.scopes_supported),
            as: yield* fetchAuthorizationServer(issuer)
          }
        } else {
          // 2025-03-26 servers: the MCP server's origin is the authorization server.
          discovery = {
            resource: server,
            resourceScopes: undefined,
            as: yield* fetchAuthorizationServer(serverUrl.origin)
          }
        }
        const previous = (yield* Ref.get(state)).discovery
        if (previous !== undefined && previous.as.issuer !== discovery.as.issuer) {
          warn(`the authorization server of ${server} changed from ${previous.as.issuer} to ${discovery.as.issuer}`)
        }
        yield* Ref.update(state, (s) => ({ ...s, discovery }))
        // A token from an authorization server that is no longer this resource's leaves the slot
        // in use (kept under its issuer), and the token of the current one, if any, is resumed.
        const token = yield* loadToken
        if (token !== undefined && token.issuer !== discovery.as.issuer) {
          yield* Effect.ignore(storage.set(issuerTokenKey(token.issuer), token))
          const resumed = yield* loadIssuerToken(discovery.as.issuer)
          yield* resumed === undefined ? store.remove(tokenKey) : store.set(tokenKey, resumed)
        }
        return discovery
      })

    const currentDiscovery = Effect.flatMap(
      Ref.get(state),
      (s) => s.discovery === undefined ? discover(undefined) : Effect.succeed(s.discovery)
    )

    // --- Clients ----------------------------------------------------------------------------

    const preRegistered: ReadonlyArray<OAuth.PreRegisteredClient> = options.preRegistered === undefined
      ? []
      : Array.isArray(options.preRegistered)
      ? options.preRegistered
      : [options.preRegistered as OAuth.PreRegisteredClient]

    const pickSecretMethod = (as: oauth.AuthorizationServer): string => {
      const supported = as.token_endpoint_auth_methods_supported
      if (supported === undefined || supported.includes("client_secret_basic")) return "client_secret_basic"
      if (supported.includes("client_secret_post")) return "client_secret_post"
      return "client_secret_basic"
    }

    const registerDynamically = (discovery: Discovery, scopes: ReadonlyArray<string>, redirectUri: string) =>
      Effect.gen(function*() {
        const as = discovery.as
        if (typeof as.registration_endpoint !== "string") {
          return yield* fail(
            "registration",
            `no client registration possible with ${as.issuer}: no pre-registered credentials, no Client ID Metadata Document support, no registration endpoint`
          )
        }
        warn(`registering dynamically with ${as.issuer} (dynamic client registration is deprecated)`)
        const meta = options.clientMetadata ?? {}
        const redirect = new URL(redirectUri)
        const native = redirect.protocol !== "https:" || policy.isLoopbackHost(policy.bareHost(redirect))
        const supported = as.token_endpoint_auth_methods_supported
        const requestedMethod = supported === undefined || supported.includes("none") ? "none" : pickSecretMethod(as)
        const body: Partial<oauth.OmitSymbolProperties<oauth.Client>> = {
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: requestedMethod,
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          application_type: meta.applicationType ?? (native ? "native" : "web"),
          client_name: meta.clientName ?? "mcp-effect",
          ...(meta.clientUri === undefined ? {} : { client_uri: meta.clientUri }),
          ...(meta.logoUri === undefined ? {} : { logo_uri: meta.logoUri }),
          ...(meta.tosUri === undefined ? {} : { tos_uri: meta.tosUri }),
          ...(meta.policyUri === undefined ? {} : { policy_uri: meta.policyUri }),
          ...(meta.contacts === undefined ? {} : { contacts: [...meta.contacts] }),
          ...(scopes.length === 0 ? {} : { scope: scopes.join(" ") })
        }
        // Parsed by hand: servers commonly leave out `client_secret_expires_at`, which RFC 7591
        // requires with a secret and oauth4webapi enforces.
        const registered = yield* attempt("registration", async () => {
          const response = await oauth.dynamicClientRegistrationRequest(as, body, oauthOptions())
          const text = await response.text()
          if (response.status !== 201 && response.status !== 200) {
            throw new Error(`registration refused: HTTP ${response.status}`)
          }
          const json: unknown = JSON.parse(text)
          if (!isRecord(json) || typeof json.client_id !== "string" || json.client_id === "") {
            throw new Error("the registration response has no client_id")
          }
          return json as Record<string, unknown> & { readonly client_id: string }
        })
        const echoed = stringList(registered.redirect_uris)
        let redirectToUse = redirectUri
        if (echoed !== undefined && echoed.length > 0 && !echoed.includes(redirectUri)) {
          const first = echoed[0]!
          const refused = policy.checkRedirectUri(first)
          if (refused !== undefined) return yield* fail("registration", `registered ${refused}`)
          warn(`${as.issuer} registered the redirect URI ${first} instead of ${redirectUri}`)
          redirectToUse = first
        }
        const secret = typeof registered.client_secret === "string" ? registered.client_secret : undefined
        const method = typeof registered.token_endpoint_auth_method === "string"
          ? registered.token_endpoint_auth_method
          : secret === undefined
          ? "none"
          : pickSecretMethod(as)
        const client: StoredClient = {
          issuer: as.issuer,
          clientId: registered.client_id,
          clientSecret: secret,
          tokenEndpointAuthMethod: method,
          redirectUri: redirectToUse,
          clientSecretExpiresAt: typeof registered.client_secret_expires_at === "number"
            ? registered.client_secret_expires_at
            : undefined,
          source: "dcr"
        }
        yield* store.set(clientKey(as.issuer), client)
        return client
      })

    const clientFor = (
      discovery: Discovery,
      scopes: ReadonlyArray<string>,
      redirectUri: string
    ): Effect.Effect<StoredClient, AuthError> =>
      Effect.gen(function*() {
        const as = discovery.as
        for (const creds of preRegistered) {
          if (typeof creds.issuer !== "string" || creds.issuer === "") {
            return yield* fail("policy", "pre-registered credentials must name the issuer they belong to")
          }
        }
        // 1. Pre-registered credentials for this very issuer.
        const pre = preRegistered.find((c) => c.issuer === as.issuer)
        if (pre !== undefined) {
          return {
            issuer: as.issuer,
            clientId: pre.clientId,
            clientSecret: pre.clientSecret,
            tokenEndpointAuthMethod: pre.tokenEndpointAuthMethod ??
              (pre.clientSecret === undefined ? "none" : pickSecretMethod(as)),
            source: "pre-registered"
          }
        }
        // A registration kept from an earlier flow with this issuer.
        const kept = decodeClient(yield* store.get(clientKey(as.issuer)))
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (
          kept !== undefined && kept.issuer === as.issuer &&
          (kept.clientSecretExpiresAt === undefined || kept.clientSecretExpiresAt === 0 ||
            kept.clientSecretExpiresAt > now)
        ) return kept
        // 2. Client ID Metadata Document.
        if (options.clientIdMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
          const refused = policy.checkClientIdMetadataUrl(options.clientIdMetadataUrl)
          if (refused !== undefined) return yield* fail("policy", `clientIdMetadataUrl ${refused}`)
          return {
            issuer: as.issuer,
            clientId: options.clientIdMetadataUrl,
            tokenEndpointAuthMethod: "none",
            source: "cimd"
          }
        }
        // 3. Dynamic registration.
        return yield* registerDynamically(discovery, scopes, redirectUri)
      })

    const clientAuth = (client: StoredClient): Effect.Effect<oauth.ClientAuth, AuthError> => {
      switch (client.tokenEndpointAuthMethod) {
        case "none":
          return Effect.succeed(oauth.None())
        case "client_secret_basic":
        case "client_secret_post":
          return client.clientSecret === undefined
            ? fail("registration", `${client.tokenEndpointAuthMethod} needs a client secret`)
            : Effect.succeed(
              client.tokenEndpointAuthMethod === "client_secret_basic"
                ? clientSecretBasic(client.clientSecret)
                : oauth.ClientSecretPost(client.clientSecret)
            )
        default:
          return fail("registration", `unsupported token endpoint auth method ${client.tokenEndpointAuthMethod}`)
      }
    }

    // --- Tokens -------------------------------------------------------------------------------

    const acceptToken = (
      discovery: Discovery,
      response: oauth.TokenEndpointResponse,
      requested: ReadonlyArray<string>,
      previousRefresh: string | undefined,
      key: dpop.ProofKey | undefined,
      retention: { readonly keepRefresh: boolean } = { keepRefresh: true }
    ) =>
      Effect.gen(function*() {
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
        const current = (yield* Ref.get(state)).discovery
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
        yield* saveToken(token)
        return token
      })

    /** The client identification and authentication of a grant without a user. */
    const grantClient = (
      credentials: {
        readonly clientId?: string | undefined
        readonly clientSecret?: string | undefined
        readonly privateKeyPem?: string | undefined
        readonly signingAlgorithm?: string | undefined
        readonly tokenEndpointAuthMethod?: string | undefined
      },
      defaultMethod: string
    ): Effect.Effect<{ readonly client: oauth.Client; readonly auth: oauth.ClientAuth }, AuthError> =>
      Effect.gen(function*() {
        const clientId = credentials.clientId
        if (clientId === undefined) {
          if (credentials.tokenEndpointAuthMethod !== undefined && credentials.tokenEndpointAuthMethod !== "none") {
            return yield* fail("token", `${credentials.tokenEndpointAuthMethod} needs clientId`)
          }
          // oauth4webapi wants a client id; `noClientAuth` never sends it.
          return { client: { client_id: "-" }, auth: noClientAuth }
        }
        const client: oauth.Client = { client_id: clientId }
        const method = credentials.tokenEndpointAuthMethod ?? defaultMethod
        if (method === "none") return { client, auth: oauth.None() }
        if (method === "private_key_jwt") {
          const pem = credentials.privateKeyPem
          if (pem === undefined) return yield* fail("token", "private_key_jwt needs privateKeyPem")
          const alg = credentials.signingAlgorithm ?? "ES256"
          const params = importAlgorithm(alg)
          if (params === undefined) return yield* fail("token", `unsupported signing algorithm ${alg}`)
          const key = yield* attempt(
            "token",
            () => crypto.subtle.importKey("pkcs8", pemToDer(pem), params, false, ["sign"])
          )
          return { client, auth: oauth.PrivateKeyJwt(key) }
        }
        const secret = credentials.clientSecret
        if (secret === undefined) return yield* fail("token", `${method} needs clientSecret`)
        if (method !== "client_secret_basic" && method !== "client_secret_post") {
          return yield* fail("token", `unsupported token endpoint auth method ${method}`)
        }
        return {
          client,
          auth: method === "client_secret_post" ? oauth.ClientSecretPost(secret) : clientSecretBasic(secret)
        }
      })

    /** Credentials bound to an issuer are shown to that authorization server only. */
    const checkGrantIssuer = (issuer: string | undefined, as: oauth.AuthorizationServer, what: string) =>
      issuer !== undefined && issuer !== as.issuer
        ? fail("policy", `the ${what} belong to ${issuer}, not ${as.issuer}`)
        : Effect.void

    const clientCredentialsFlow = (discovery: Discovery, grant: OAuth.ClientCredentialsGrant) =>
      Effect.gen(function*() {
        const as = discovery.as
        yield* checkGrantIssuer(grant.issuer, as, "client credentials")
        const key = yield* dpopFor(as)
        const { auth, client } = yield* grantClient(
          grant,
          grant.privateKeyPem !== undefined ? "private_key_jwt" : pickSecretMethod(as)
        )
        const scopes = policy.scopeList(grant.scope)
        const parameters: Record<string, string> = {
          resource: discovery.resource,
          ...(scopes.length === 0 ? {} : { scope: scopes.join(" ") })
        }
        const response = yield* tokenRequest("token", key, async (proof) =>
          oauth.processClientCredentialsResponse(
            as,
            client,
            await oauth.clientCredentialsGrantRequest(as, client, auth, parameters, { ...oauthOptions(), ...proof })
          ))
        return yield* acceptToken(discovery, response, scopes, undefined, key, { keepRefresh: false })
      })

    const assertionOf = (assertion: string | Effect.Effect<string, AuthFailure>, what: string) =>
      Effect.flatMap(
        typeof assertion === "string" ? Effect.succeed(assertion) : assertion,
        (value) => value === "" ? fail("token", `the ${what} is empty`) : Effect.succeed(value)
      )

    /** The scopes of a grant without a user: the challenge's, else the configured ones, else the resource's. */
    const grantScopes = (discovery: Discovery, challengeScope: string | undefined, configured: string | undefined) =>
      policy.selectScopes({
        challengeScope,
        configuredScopes: policy.scopeList(configured ?? options.scope),
        resourceScopes: discovery.resourceScopes,
        authorizationServerScopes: undefined,
        previous: [],
        offlineAccess: false
      })

    /** The JWT bearer grant (RFC 7523 §2.1) at the resource's authorization server. */
    const jwtBearer = (
      discovery: Discovery,
      grant: OAuth.JwtBearerGrant | OAuth.EnterpriseManagedGrant,
      assertion: string,
      scopes: ReadonlyArray<string>
    ) =>
      Effect.gen(function*() {
        const as = discovery.as
        const key = yield* dpopFor(as)
        const { auth, client } = yield* grantClient(
          grant,
          grant.privateKeyPem !== undefined
            ? "private_key_jwt"
            : grant.clientSecret !== undefined
            ? pickSecretMethod(as)
            : "none"
        )
        const parameters: Record<string, string> = {
          assertion,
          resource: discovery.resource,
          ...(scopes.length === 0 ? {} : { scope: scopes.join(" ") })
        }
        const response = yield* tokenRequest("token", key, async (proof) =>
          oauth.processGenericTokenEndpointResponse(
            as,
            client,
            await oauth.genericTokenEndpointRequest(as, client, auth, jwtBearerGrantType, parameters, {
              ...oauthOptions(),
              ...proof
            })
          ))
        // A grant without a user is simply run again: no refresh token is kept for it.
        return yield* acceptToken(discovery, response, scopes, undefined, key, { keepRefresh: false })
      })

    const jwtBearerFlow = (discovery: Discovery, grant: OAuth.JwtBearerGrant, challengeScope: string | undefined) =>
      Effect.gen(function*() {
        yield* checkGrantIssuer(grant.issuer, discovery.as, "assertion and credentials")
        const assertion = yield* assertionOf(grant.assertion, "assertion")
        return yield* jwtBearer(discovery, grant, assertion, grantScopes(discovery, challengeScope, grant.scope))
      })

    /**
     * Enterprise-managed authorization: the identity assertion is exchanged at the identity
     * provider (RFC 8693) for an ID-JAG naming the authorization server and the resource, which
     * then goes into a JWT bearer grant.
     */
    const enterpriseFlow = (
      discovery: Discovery,
      grant: OAuth.EnterpriseManagedGrant,
      challengeScope: string | undefined
    ) =>
      Effect.gen(function*() {
        const as = discovery.as
        yield* checkGrantIssuer(grant.issuer, as, "client credentials")
        const provider = grant.identityProvider
        let idp: oauth.AuthorizationServer
        if (provider.tokenEndpoint === undefined) {
          idp = yield* Effect.mapError(
            fetchAuthorizationServer(provider.issuer),
            (e) => new AuthError({ server, reason: "token-exchange", message: `identity provider: ${e.message}` })
          )
        } else {
          yield* checkPeer(provider.tokenEndpoint, "token endpoint of the identity provider")
          idp = { issuer: provider.issuer, token_endpoint: provider.tokenEndpoint }
        }
        const { auth, client } = yield* grantClient(
          provider,
          provider.clientSecret !== undefined ? pickSecretMethod(idp) : "none"
        )
        const scopes = grantScopes(discovery, challengeScope, grant.scope)
        const subjectToken = yield* assertionOf(grant.identityAssertion, "identity assertion")
        const parameters: Record<string, string> = {
          requested_token_type: idJagTokenType,
          audience: as.issuer,
          resource: discovery.resource,
          subject_token: subjectToken,
          subject_token_type: `urn:ietf:params:oauth:token-type:${grant.identityAssertionType ?? "id_token"}`,
          ...(scopes.length === 0 ? {} : { scope: scopes.join(" ") })
        }
        const exchanged = yield* attempt("token-exchange", async () =>
          oauth.processGenericTokenEndpointResponse(
            idp,
            client,
            await oauth.genericTokenEndpointRequest(
              idp,
              client,
              auth,
              tokenExchangeGrantType,
              parameters,
              oauthOptions()
            ),
            // An ID-JAG is not an access token: its `token_type` is `N_A` (RFC 8693 §2.2.1).
            { recognizedTokenTypes: { n_a: () => {} } }
          ))
        if (exchanged.issued_token_type !== idJagTokenType) {
          return yield* fail(
            "token-exchange",
            `the identity provider issued ${JSON.stringify(exchanged.issued_token_type)}, not an ID-JAG`
          )
        }
        return yield* jwtBearer(discovery, grant, exchanged.access_token, scopes)
      })

    /** A grant without a user. */
    const grantFlow = (discovery: Discovery, challengeScope: string | undefined) => {
      const grant = options.grant!
      switch (grant._tag) {
        case "ClientCredentials":
          return clientCredentialsFlow(discovery, grant)
        case "JwtBearer":
          return jwtBearerFlow(discovery, grant, challengeScope)
        case "EnterpriseManaged":
          return enterpriseFlow(discovery, grant, challengeScope)
      }
    }

    /** The authorization request waiting for `complete` (after `AuthorizationRequiredError`). */
    const pendingRef = yield* Ref.make<Pending | undefined>(undefined)

    const authorizationCodeFlow = (discovery: Discovery, scopes: ReadonlyArray<string>) =>
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
        const client = yield* clientFor(discovery, scopes, step.redirectUri)
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
        yield* Ref.update(state, (s) => ({ ...s, requested: new Map(s.requested).set(as.issuer, scopes) }))
        const pending: Pending = { request, client, discovery, scopes }
        const callback = yield* step.authorize(url).pipe(
          // A host that cannot run the step itself completes it later with `complete(callback)`.
          Effect.tapErrorTag("AuthorizationRequiredError", () => Ref.set(pendingRef, pending))
        )
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
        const auth = yield* clientAuth(client)
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
              { ...oauthOptions(), ...proof, additionalParameters: { resource: discovery.resource } }
            )
          ))
        return yield* acceptToken(discovery, response, scopes, undefined, key)
      })

    const refresh = (token: StoredToken) =>
      Effect.gen(function*() {
        const discovery = yield* currentDiscovery
        if (discovery.as.issuer !== token.issuer || token.refreshToken === undefined) {
          return yield* fail("refresh", "no refresh possible")
        }
        const refreshToken = token.refreshToken
        const as = discovery.as
        const client = decodeClient(yield* store.get(clientKey(as.issuer))) ??
          (yield* clientFor(discovery, token.scopes, redirectUri))
        const oauthClient: oauth.Client = { client_id: client.clientId }
        const auth = yield* clientAuth(client)
        const key = yield* dpopFor(as)
        const response = yield* tokenRequest("refresh", key, async (proof) =>
          oauth.processRefreshTokenResponse(
            as,
            oauthClient,
            await oauth.refreshTokenGrantRequest(as, oauthClient, auth, refreshToken, {
              ...oauthOptions(),
              ...proof,
              additionalParameters: { resource: discovery.resource }
            })
          ))
        return yield* acceptToken(discovery, response, token.scopes, refreshToken, key)
      })

    /** Obtains a new token from the resource's current authorization server. */
    const obtain = (discovery: Discovery, challengeScope: string | undefined, stepUp: boolean) =>
      Effect.gen(function*() {
        yield* checkStorage
        if (options.grant !== undefined) return yield* grantFlow(discovery, challengeScope)
        const s = yield* Ref.get(state)
        const token = yield* loadToken
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
        return yield* authorizationCodeFlow(discovery, scopes)
      })

    // --- McpAuth -----------------------------------------------------------------------------

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
        let token = yield* loadToken
        if (token === undefined) return {}
        const now = yield* Clock.currentTimeMillis
        if (token.expiresAt !== undefined && now >= token.expiresAt - refreshSkewMs) {
          const stale = token
          token = yield* lock.withPermits(1)(
            Effect.gen(function*() {
              const latest = yield* loadToken
              if (latest !== undefined && latest.accessToken !== stale.accessToken) return latest
              if (stale.refreshToken === undefined) return stale
              return yield* Effect.orElseSucceed(refresh(stale), () => stale)
            })
          )
          if (token.expiresAt !== undefined && now >= token.expiresAt) {
            // Expired and not refreshable: send nothing and let the server's challenge start a flow.
            yield* retire(token)
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
        const before = yield* loadToken
        return yield* lock.withPermits(1)(
          Effect.gen(function*() {
            const latest = yield* loadToken
            // Another request already obtained a new token while this one waited.
            if (c.status === 401 && latest !== undefined && latest.accessToken !== before?.accessToken) return true
            const discovery = yield* discover(parsed.resourceMetadata)
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
            const current = yield* loadToken
            // The authorization server changed back to one whose token was kept: try that token.
            if (
              current !== undefined && current.issuer === discovery.as.issuer &&
              current.accessToken !== before?.accessToken
            ) return true
            // The token the server refused, if it came from the current authorization server.
            const refused = current !== undefined && current.issuer === discovery.as.issuer ? current : undefined
            // A refused token that can be refreshed is refreshed before the user is asked again.
            if (options.grant === undefined && refused?.refreshToken !== undefined) {
              const refreshed = yield* Effect.option(refresh(refused))
              if (Option.isSome(refreshed)) return true
            }
            // A new token replaces the refused one in both slots; if none comes, it is retired.
            yield* obtain(discovery, parsed.scope, latest !== undefined).pipe(
              Effect.tapError(() => refused === undefined ? Effect.void : retire(refused))
            )
            return true
          })
        )
      })

    const complete = (callback: URL): Effect.Effect<void, AuthFailure> =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          const pending = yield* Ref.getAndSet(pendingRef, undefined)
          if (pending === undefined) return yield* fail("authorization", "no authorization request is waiting")
          yield* redeem(pending, callback)
        })
      )

    return { headers, challenge, complete } satisfies OAuth.OAuthClient
  })
