/**
 * Discovery: the resource's protected resource metadata (RFC 9728, from the challenge or the
 * well-known locations), its authorization server's metadata (RFC 8414, the issuer checked
 * exactly), every URL checked against the policy, and what a change of authorization server
 * does to the token in use.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as oauth from "oauth4webapi"
import type { AuthError } from "../../McpError.js"
import * as Defaults from "../defaults.js"
import type { Core, Discovery } from "./oauthCore.js"
import * as policy from "./policy.js"
import { isRecord, stringList } from "./tokens.js"

/** @internal */
export interface Discoverer {
  /** Discovers (again), from the challenge's `resource_metadata` when it names one. */
  readonly discover: (challengeUrl: string | undefined) => Effect.Effect<Discovery, AuthError>
  /** The last discovery, or a first one. */
  readonly current: Effect.Effect<Discovery, AuthError>
  readonly fetchAuthorizationServer: (issuer: string) => Effect.Effect<oauth.AuthorizationServer, AuthError>
  /** Fails unless the policy lets the client talk to `url` (`what` names it in the message). */
  readonly checkPeer: (url: string, what: string) => Effect.Effect<void, AuthError>
  /**
   * Takes the discovery of an authorization request an earlier client made (the page before a
   * redirect), when this client has none yet and it still passes the policy.
   */
  readonly adopt: (discovery: Discovery) => Effect.Effect<void, AuthError>
}

/** @internal */
export const make = (core: Core): Discoverer => {
  const { fail, getJson, server, serverUrl, tokens } = core

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
      const previous = (yield* Ref.get(core.state)).discovery
      if (previous !== undefined && previous.as.issuer !== discovery.as.issuer) {
        core.warn(`the authorization server of ${server} changed from ${previous.as.issuer} to ${discovery.as.issuer}`)
      }
      yield* Ref.update(core.state, (s) => ({ ...s, discovery }))
      yield* tokens.saveDiscovery(discovery, yield* Clock.currentTimeMillis)
      // A token from an authorization server that is no longer this resource's leaves the slot
      // in use (kept under its issuer), and the token of the current one, if any, is resumed.
      const token = yield* tokens.load
      if (token !== undefined && token.issuer !== discovery.as.issuer) {
        yield* tokens.keep(token)
        yield* tokens.use(yield* tokens.loadIssuer(discovery.as.issuer))
      }
      return discovery
    })

  /** A discovery kept by another client still passes the policy. */
  const passes = ({ as, resource }: Discovery): boolean =>
    policy.resourceMatches(resource, serverUrl) &&
    [as.issuer, as.token_endpoint, as.authorization_endpoint, as.registration_endpoint].every((url) =>
      url === undefined || policy.checkPeerUrl(url, serverUrl) === undefined
    )

  const adopt = (discovery: Discovery) =>
    Effect.gen(function*() {
      if ((yield* Ref.get(core.state)).discovery !== undefined) return
      if (!passes(discovery)) {
        return yield* fail("policy", "the waiting authorization request names peers the policy refuses")
      }
      yield* Ref.update(core.state, (s) => ({ ...s, discovery }))
      yield* tokens.saveDiscovery(discovery, yield* Clock.currentTimeMillis)
    })

  /**
   * The discovery another client (another run) kept, if it is recent, still passes the policy,
   * and names the issuer of the token in use: a restarted host refreshes its token with one
   * request instead of discovering again first.
   */
  const restore = Effect.gen(function*() {
    const kept = yield* tokens.loadDiscovery
    if (kept === undefined || (yield* Clock.currentTimeMillis) - kept.savedAt > Defaults.DISCOVERY_MAX_AGE_MS) {
      return Option.none()
    }
    const token = yield* tokens.load
    if (token !== undefined && token.issuer !== kept.discovery.as.issuer) return Option.none()
    if (!passes(kept.discovery)) return Option.none()
    yield* Ref.update(core.state, (s) => ({ ...s, discovery: kept.discovery }))
    return Option.some(kept.discovery)
  })

  const current = Effect.flatMap(
    Ref.get(core.state),
    (s) =>
      s.discovery === undefined
        ? Effect.flatMap(restore, Option.match({ onNone: () => discover(undefined), onSome: Effect.succeed }))
        : Effect.succeed(s.discovery)
  )

  return { discover, current, fetchAuthorizationServer, checkPeer, adopt }
}
