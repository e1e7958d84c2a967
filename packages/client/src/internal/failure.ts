/**
 * Why a connection failed, read off the low-level error once for every transport: the cause
 * chain (an `HttpClientError`'s `cause`, undici's errors, fetch's `TypeError("fetch failed")`,
 * an `AggregateError`'s `errors`) is walked for a known `code`, which gives the `reason` and a
 * short `detail` for the message (`ECONNREFUSED 127.0.0.1:3000`, `ENOTFOUND host`, the
 * certificate problem).
 *
 * @internal
 */
import type { ConnectionFailureReason } from "../McpError.js"
import { escapeControl } from "./escape.js"

/** @internal */
export interface Failure {
  /** Absent when no known code was found. */
  readonly reason?: ConnectionFailureReason | undefined
  /** One line, escaped and bounded; empty when the chain holds no message at all. */
  readonly detail: string
}

interface Node {
  readonly code?: unknown
  readonly message?: unknown
  readonly cause?: unknown
  readonly errors?: unknown
  readonly address?: unknown
  readonly port?: unknown
  readonly hostname?: unknown
}

const MAX_NODES = 32
const MAX_DETAIL = 300

/** The errors of a cause chain, outermost first (breadth first, bounded, cycles cut). */
const chain = (cause: unknown): ReadonlyArray<Node> => {
  const nodes: Array<Node> = []
  const queue: Array<unknown> = [cause]
  const seen = new Set<unknown>()
  while (queue.length > 0 && nodes.length < MAX_NODES) {
    const next = queue.shift()
    if (typeof next !== "object" || next === null || seen.has(next)) continue
    seen.add(next)
    const node = next as Node
    nodes.push(node)
    queue.push(node.cause)
    if (Array.isArray(node.errors)) queue.push(...node.errors.slice(0, 8))
  }
  return nodes
}

// Node's TLS errors and OpenSSL's certificate verification codes.
const TLS = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|EPROTO$)/
const TLS_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "INVALID_CA",
  "INVALID_PURPOSE",
  "PATH_LENGTH_EXCEEDED",
  "HOSTNAME_MISMATCH"
])

const REASONS: Record<string, ConnectionFailureReason> = {
  ECONNREFUSED: "refused",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_NONAME: "dns",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  UND_ERR_CLOSED: "reset",
  EPROXY: "proxy"
}

const reasonOf = (code: string): ConnectionFailureReason | undefined =>
  REASONS[code] ?? (TLS_CODES.has(code) || TLS.test(code) ? "tls" : undefined)

const codeOf = (node: Node): string | undefined => (typeof node.code === "string" ? node.code : undefined)

const messageOf = (node: Node): string => typeof node.message === "string" ? node.message.split("\n")[0]!.trim() : ""

const hostPort = (node: Node): string | undefined => {
  if (typeof node.address !== "string") return undefined
  const host = node.address.includes(":") ? `[${node.address}]` : node.address
  return typeof node.port === "number" ? `${host}:${node.port}` : host
}

/** `CODE: message`, without repeating the code, and without OpenSSL's own `…:error:…` text. */
const codeAndMessage = (code: string, node: Node): string => {
  const message = messageOf(node)
  if (message === "" || message.includes(":error:")) return code
  return message.includes(code) ? message : `${code}: ${message}`
}

const detailOf = (reason: ConnectionFailureReason, code: string, node: Node, nodes: ReadonlyArray<Node>): string => {
  switch (reason) {
    case "refused":
    case "timeout": {
      // Node tries each address of a name (IPv6 and IPv4 for localhost): each attempt is one error.
      const addresses = [...new Set(nodes.filter((n) => codeOf(n) === code).flatMap((n) => hostPort(n) ?? []))]
      return addresses.length > 0 ? `${code} ${addresses.join(", ")}` : codeAndMessage(code, node)
    }
    case "dns":
      return typeof node.hostname === "string" ? `${code} ${node.hostname}` : codeAndMessage(code, node)
    case "proxy":
      return messageOf(node) || code
    default:
      return codeAndMessage(code, node)
  }
}

/**
 * What a low-level failure says: its reason when a known code is in the chain, and a detail
 * for a message (the innermost message when no code is known).
 *
 * @internal
 */
export const classify = (cause: unknown): Failure => {
  const nodes = chain(cause)
  for (const node of nodes) {
    const code = codeOf(node)
    const reason = code === undefined ? undefined : reasonOf(code)
    if (reason !== undefined) {
      return { reason, detail: escapeControl(detailOf(reason, code!, node, nodes), MAX_DETAIL) }
    }
  }
  const coded = nodes.find((node) => codeOf(node) !== undefined)
  const innermost = [...nodes].reverse().find((node) => messageOf(node) !== "")
  const detail = coded !== undefined
    ? codeAndMessage(codeOf(coded)!, coded)
    : innermost === undefined
    ? ""
    : messageOf(innermost)
  return { detail: escapeControl(detail, MAX_DETAIL) }
}

/**
 * `prefix: detail`, or `prefix` alone when there is no detail.
 *
 * @internal
 */
export const withDetail = (prefix: string, failure: Failure): string =>
  failure.detail === "" ? prefix : `${prefix}: ${failure.detail}`
