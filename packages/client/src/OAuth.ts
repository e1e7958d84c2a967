/**
 * OAuth 2.1 for MCP servers as an `McpAuth`: discovery (RFC 9728, RFC 8414 / OIDC), the
 * authorization code grant with PKCE S256, RFC 8707 resource indicators, RFC 9207 issuer
 * checks, client registration (pre-registered, Client ID Metadata Documents, RFC 7591), scope
 * step-up, refresh, the client credentials grant, the JWT bearer grant (RFC 7523: workload
 * identity federation), enterprise-managed authorization (an identity assertion exchanged for an
 * ID-JAG, RFC 8693), and DPoP-bound tokens (RFC 9449) on request. The primitives come from
 * `oauth4webapi`; MCP's discovery order and policy are ours.
 *
 * The interactive step is pluggable (`authorize`): it receives the authorization URL and
 * returns the callback URL the authorization server redirected to. The default fails with
 * `AuthorizationRequiredError` carrying the URL, for hosts that cannot open a browser.
 *
 * @example
 * ```ts
 * import type * as McpAuth from "@mcp-effect/client/McpAuth"
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
 * import * as Effect from "effect/Effect"
 *
 * // The host's browser step: open the URL, resolve with the callback URL it redirected to.
 * declare const openBrowserAndWaitForCallback: (url: URL) => Effect.Effect<URL, McpAuth.AuthFailure>
 *
 * const config = Effect.map(
 *   OAuth.make({
 *     serverUrl: "https://mcp.example.com/mcp",
 *     redirectUri: "http://127.0.0.1:8976/callback",
 *     authorize: openBrowserAndWaitForCallback
 *   }),
 *   (auth) => StreamableHttp.config({ url: "https://mcp.example.com/mcp", auth })
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { CryptoKeyPair } from "oauth4webapi"
import * as eager from "./internal/auth/eager.js"
import * as keyValueStorage from "./internal/auth/keyValueStorage.js"
import { TaggedError } from "./internal/taggedError.js"
import type { AuthFailure, McpAuth } from "./McpAuth.js"

/**
 * A storage backend failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class OAuthStorageError extends TaggedError<OAuthStorageError>()("OAuthStorageError", {
  message: Schema.String
}) {}

/**
 * Where tokens and client registrations live between flows (and, with a persistent backend,
 * between runs). Values are JSON-compatible.
 *
 * `withLock` is optional: a storage shared by several processes (a file, a fleet's store) runs
 * `effect` while holding an exclusive lock named `key` for every user of that storage, so that
 * one refresh runs where many would race (single flight). Without it, refreshes are serialized
 * inside one `OAuthClient` only.
 *
 * @since 0.1.0
 * @category models
 */
