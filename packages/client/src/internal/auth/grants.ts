/**
 * The grants without a user (`OAuth.Options.grant`): client credentials, JWT bearer (RFC 7523)
 * and enterprise-managed authorization (an identity assertion exchanged, RFC 8693, for an
 * ID-JAG that goes into a JWT bearer grant). A new grant is one more case of `grantFlow`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import type { AuthFailure } from "../../McpAuth.js"
import { AuthError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import { clientSecretBasic, pickSecretMethod } from "./clients.js"
import type { Discoverer } from "./discovery.js"
import type * as dpop from "./dpop.js"
import type { Core, Discovery } from "./oauthCore.js"
import * as policy from "./policy.js"
import * as Tokens from "./tokens.js"

const jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
const tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
const idJagTokenType = "urn:ietf:params:oauth:token-type:id-jag"

/** No client authentication and no `client_id`: the assertion of a JWT bearer grant identifies the client. */
const noClientAuth: oauth.ClientAuth = () => {}

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

/** The client identification and authentication of a grant without a user. */
const grantClientOf = (
  core: Pick<Core, "attempt" | "fail">,
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
    const { attempt, fail } = core
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

/** @internal */
export const make = (core: Core, discoverer: Discoverer) => {
  const { attempt, dpopFor, fail, options, server, tokenRequest } = core
  const accept = (
    discovery: Discovery,
    response: oauth.TokenEndpointResponse,
    scopes: ReadonlyArray<string>,
    key: dpop.ProofKey | undefined
  ) =>
    // A grant without a user is simply run again: no refresh token is kept for it.
    Tokens.accept(core, discovery, response, scopes, undefined, key, { keepRefresh: false })
  const grantClient = (credentials: Parameters<typeof grantClientOf>[1], defaultMethod: string) =>
    grantClientOf(core, credentials, defaultMethod)

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
          await oauth.clientCredentialsGrantRequest(as, client, auth, parameters, { ...core.oauthOptions(), ...proof })
        ))
      return yield* accept(discovery, response, scopes, key)
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
            ...core.oauthOptions(),
            ...proof
          })
        ))
      return yield* accept(discovery, response, scopes, key)
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
          discoverer.fetchAuthorizationServer(provider.issuer),
          (e) => new AuthError({ server, reason: "token-exchange", message: `identity provider: ${e.message}` })
        )
      } else {
        yield* discoverer.checkPeer(provider.tokenEndpoint, "token endpoint of the identity provider")
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
            core.oauthOptions()
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

  /** A token from the configured grant without a user. */
  const grantFlow = (
    grant: NonNullable<OAuth.Options["grant"]>,
    discovery: Discovery,
    challengeScope: string | undefined
  ) => {
    switch (grant._tag) {
      case "ClientCredentials":
        return clientCredentialsFlow(discovery, grant)
      case "JwtBearer":
        return jwtBearerFlow(discovery, grant, challengeScope)
      case "EnterpriseManaged":
        return enterpriseFlow(discovery, grant, challengeScope)
    }
  }

  return { grantFlow }
}
