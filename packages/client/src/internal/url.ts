/**
 * Which strings are URLs, and which URLs an HTTP transport can use: a string that names another
 * scheme (`ftp://`, `ws://`, a typo such as `htps://`) or a malformed http(s) URL is refused,
 * never run as a command nor sent to.
 *
 * @internal
 */
import { ConfigError } from "../McpError.js"

// A scheme of two letters or more, so a Windows drive (`C://…`) is never one.
const SCHEME = /^([a-z][a-z0-9+.-]+):\/\//i
// `http:` / `https:` without `//` is a mistyped URL, never a command.
const HTTP_PREFIX = /^https?:/i

/**
 * Whether a target string is meant as a URL (and so never a command line).
 *
 * @internal
 */
export const looksLikeUrl = (text: string): boolean => SCHEME.test(text) || HTTP_PREFIX.test(text)

/**
 * A URL for messages: no credentials, query or fragment, at most 200 characters, quoted and
 * escaped (it may hold spaces or control characters).
 *
 * @internal
 */
export const shown = (url: string): string => {
  // The text as typed (a parsed URL would be normalised), without what may hold a secret.
  const bare = url.trim().replace(/[?#][^]*$/, "").replace(/^([^:/]*:\/\/)[^/]*@/, "$1")
  return JSON.stringify(bare.length > 200 ? `${bare.slice(0, 200)}…` : bare)
}

/** The edit distance of two short words, a transposition counting as one edit. */
const distance = (a: string, b: string): number => {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

const hintFor = (scheme: string): string => {
  if (scheme === "ws" || scheme === "wss") return "; MCP has no WebSocket transport: use the server's http(s) URL"
  const near = ["https", "http"].find((known) => distance(scheme, known) <= 1)
  return near === undefined ? "" : `; did you mean ${near}://?`
}

/**
 * Why `url` cannot be an HTTP transport's URL (a message naming it without credentials), or
 * `undefined` when it is an http(s) URL with a host.
 *
 * @internal
 */
export const httpUrlProblem = (url: string): string | undefined => {
  const scheme = SCHEME.exec(url.trim())?.[1]?.toLowerCase()
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") {
    return `${shown(url)}: unsupported URL scheme "${scheme}:" (only http:// and https://)${hintFor(scheme)}`
  }
  if (scheme === undefined || !URL.canParse(url.trim()) || new URL(url.trim()).host === "") {
    return `${shown(url)}: not a valid http:// or https:// URL`
  }
  return undefined
}

/**
 * The `ConfigError` of a URL an HTTP transport cannot use, or `undefined`.
 *
 * @internal
 */
export const httpUrlError = (url: string): ConfigError | undefined => {
  const problem = httpUrlProblem(url)
  return problem === undefined ? undefined : new ConfigError({ message: problem })
}
