/**
 * MCP's authorization policy as pure functions: what a challenge says, which URLs a peer may make
 * us fetch, where metadata is looked up, which scopes are asked for, and what a callback must
 * look like. The flow (`oauth.ts`) calls these; tests exercise them directly.
 *
 * @internal
 */

/** The parameters of the `Bearer` (or `DPoP`) challenge of a `WWW-Authenticate` header. @internal */
export interface BearerChallenge {
  readonly resourceMetadata: string | undefined
  readonly scope: string | undefined
  readonly error: string | undefined
  readonly errorDescription: string | undefined
}

const emptyChallenge: BearerChallenge = {
  resourceMetadata: undefined,
  scope: undefined,
  error: undefined,
  errorDescription: undefined
}

/**
 * Reads the parameters of the `Bearer` challenge only (other schemes' parameters are ignored).
 * Quoted strings are honoured, so `realm="x Bearer y"` does not start a challenge.
 *
 * @internal
 */
export const parseBearerChallenge = (header: string | undefined): BearerChallenge => parseChallenge(header, "bearer")

/**
 * Reads the parameters of one scheme's challenge (`bearer`, or `dpop` for RFC 9449 §7.1), the
 * same way as {@link parseBearerChallenge}.
 *
 * @internal
 */
export const parseChallenge = (header: string | undefined, scheme: "bearer" | "dpop"): BearerChallenge => {
  if (header === undefined) return emptyChallenge
  // Tokenise: auth-scheme tokens, `name=value` pairs (value quoted or token), commas.
  const tokens: Array<{ readonly scheme: string } | { readonly name: string; readonly value: string }> = []
  let i = 0
  const n = header.length
  const isSpace = (c: string | undefined) => c === " " || c === "\t"
  while (i < n) {
    while (i < n && (isSpace(header[i]) || header[i] === ",")) i++
    if (i >= n) break
    const start = i
    while (i < n && !isSpace(header[i]) && header[i] !== "," && header[i] !== "=") i++
    const word = header.slice(start, i)
    let j = i
    while (j < n && isSpace(header[j])) j++
    if (header[j] === "=" && word.length > 0) {
      // token68 values end in "=" and are followed by a comma or the end; params have a value.
      j++
      while (j < n && isSpace(header[j])) j++
      let value = ""
      if (header[j] === "\"") {
        j++
        while (j < n && header[j] !== "\"") {
          if (header[j] === "\\" && j + 1 < n) j++
          value += header[j]
          j++
        }
        j++
      } else {
        const vs = j
        while (j < n && header[j] !== "," && !isSpace(header[j])) j++
        value = header.slice(vs, j)
      }
      tokens.push({ name: word.toLowerCase(), value })
      i = j
    } else if (word.length > 0) {
      tokens.push({ scheme: word.toLowerCase() })
    } else {
      i++
    }
  }
  let inBearer = false
  const params = new Map<string, string>()
  for (const token of tokens) {
    if ("scheme" in token) {
      if (inBearer) break
      inBearer = token.scheme === scheme
    } else if (inBearer && !params.has(token.name)) {
      params.set(token.name, token.value)
    }
  }
  if (!inBearer && params.size === 0) return emptyChallenge
  const scope = params.get("scope")?.trim()
  return {
    resourceMetadata: params.get("resource_metadata"),
    scope: scope === undefined || scope === "" ? undefined : scope,
    error: params.get("error"),
    errorDescription: params.get("error_description")
  }
}

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** The hostname without IPv6 brackets, lower-cased. @internal */
export const bareHost = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1")

/** Loopback hosts: `localhost`, `*.localhost`, `127.0.0.0/8`, `::1`. @internal */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1")
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1" || h === "0:0:0:0:0:0:0:1") return true
  const m = ipv4.exec(h)
  return m !== null && m[1] === "127"
}

/**
 * Literal loopback, private, link-local or unspecified addresses (and names that only resolve
 * locally). The check is textual: no DNS lookup.
 *
 * @internal
 */
export const isLocalHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1")
  if (isLoopbackHost(h)) return true
  if (h.endsWith(".local") || h.endsWith(".internal")) return true
  const m = ipv4.exec(h)
  if (m !== null) {
    const a = Number(m[1])
    const b = Number(m[2])
    return a === 0 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
      (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127)
  }
  if (h.includes(":")) {
    return h === "::" || h.startsWith("fc") || h.startsWith("fd") || /^fe[89ab]/.test(h) ||
      h.startsWith("::ffff:")
  }
  return false
}

