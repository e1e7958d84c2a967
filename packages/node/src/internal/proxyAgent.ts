/**
 * The undici dispatcher of network settings: undici's own `EnvHttpProxyAgent` (the
 * environment's proxies, `NO_PROXY`) or `ProxyAgent` (the `proxy` option), plain HTTP forwarded
 * and HTTPS through a CONNECT tunnel, and the CAs of `ca` trusted on every TLS connection
 * (direct, through the tunnel, to an `https:` proxy). Loaded with undici, only for a client
 * with settings.
 *
 * @internal
 */
import type * as Undici from "@effect/platform-node/Undici"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { STATUS_CODES } from "node:http"
import * as Tls from "node:tls"
import * as Network from "./network.js"
import type { Postprocess } from "./undiciHttpClient.js"

/**
 * The undici classes a dispatcher is made of. undici's default export (what the lazy client
 * loads) holds every one at run time; its declared type leaves `EnvHttpProxyAgent` out.
 *
 * @internal
 */
export type UndiciClasses = Pick<typeof Undici, "Agent" | "Client" | "EnvHttpProxyAgent" | "Pool" | "ProxyAgent">
type Connector = Undici.buildConnector.connector

/**
 * A request failed because of its proxy: it refused or dropped the connection, or answered
 * something other than 200 (407 when it wants credentials). The message names the proxy by
 * scheme, host and port only; `cause` is undici's error.
 *
 * @internal
 */
export class ProxyError extends Error {
  readonly code = "EPROXY"
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = "ProxyError"
  }
}

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : undefined

/** The connection to the proxy `url` failed with `error`. */
export const unreachable = (url: string, error: unknown): ProxyError => {
  const code = codeOf(error) ?? (error instanceof Error ? error.message : String(error))
  const what = code === "ECONNREFUSED" ? "refused the connection (ECONNREFUSED)" : `could not be reached (${code})`
  return new ProxyError(`proxy ${Network.redact(url)} ${what}`, error)
}

// What undici fails a request with when its proxy answers other than 200: to a CONNECT
// (`ProxyAgent`'s tunnel), and 407 to a forwarded plain-HTTP request.
const tunnelRefused = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/
const forwardRefused = "Proxy Authentication Required (407)"

const proxyStatus = (cause: unknown): number | undefined => {
  if (!(cause instanceof Error)) return undefined
  if (cause.message === forwardRefused) return 407
  const match = tunnelRefused.exec(cause.message)
  return match === null ? undefined : Number(match[1])
}

/**
 * `error` with undici's "the proxy answered N" as an `EPROXY` cause (its connection failures
 * already are, from the connector); any other error as it is.
 */
export const proxyFailure =
  (proxy: Network.Proxy) => (error: HttpClientError.HttpClientError): HttpClientError.HttpClientError => {
    if (error._tag !== "RequestError" || error.reason !== "Transport") return error
    const status = proxyStatus(error.cause)
    const url = status === undefined ? undefined : Network.proxyFor(proxy, error.request.url)
    if (status === undefined || url === undefined) return error
    const what = `answered ${status} ${STATUS_CODES[status] ?? ""}`.trimEnd()
    const cause = new ProxyError(`proxy ${Network.redact(url)} ${what}`, error.cause)
    return new HttpClientError.RequestError({ request: error.request, reason: "Transport", cause })
  }

/** Every request fails with `message` (a malformed proxy variable): no connection is made. */
export const rejectAll = (message: string): Postprocess => (request) =>
  Effect.flatMap(
    request,
    (request) =>
      Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause: new ProxyError(message) }))
  )

/** Its connection failures as `EPROXY` errors naming `proxy`. */
const toProxy = (connect: Connector, proxy: string): Connector => (options, callback) =>
  connect(options, (error, socket) => {
    if (error === null) callback(null, socket!)
    else callback(unreachable(proxy, error), null)
  })

/**
 * Node's default CAs, which an explicit `ca` would replace: the bundled roots and
 * `NODE_EXTRA_CA_CERTS` (Node 22.15+ says which itself, system CAs included when enabled).
 */
const defaultCertificates = (): ReadonlyArray<string> => {
  const tls = Tls as typeof Tls & { readonly getCACertificates?: (type: "default") => ReadonlyArray<string> }
  if (tls.getCACertificates !== undefined) return tls.getCACertificates("default")
  const extra = process.env.NODE_EXTRA_CA_CERTS
  if (extra === undefined || extra === "") return Tls.rootCertificates
  try {
    return [...Tls.rootCertificates, Fs.readFileSync(extra, "utf8")]
  } catch {
    // Node warned about the file at start-up and went on without it: so does this.
    return Tls.rootCertificates
  }
}

/** A dispatcher of `settings`, its own (the caller destroys it). */
export const make = (Undici: UndiciClasses, settings: Network.Settings): Undici.Dispatcher => {
  // One secure context for every connection: `ca` alone would parse the certificates per connection.
  const tls = settings.ca === undefined
    ? {}
    : { secureContext: Tls.createSecureContext({ ca: [...defaultCertificates(), ...settings.ca] }) }
  // A malformed variable never gets here (`rejectAll`).
  const proxy = settings.proxy?._tag === "Invalid" ? undefined : settings.proxy
  if (proxy === undefined) return new Undici.Agent({ connect: tls })
  const proxies = new Set(
    (proxy._tag === "Explicit" ? [proxy.url] : [proxy.http, proxy.https]).filter((url) => url !== undefined)
  )
  const common: Undici.EnvHttpProxyAgent.Options = {
    connect: tls,
    requestTls: tls,
    proxyTls: tls,
    // Plain HTTP is forwarded to the proxy (as curl does; many proxies allow CONNECT to 443 only).
    proxyTunnel: false,
    // The connection that carries CONNECT requests.
    clientFactory: (origin, options) => {
      const { connect } = options as { readonly connect: Connector }
      return new Undici.Pool(origin, { ...options, connect: toProxy(connect, origin.href) })
    },
    // Every pool, the one forwarding plain HTTP to the proxy included (its origin is the proxy's).
    factory: (origin, options) => {
      const href = String(origin)
      const { connect, connections } = options as Undici.Pool.Options
      const own = proxies.has(href) && typeof connect === "function"
        ? { ...options, connect: toProxy(connect, href) }
        : options
      return connections === 1 ? new Undici.Client(origin, own) : new Undici.Pool(origin, own)
    }
  }
  return proxy._tag === "Explicit"
    ? new Undici.ProxyAgent({ ...common, uri: proxy.url })
    : new Undici.EnvHttpProxyAgent({
      ...common,
      // Given even when unset: undici would read `process.env` for what is left out.
      httpProxy: proxy.http ?? "",
      httpsProxy: proxy.https ?? "",
      noProxy: proxy.noProxy
    })
}

// Shared dispatchers, one per settings, living as long as the process, as undici's global one.
const shared = new Map<string, Undici.Dispatcher>()

/** The process's dispatcher of `settings`, made once. */
export const global = (Undici: UndiciClasses, settings: Network.Settings): Undici.Dispatcher => {
  let dispatcher = shared.get(settings.key)
  if (dispatcher === undefined) {
    dispatcher = make(Undici, settings)
    shared.set(settings.key, dispatcher)
  }
  return dispatcher
}
