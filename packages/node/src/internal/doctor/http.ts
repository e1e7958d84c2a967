/**
 * The doctor's HTTP steps: whether an MCP endpoint answers at the URL (a POSTed `initialize`,
 * then a GET for a legacy HTTP+SSE endpoint), and whether the server publishes the
 * protected-resource and authorization-server metadata a client needs to sign in. Only status
 * lines and headers are read from answers that may stream; bodies of metadata are bounded.
 *
 * @internal
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Policy from "@mcp-effect/client/internal/auth/policy"
import * as McpSchema from "@mcp-effect/client/McpSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Outcome } from "./step.js"
import { fail, ok, safe, warn } from "./step.js"

/** What the HTTP step saw, for the steps after it. */
export interface Probe {
  readonly outcome: Outcome
  readonly status: number
  /** `WWW-Authenticate` of a 401. */
  readonly challenge: string | undefined
  /** The endpoint speaks only HTTP+SSE. */
  readonly legacySse: boolean
}

const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: McpSchema.LEGACY_PROTOCOL_VERSIONS[0],
    capabilities: {},
    clientInfo: { name: "mcp-effect-doctor", version: "1" }
  }
}

/** Status and headers of an answer; its body is left unread (it may be an endless stream). */
const head = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.scoped(Effect.flatMap(HttpClient.HttpClient, (client) =>
    Effect.map(client.execute(request), (response) => ({
      status: response.status,
      contentType: Option.getOrElse(Headers.get(response.headers, "content-type"), () => ""),
      challenge: Option.getOrUndefined(Headers.get(response.headers, "www-authenticate")),
      session: Option.getOrUndefined(Headers.get(response.headers, "mcp-session-id"))
    }))))

/** The session the probe's `initialize` opened is closed at once, as a client leaving would. */
const closeSession = (url: string, headers: Readonly<Record<string, string>>, session: string | undefined) =>
  session === undefined
    ? Effect.void
    : Effect.ignore(head(
      HttpClientRequest.del(url).pipe(
        HttpClientRequest.setHeaders({ ...headers, "mcp-session-id": session })
      )
    ))

const legacyProbe = (url: string, headers: Readonly<Record<string, string>>) =>
  head(
    HttpClientRequest.get(url).pipe(
      HttpClientRequest.setHeaders({ ...headers, accept: "text/event-stream" })
    )
  )

const notFoundHint =
  "no MCP endpoint at this path: check the URL (Streamable HTTP endpoints are often /mcp, HTTP+SSE ones /sse)"

/** @internal */
export const probe = (
  url: string,
  headers: Readonly<Record<string, string>>
): Effect.Effect<Probe, unknown, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const post = yield* head(
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({ ...headers, accept: "application/json, text/event-stream" }),
        HttpClientRequest.bodyUnsafeJson(initialize)
      )
    )
    yield* closeSession(url, headers, post.session)
    const result = (outcome: Outcome, legacySse = false): Probe => ({
      outcome,
      status: post.status,
      challenge: post.challenge,
      legacySse
    })
    const seen = `POST → ${post.status}${post.contentType === "" ? "" : ` ${safe(post.contentType, 80)}`}`
    if (post.status >= 200 && post.status < 300) return result(ok(`${seen}: a Streamable HTTP endpoint`))
    if (post.status === 401) return result(ok(`${seen}: the server asks for authorization`))
    if (post.status === 404 || post.status === 405) {
      const get = yield* Effect.either(legacyProbe(url, headers))
      if (get._tag === "Right" && get.right.status === 200 && get.right.contentType.startsWith("text/event-stream")) {
        return result(
          warn(
            `${seen}; GET → 200 text/event-stream: an HTTP+SSE endpoint only`,
            "the server speaks only the legacy HTTP+SSE transport (deprecated since 2025-03-26): it works, "
              + "but ask its operator for Streamable HTTP"
          ),
          true
        )
      }
      return result(fail(seen, post.status === 404 ? notFoundHint : "the URL does not take POSTs: " + notFoundHint))
    }
    if (post.status === 403) return result(fail(seen, "the server refuses this client: check the token's rights"))
    if (post.status >= 500) return result(fail(seen, "the server failed: its logs say why"))
    return result(fail(seen, "the server refused MCP's initialize: is this an MCP endpoint?"))
  })

/** A JSON document at `url`, or undefined when there is none (any status but 200, or not JSON). */
const document = (url: string) =>
  Effect.scoped(Effect.flatMap(HttpClient.HttpClient, (client) =>
    Effect.flatMap(
      client.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeader("accept", "application/json"))),
      (response) =>
        response.status === 200
          ? Effect.map(Effect.orElseSucceed(response.json, () => undefined), (json) =>
            typeof json === "object" && json !== null && !Array.isArray(json)
              ? json as Record<string, unknown>
              : undefined)
          : Effect.succeed(undefined)
    )))

const firstDocument = (urls: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (const url of urls) {
      const found = yield* Effect.orElseSucceed(document(url), () => undefined)
      if (found !== undefined) return { url, document: found }
    }
    return undefined
  })

const noMetadataHint =
  "the server asks for authorization but publishes no protected-resource metadata (RFC 9728), so no client "
  + "can find where to sign in: pass a token (an Authorization header) or ask its operator to publish it"

/** @internal */
export const metadata = (
  url: string,
  probed: Probe
): Effect.Effect<Outcome, unknown, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const serverUrl = new URL(url)
    const challenged = Policy.parseBearerChallenge(probed.challenge).resourceMetadata
    const fromChallenge = challenged !== undefined && Policy.checkPeerUrl(challenged, serverUrl) === undefined
      ? [challenged]
      : []
    const resource = yield* firstDocument([...fromChallenge, ...Policy.resourceMetadataUrls(serverUrl)])
    const asked = probed.status === 401
    if (resource === undefined) {
      return asked ? fail("no protected-resource metadata", noMetadataHint) : ok("none published, none needed")
    }
    const servers = resource.document.authorization_servers
    const issuer = Array.isArray(servers) && typeof servers[0] === "string" ? servers[0] : undefined
    const at = `resource metadata at ${safe(resource.url, 200)}`
    if (issuer === undefined || !URL.canParse(issuer)) {
      return fail(`${at}, naming no authorization server`, "the metadata must list authorization_servers")
    }
    const server = yield* firstDocument(Policy.authorizationServerMetadataUrls(new URL(issuer)))
    if (server === undefined) {
      return fail(
        `${at}; no metadata for its authorization server ${safe(issuer, 200)}`,
        "the authorization server publishes neither oauth-authorization-server nor openid-configuration metadata"
      )
    }
    const registration = typeof server.document.registration_endpoint === "string"
      ? "dynamic registration"
      : server.document.client_id_metadata_document_supported === true
      ? "client ID metadata documents"
      : "no registration endpoint (a client ID must be configured)"
    return ok(`${at}; authorization server ${safe(issuer, 200)} (${registration})`)
  })