/**
 * Whether a URL a peer advertised (metadata URL, authorization server, endpoint) may be used.
 * HTTPS to a public host always; plain HTTP and local hosts only when the configured MCP server
 * is itself on loopback. Returns the reason for a refusal.
 *
 * @internal
 */
export const checkPeerUrl = (raw: string, serverUrl: URL): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `not an absolute URL: ${raw}`
  }
  if (url.username !== "" || url.password !== "") return `URL carries credentials: ${url.origin}`
  const serverLocal = isLoopbackHost(bareHost(serverUrl))
  if (url.protocol === "https:") {
    if (isLocalHost(bareHost(url)) && !serverLocal) return `refusing local address ${url.host}`
    return undefined
  }
  if (url.protocol === "http:") {
    if (serverLocal && isLoopbackHost(bareHost(url))) return undefined
    return `refusing plain HTTP URL ${url.origin}`
  }
  return `refusing scheme ${url.protocol}`
}

/**
 * Protected Resource Metadata locations for `serverUrl` (RFC 9728 §3.1): path-inserted, then
 * the root.
 *
 * @internal
 */
export const resourceMetadataUrls = (serverUrl: URL): ReadonlyArray<string> => {
  const path = serverUrl.pathname.replace(/\/+$/, "")
  const root = `${serverUrl.origin}/.well-known/oauth-protected-resource`
  return path === "" ? [root] : [`${root}${path}`, root]
}

/**
 * Authorization server metadata locations for an issuer, in the MCP spec's order: with a path,
 * OAuth path-insert, OIDC path-insert, OIDC path-append; without, OAuth then OIDC.
 *
 * @internal
 */