export interface OAuthStorage {
  readonly get: (key: string) => Effect.Effect<unknown, OAuthStorageError>
  readonly set: (key: string, value: unknown) => Effect.Effect<void, OAuthStorageError>
  readonly remove: (key: string) => Effect.Effect<void, OAuthStorageError>
  /**
   * Runs `effect` holding the lock `key`, released when it ends however it ends. A holder that
   * dies must not block the others for good (locks expire).
   */
  readonly withLock?: <A, E, R>(
    key: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | OAuthStorageError, R>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const OAuthStorage: Context.Tag<OAuthStorage, OAuthStorage> = eager.storageTag

/**
 * A storage that lives as long as the value; its `withLock` is a semaphore per key, shared by
 * every client given this storage.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemoryStorage: Effect.Effect<OAuthStorage> = Effect.map(
  Ref.make(new Map<string, unknown>()),
  (ref): OAuthStorage => {
    const locks = new Map<string, Effect.Semaphore>()
    const lockOf = (key: string) =>
      Effect.sync(() => {
        const existing = locks.get(key)
        if (existing !== undefined) return existing
        const made = Effect.unsafeMakeSemaphore(1)
        locks.set(key, made)
        return made
      })
    return {
      get: (key) => Effect.map(Ref.get(ref), (map) => map.get(key)),
      set: (key, value) => Ref.update(ref, (map) => new Map(map).set(key, value)),
      remove: (key) =>
        Ref.update(ref, (map) => {
          const next = new Map(map)
          next.delete(key)
          return next
        }),
      withLock: (key, effect) => Effect.flatMap(lockOf(key), (lock) => lock.withPermits(1)(effect))
    }
  }
)

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemoryStorage: Layer.Layer<OAuthStorage> = Layer.effect(OAuthStorage, makeMemoryStorage)

/**
 * Options of {@link makeKeyValueStorage}.
 *
 * @since 0.2.0
 * @category models
 */
export interface KeyValueStorageOptions {
  /** Put before every key in the store (default `mcp-effect/oauth/`). */
  readonly prefix?: string | undefined
  /**
   * The lock refreshes run under. Default: a semaphore per key within this process — a
   * `KeyValueStore` cannot take a lock other processes see, so processes sharing a store (a
   * directory, say) may each refresh; use `NodeOAuth`'s file storage or `@mcp-effect/redis`'s
   * storage for one refresh across processes.
   */
  readonly withLock?: OAuthStorage["withLock"] | undefined
}

/**
 * A storage on `@effect/platform`'s `KeyValueStore` (memory, a directory of files, a browser's
 * `localStorage`, …): each entry a JSON string under its key, with a prefix.
 *
 * @example
 * ```ts
 * import * as KeyValueStore from "@effect/platform/KeyValueStore"
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as Layer from "effect/Layer"
 *
 * // Tokens and registrations as files in a directory (a `FileSystem` and `Path` are needed).
 * const storage = OAuth.layerKeyValueStorage().pipe(Layer.provide(KeyValueStore.layerFileSystem("/var/lib/host/oauth")))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeKeyValueStorage: (
  store: KeyValueStore.KeyValueStore,
  options?: KeyValueStorageOptions
) => OAuthStorage = keyValueStorage.make

/**
 * {@link makeKeyValueStorage} on the `KeyValueStore` in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerKeyValueStorage = (
  options?: KeyValueStorageOptions
): Layer.Layer<OAuthStorage, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(OAuthStorage, Effect.map(KeyValueStore.KeyValueStore, (store) => keyValueStorage.make(store, options)))

/**
 * Credentials registered with an authorization server out of band. They are bound to that
 * server's `issuer` and never shown to another.
 *
 * @since 0.1.0
 * @category models
 */
export interface PreRegisteredClient {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /** The authorization server these credentials belong to (required: unbound credentials are refused). */
  readonly issuer: string
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none" | undefined
}

/**
 * The client credentials grant (machine to machine): a secret (`client_secret_basic` or
 * `client_secret_post`) or a private key (`private_key_jwt`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCredentialsGrant {
  readonly _tag: "ClientCredentials"
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /** PKCS#8 PEM private key for `private_key_jwt`. */
  readonly privateKeyPem?: string | undefined
  /** JWS algorithm of the private key (default `ES256`). */
  readonly signingAlgorithm?: string | undefined
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | undefined
  /**
   * The authorization server the credentials belong to. When absent, they are used with the
   * one the resource names — only for hosts that trust that resource's metadata.
   */
  readonly issuer?: string | undefined
  readonly scope?: string | undefined
}

/**
 * How a grant without a browser authenticates the client at the authorization server, and what
 * it asks for.
 *
 * @since 0.1.0
 * @category models
 */
export interface GrantClient {
  readonly clientSecret?: string | undefined
  /** PKCS#8 PEM private key for `private_key_jwt`. */
  readonly privateKeyPem?: string | undefined
  /** JWS algorithm of the private key (default `ES256`). */
  readonly signingAlgorithm?: string | undefined
  readonly tokenEndpointAuthMethod?:
    | "client_secret_basic"
    | "client_secret_post"
    | "private_key_jwt"
    | "none"
    | undefined
  /** The authorization server the credentials are for; when absent, the one the resource names. */
  readonly issuer?: string | undefined
  /** Scopes to ask for when no challenge names any (else the resource's `scopes_supported`). */
  readonly scope?: string | undefined
}

/**
 * The JWT bearer grant (RFC 7523 §2.1) with an assertion the host holds, such as a workload's
 * identity token (workload identity federation: a Kubernetes service account token, a SPIFFE
 * JWT-SVID). The assertion usually identifies the client, so no client credentials are needed; a
 * failed grant is reported, never retried with another grant.
 *
 * @since 0.1.0
 * @category models
 */
export interface JwtBearerGrant extends GrantClient {
  readonly _tag: "JwtBearer"
  /** The assertion; an effect is run for every token request (workload tokens rotate). */
  readonly assertion: string | Effect.Effect<string, AuthFailure>
  /** A client id, when the authorization server wants one (sent with `none` unless a secret or key is given). */
  readonly clientId?: string | undefined
}

/**
 * Enterprise-managed authorization (MCP's identity assertion authorization grant): the user's
 * identity assertion from the enterprise identity provider's single sign-on is exchanged there
 * (RFC 8693) for an ID-JAG naming the MCP server's authorization server and the resource, which
 * the client then presents in a JWT bearer grant with its own credentials. No browser is involved.
 *
 * @since 0.1.0
 * @category models
 */
export interface EnterpriseManagedGrant extends GrantClient {
  readonly _tag: "EnterpriseManaged"
  /** The identity assertion (an OpenID Connect ID token, or a SAML assertion); an effect is run per exchange. */
  readonly identityAssertion: string | Effect.Effect<string, AuthFailure>
  /** `id_token` (default) or `saml2`: the `subject_token_type` of the exchange. */
  readonly identityAssertionType?: "id_token" | "saml2" | undefined
  /** The identity provider that issued the assertion and issues ID-JAGs. */
  readonly identityProvider: {
    readonly issuer: string
    /** Its token endpoint; default: from its metadata (RFC 8414 / OpenID Connect discovery). */
    readonly tokenEndpoint?: string | undefined
    /** The client id the identity provider knows this client by. */
    readonly clientId: string
    readonly clientSecret?: string | undefined
    readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none" | undefined
  }
  /** The client's registration with the MCP server's authorization server (the ID-JAG names it). */
  readonly clientId: string
}

/**
 * DPoP (RFC 9449) settings: tokens are bound to a key pair, and every request proves possession of
 * it. Tokens live only as long as the key: a generated key lives as long as the `OAuthClient`, so
 * a token kept in storage from another run is not used (give a key pair the host keeps to resume
 * them).
 *
 * @since 0.1.0
 * @category models
 */
export interface DPoPOptions {
  /** The key pair proofs are signed with (its private key need not be extractable); default: a new one. */
  readonly keyPair?: CryptoKeyPair | undefined
  /** The JWS algorithm of a generated key pair (default `ES256`). */
  readonly algorithm?: string | undefined
}

/**
 * Metadata sent in a dynamic registration (RFC 7591).
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientMetadata {
  readonly clientName?: string | undefined
  readonly clientUri?: string | undefined
  readonly logoUri?: string | undefined
  readonly tosUri?: string | undefined
  readonly policyUri?: string | undefined
  readonly contacts?: ReadonlyArray<string> | undefined
  /** `native` (default for loopback and private-use redirect URIs) or `web`. */
  readonly applicationType?: "native" | "web" | undefined
}

