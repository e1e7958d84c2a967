/**
 * The network settings of an HTTP client (a proxy, extra trusted CAs) as read once when the
 * client is built. Imports no undici: a client without settings never loads more than this.
 *
 * @internal
 */
import { ConfigError } from "@mcp-effect/client/McpError"
import * as Either from "effect/Either"
import type { NetworkOptions } from "../UndiciHttpClient.js"

/**
 * The proxies requests go through: one for every request (the `proxy` option), or the
 * environment's (`HTTP_PROXY` for `http:`, `HTTPS_PROXY` for `https:`, else `HTTP_PROXY`, as
 * undici's `EnvHttpProxyAgent` does; `NO_PROXY` hosts direct).
 */
export type Proxy =
  | { readonly _tag: "Explicit"; readonly url: string }
  | {
    readonly _tag: "Environment"
    readonly http: string | undefined
    readonly https: string | undefined
    readonly noProxy: string
  }
  /** A malformed proxy variable: every HTTP request fails saying so (stdio servers never see it). */
  | { readonly _tag: "Invalid"; readonly message: string }

/** What a client's dispatcher is built from; `undefined` settings: the dispatcher as without any. */
export interface Settings {
  readonly proxy: Proxy | undefined
  /** PEM certificates trusted beside Node's own. */
  readonly ca: ReadonlyArray<string> | undefined
  /** Equal for settings that may share one dispatcher. */
  readonly key: string
}

const variable = (env: NetworkOptions["proxyEnv"] & object, name: string): string | undefined => {
  // The lower-case form first, as curl and undici read them; an empty value is no value.
  const value = env[name.toLowerCase()] ?? env[name]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

/** `scheme://host[:port]` of a proxy URL: what messages name, never its credentials. */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return "(not a URL)"
  }
}

/** A proxy URL as undici takes it; a value without a scheme (`proxy:3128`) is an `http:` one. */
const proxyUrl = (value: string, name: string): Either.Either<string, ConfigError> => {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    // The value is not printed: it may hold credentials.
    return Either.left(new ConfigError({ message: `${name} is not a proxy URL (http://host:port)` }))
  }
  return url.protocol === "http:" || url.protocol === "https:"
    ? Either.right(url.href)
    : Either.left(
      new ConfigError({ message: `${name}: ${url.protocol} proxies are not supported (http: or https: only)` })
    )
}

const environmentProxy = (env: NetworkOptions["proxyEnv"] & object): Proxy | undefined => {
  const http = variable(env, "HTTP_PROXY")
  const https = variable(env, "HTTPS_PROXY")
  if (http === undefined && https === undefined) return undefined
  const parse = (value: string | undefined, name: string) =>
    value === undefined ? Either.right(undefined) : proxyUrl(value, name)
  return Either.match(Either.all([parse(http, "HTTP_PROXY"), parse(https, "HTTPS_PROXY")]), {
    onLeft: ({ message }): Proxy => ({ _tag: "Invalid", message }),
    onRight: ([http, https]): Proxy => ({ _tag: "Environment", http, https, noProxy: variable(env, "NO_PROXY") ?? "" })
  })
}

const certificates = (ca: NetworkOptions["ca"]): Either.Either<ReadonlyArray<string> | undefined, ConfigError> => {
  const list = ca === undefined ? [] : typeof ca === "string" ? [ca] : ca
  if (list.length === 0) return Either.right(undefined)
  return list.every((pem) => pem.includes("-----BEGIN CERTIFICATE-----"))
    ? Either.right(list)
    : Either.left(new ConfigError({ message: "ca: expected PEM certificates (-----BEGIN CERTIFICATE-----)" }))
}

const settingsOf = (proxy: Proxy | undefined, ca: ReadonlyArray<string> | undefined): Settings | undefined =>
  proxy === undefined && ca === undefined ? undefined : { proxy, ca, key: JSON.stringify([proxy ?? null, ca ?? null]) }

/**
 * The settings of the environment (`env`, default `process.env`), read now; `undefined` when it
 * names no proxy.
 */
export const environment = (env: NetworkOptions["proxyEnv"] = process.env): Settings | undefined =>
  settingsOf(environmentProxy(env), undefined)

/**
 * The settings of `options`, the environment (`proxyEnv`, default `process.env`) read now
 * unless `proxy` is given; `undefined` when there is neither a proxy nor a CA. A malformed
 * `proxy` or `ca` option is a `ConfigError` (naming the setting, not its value); a malformed
 * variable fails the HTTP requests instead.
 */
export const settings = (options: NetworkOptions = {}): Either.Either<Settings | undefined, ConfigError> => {
  const proxy = options.proxy === false
    ? Either.right(undefined)
    : options.proxy !== undefined
    ? Either.map(proxyUrl(options.proxy, "proxy"), (url): Proxy => ({ _tag: "Explicit", url }))
    : Either.right(environmentProxy(options.proxyEnv ?? process.env))
  return Either.map(Either.all([proxy, certificates(options.ca)]), ([proxy, ca]) => settingsOf(proxy, ca))
}

/** The proxy a request to `url` goes to, when it goes to one (`NO_PROXY` aside). */
export const proxyFor = (proxy: Proxy, url: string): string | undefined =>
  proxy._tag === "Explicit"
    ? proxy.url
    : proxy._tag === "Invalid"
    ? undefined
    : url.startsWith("https:")
    ? proxy.https ?? proxy.http
    : proxy.http