export const authorizationServerMetadataUrls = (issuer: URL): ReadonlyArray<string> => {
  const path = issuer.pathname.replace(/\/+$/, "")
  const origin = issuer.origin
  return path === ""
    ? [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`]
    : [
      `${origin}/.well-known/oauth-authorization-server${path}`,
      `${origin}/.well-known/openid-configuration${path}`,
      `${origin}${path}/.well-known/openid-configuration`
    ]
}

/**
 * Whether the `resource` of Protected Resource Metadata names the server we talk to: same
 * origin (scheme, host, port) and a path equal to, or a segment prefix of, the server's path
 * (root metadata describes the origin). Query strings must be equal when the paths are.
 *
 * @internal
 */
export const resourceMatches = (resource: string, serverUrl: URL): boolean => {
  let r: URL
  try {
    r = new URL(resource)
  } catch {
    return false
  }
  if (r.hash !== "" || r.origin !== serverUrl.origin) return false
  const rp = r.pathname.replace(/\/+$/, "")
  const sp = serverUrl.pathname.replace(/\/+$/, "")
  if (rp === sp) return r.search === "" || r.search === serverUrl.search
  return r.search === "" && sp.startsWith(`${rp}/`)
}

/** Space-separated scope string to a list without duplicates. @internal */
export const scopeList = (scope: string | undefined): ReadonlyArray<string> =>
  scope === undefined ? [] : [...new Set(scope.split(/\s+/).filter((s) => s !== ""))]

/** The union of scope lists, first-seen order kept. @internal */
export const scopeUnion = (...lists: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => [
  ...new Set(lists.flat())
]

/**
 * The scopes of an authorization request: the challenge's (authoritative), else the host's
 * configured ones, else the Protected Resource Metadata's `scopes_supported`, else none;
 * `offline_access` added when wanted and the authorization server lists it.
 *
 * @internal
 */
export const selectScopes = (options: {
  readonly challengeScope: string | undefined
  readonly configuredScopes?: ReadonlyArray<string> | undefined
  readonly resourceScopes: ReadonlyArray<string> | undefined
  readonly authorizationServerScopes: ReadonlyArray<string> | undefined
  readonly previous: ReadonlyArray<string>
  readonly offlineAccess: boolean
}): ReadonlyArray<string> => {
  const base = options.challengeScope !== undefined
    ? scopeList(options.challengeScope)
    : options.previous.length > 0
    ? []
    : options.configuredScopes !== undefined && options.configuredScopes.length > 0
    ? options.configuredScopes
    : (options.resourceScopes ?? []).filter((s) => s !== "offline_access")
  const union = scopeUnion(options.previous, base)
  const offline = options.offlineAccess && union.length > 0 &&
      (options.authorizationServerScopes ?? []).includes("offline_access")
    ? ["offline_access"]
    : []
  return scopeUnion(union, offline)
}

/**
 * Redirect URIs: loopback HTTP, HTTPS, or a private-use scheme (RFC 8252 §7.1, reverse-DNS with
 * a dot). Returns the reason for a refusal.
 *
 * @internal
 */
export const checkRedirectUri = (raw: string): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `redirect URI is not an absolute URL: ${raw}`
  }
  if (url.hash !== "") return "redirect URI has a fragment"
  if (url.protocol === "https:") return undefined
  if (url.protocol === "http:") {
    return isLoopbackHost(bareHost(url)) ? undefined : "plain HTTP redirect URIs must be loopback"
  }
  const scheme = url.protocol.slice(0, -1)
  if (scheme.includes(".") && !["javascript", "data", "file", "blob"].includes(scheme)) return undefined
  return `redirect URI scheme ${url.protocol} is neither HTTPS, loopback HTTP nor a private-use scheme`
}

/**
 * The redirect URI of an authorization request: the one the client was registered with, except
 * that a loopback redirect may change its port (RFC 8252 §7.3, OAuth 2.1: the authorization
 * server must accept any port there), so a callback server on a fresh port is reachable.
 *
 * @internal
 */
export const redirectUriFor = (registered: string | undefined, current: string): string => {
  if (registered === undefined || registered === current) return current
  try {
    const r = new URL(registered)
    const c = new URL(current)
    const samePlace = r.protocol === "http:" && c.protocol === "http:" && r.hostname === c.hostname &&
      r.pathname === c.pathname && r.search === c.search
    return samePlace && isLoopbackHost(bareHost(r)) ? current : registered
  } catch {
    return registered
  }
}

/**
 * A Client ID Metadata Document URL: HTTPS, a path other than "/", no credentials, fragment or
 * dot segments.
 *
 * @internal
 */
export const checkClientIdMetadataUrl = (raw: string): string | undefined => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return "not an absolute URL"
  }
  if (url.protocol !== "https:") return "must be HTTPS"
  if (url.username !== "" || url.password !== "") return "must not carry credentials"
  if (url.hash !== "" || raw.includes("#")) return "must not have a fragment"
  if (url.pathname === "" || url.pathname === "/") return "must have a path"
  const rawPath = raw.replace(/^[a-z]+:\/\/[^/]*/i, "").split(/[?#]/)[0] ?? ""
  if (rawPath.split("/").some((seg) => seg === "." || seg === "..")) return "must not contain dot segments"
  return undefined
}

/** The first parameter of a callback that appears more than once, if any. @internal */
export const repeatedParameter = (callback: URL): string | undefined => {
  const seen = new Set<string>()
  for (const key of callback.searchParams.keys()) {
    if (seen.has(key)) return key
    seen.add(key)
  }
  return undefined
}

/**
 * RFC 9207 per the MCP table: advertised and absent → reject; present → simple string
 * comparison with the recorded issuer; otherwise proceed. Returns the reason for a refusal.
 *
 * @internal
 */
export const checkIss = (options: {
  readonly recordedIssuer: string
  readonly issParameterSupported: boolean
  readonly iss: string | undefined
}): string | undefined => {
  if (options.iss !== undefined) {
    return options.iss === options.recordedIssuer
      ? undefined
      : "the authorization response's iss does not match the authorization server"
  }
  return options.issParameterSupported
    ? "the authorization server identifies itself in responses (RFC 9207) but the response has no iss"
    : undefined
}

/**
 * The authorization URL: the endpoint's own query kept, one parameter of each name (ours win).
 *
 * @internal
 */
export const authorizationUrl = (endpoint: string, params: ReadonlyArray<readonly [string, string]>): URL => {
  const url = new URL(endpoint)
  for (const [name] of params) url.searchParams.delete(name)
  for (const [name, value] of params) url.searchParams.append(name, value)
  return url
}

/**
 * A DPoP nonce as RFC 9449 §8 allows it (`1*NQCHAR`: printable ASCII without `"` and `\`),
 * bounded, so a server cannot make us echo anything else in a proof.
 *
 * @internal
 */
export const isDpopNonce = (value: string): boolean => value.length <= 1024 && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value)