/**
 * An interactive step with resources of its own (a loopback callback server, say), acquired when
 * a flow needs the user and released when that flow ends.
 *
 * @since 0.1.0
 * @category models
 */
export interface InteractiveStep {
  /** Where this step receives the callback; used instead of `Options.redirectUri`. */
  readonly redirectUri: string
  /** Open `authorizationUrl`, return the URL the authorization server redirected to. */
  readonly authorize: (authorizationUrl: URL) => Effect.Effect<URL, AuthFailure>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The MCP endpoint this authorization is for (the protected resource). */
  readonly serverUrl: string
  /** Where the authorization server sends the user back (default `http://127.0.0.1:8976/callback`). */
  readonly redirectUri?: string | undefined
  /**
   * The interactive step: open `authorizationUrl`, return the URL the authorization server
   * redirected to. Default: fail with `AuthorizationRequiredError`.
   */
  readonly authorize?: ((authorizationUrl: URL) => Effect.Effect<URL, AuthFailure>) | undefined
  /**
   * The interactive step as a resource acquired per flow (wins over `authorize` and
   * `redirectUri`): e.g. `NodeOAuthBrowser.make(...)`, whose callback server listens only while
   * a flow waits for the user.
   */
  readonly interactive?: Effect.Effect<InteractiveStep, AuthFailure, Scope.Scope> | undefined
  /**
   * Scopes (space-separated) to ask for when no challenge names any; without it, the protected
   * resource metadata's `scopes_supported`.
   */
  readonly scope?: string | undefined
  /** Credentials registered out of band, each bound to its issuer; tried first. */
  readonly preRegistered?: ReadonlyArray<PreRegisteredClient> | PreRegisteredClient | undefined
  /** An HTTPS URL (with a path) of the host's Client ID Metadata Document; used when the AS supports it. */
  readonly clientIdMetadataUrl?: string | undefined
  /** Metadata for dynamic registration. */
  readonly clientMetadata?: ClientMetadata | undefined
  /** A grant without a browser instead of the authorization code grant. */
  readonly grant?: ClientCredentialsGrant | JwtBearerGrant | EnterpriseManagedGrant | undefined
  /**
   * DPoP-bound tokens (RFC 9449): proofs at the token endpoint, `Authorization: DPoP` with a fresh
   * proof on every request, server nonces honoured. Off by default; with it, the authorization
   * server must advertise DPoP and a Bearer token is refused (without it, a DPoP token is).
   */
  readonly dpop?: boolean | DPoPOptions | undefined
  /** Ask for `offline_access` when the authorization server lists it (default true). */
  readonly offlineAccess?: boolean | undefined
  /** Re-authorizations for one set of scopes after `403 insufficient_scope` (default 2). */
  readonly maxScopeAttempts?: number | undefined
  /**
   * How long before its expiry a token is refreshed (default 60 seconds): requests never carry a
   * token about to expire on the way.
   */
  readonly refreshSkew?: Duration.DurationInput | undefined
  /**
   * Storage for tokens and registrations (default: the `OAuthStorage` in context, else memory).
   * A flow starts only after a value written to it was read back.
   */
  readonly storage?: OAuthStorage | undefined
  /**
   * Where the authorization request waiting for its callback is kept (its `state`, PKCE verifier,
   * client and the authorization server's metadata, under {@link pendingKey}); default: this
   * client's memory. A kept request is written before the interactive step runs, so a page that
   * navigates to the authorization server can `complete` the callback after it comes back
   * (`BrowserOAuth.redirect` keeps it in `sessionStorage`). It is taken once, by the callback
   * carrying its `state`: a replayed or stray callback is refused with `AuthError`.
   */
  readonly pendingStorage?: OAuthStorage | undefined
  /** Called with warnings (deprecated dynamic registration, changed redirect URIs). */
  readonly onWarning?: ((message: string) => void) | undefined
}

