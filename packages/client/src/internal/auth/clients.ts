/**
 * Who the client is to an authorization server, for the authorization code grant: pre-registered
 * credentials for that issuer, a registration kept from an earlier flow, a Client ID Metadata
 * Document, or dynamic registration (RFC 7591, deprecated) — in that order; and how it
 * authenticates at the token endpoint.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import * as Deprecations from "../../Deprecations.js"
import type { AuthError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import type { Core, Discovery } from "./oauthCore.js"
import * as policy from "./policy.js"
import type { StoredClient } from "./tokens.js"
import { isRecord, stringList } from "./tokens.js"

/** WHATWG `application/x-www-form-urlencoded` (keeps `-._*`, which many servers never decode). */
const formEncode = (value: string): string => new URLSearchParams([["v", value]]).toString().slice(2)

/**
 * `client_secret_basic` (RFC 6749 §2.3.1) with form encoding that leaves unreserved characters
 * alone; oauth4webapi's escapes `-` and `.` too, which servers that skip decoding reject.
 *
 * @internal
 */
export const clientSecretBasic = (secret: string): oauth.ClientAuth => (_as, client, _body, headers) => {
  headers.set("authorization", `Basic ${btoa(`${formEncode(client.client_id)}:${formEncode(secret)}`)}`)
}

/** The secret-based method an authorization server takes, `client_secret_basic` first. @internal */
export const pickSecretMethod = (as: oauth.AuthorizationServer): string => {
  const supported = as.token_endpoint_auth_methods_supported
  if (supported === undefined || supported.includes("client_secret_basic")) return "client_secret_basic"
  if (supported.includes("client_secret_post")) return "client_secret_post"
  return "client_secret_basic"
}

/** @internal */
export interface Clients {
  /** The client to use with the discovered authorization server (registering one if needed). */
  readonly clientFor: (
    discovery: Discovery,
    scopes: ReadonlyArray<string>,
    redirectUri: string
  ) => Effect.Effect<StoredClient, AuthError>
  /** How `client` authenticates at the token endpoint. */
  readonly clientAuth: (client: StoredClient) => Effect.Effect<oauth.ClientAuth, AuthError>
}

/** @internal */
export const make = (core: Core): Clients => {
  const { attempt, fail, options, tokens, warn } = core
  const preRegistered: ReadonlyArray<OAuth.PreRegisteredClient> = options.preRegistered === undefined
    ? []
    : Array.isArray(options.preRegistered)
    ? options.preRegistered
    : [options.preRegistered as OAuth.PreRegisteredClient]

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
      yield* Deprecations.warnOnce("dynamicClientRegistration")
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
        const response = await oauth.dynamicClientRegistrationRequest(as, body, core.oauthOptions())
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
      yield* tokens.saveClient(client)
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
      const kept = yield* tokens.loadClient(as.issuer)
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

  return { clientFor, clientAuth }
}