/**
 * An `McpAuth` (give it to an HTTP transport as `auth`) that can also finish an authorization a
 * non-interactive host started: after `AuthorizationRequiredError`, open its URL, then pass the
 * callback URL the authorization server redirected to to `complete`, and retry.
 *
 * @since 0.1.0
 * @category models
 */
export interface OAuthClient extends McpAuth {
  readonly complete: (callbackUrl: URL) => Effect.Effect<void, AuthFailure>
}

/**
 * The OAuth 2.1 authorization of one MCP server. Invalid options (a redirect URI or metadata URL
 * breaking the rules) are reported by the first flow as `AuthError`.
 *
 * The `HttpClient` in context is captured for the flows, so it must live as long as the returned
 * `McpAuth`: provide it around the code that uses the connection (a scoped layer such as
 * `NodeHttpClient.layerUndici` provided to `make` alone closes its dispatcher when `make`
 * returns). Promise code gets this right with `NodeOAuth.makeOAuth`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<OAuthClient, never, HttpClient.HttpClient> =>
  // The flows (and oauth4webapi) are loaded by the first client made, not by importing this module.
  Effect.flatMap(Effect.promise(() => import("./internal/auth/oauth.js")), (internal) => internal.make(options))

/**
 * The default interactive step of hosts that cannot open a browser: fail with
 * `AuthorizationRequiredError` carrying the URL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nonInteractive: (server: string) => (authorizationUrl: URL) => Effect.Effect<URL, AuthFailure> =
  eager.nonInteractive

/**
 * The storage key of the registration with one authorization server.
 *
 * @since 0.1.0
 * @category utils
 */
export const clientRegistrationKey = (issuer: string): string => `client:${issuer}`

/**
 * The storage key of the token in use for one MCP server or, with `issuer`, of the token that
 * authorization server issued for it (one is kept per authorization server, and resumed when the
 * server names that authorization server again).
 *
 * @since 0.1.0
 * @category utils
 */
export const tokenKey = (serverUrl: string, issuer?: string): string =>
  issuer === undefined ? `token:${serverUrl}` : `token:${serverUrl} ${issuer}`

/**
 * The key, in `Options.pendingStorage`, of the authorization request waiting for its callback
 * for one MCP server.
 *
 * @since 0.2.0
 * @category utils
 */
export const pendingKey = (serverUrl: string): string => `pending:${serverUrl}`
