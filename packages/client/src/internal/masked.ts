/**
 * A server's settings as a DEBUG line may show them: keys that name credentials (authorization,
 * cookies, tokens, secrets, passwords, API keys) masked, credentials in URLs (user info, query
 * parameters of such names) masked, functions and class instances named rather than walked,
 * depth and length bounded, control characters escaped.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { TransportKind } from "../ServerConfig.js"
import { escapeControl } from "./escape.js"

const SECRET_KEY = /authori[sz]ation|cookie|token|secret|passw(or)?d|api[-_]?key|credential|private[-_]?key|session/i
const MASK = "***"
const MAX_DEPTH = 4
const MAX_ITEMS = 32

/** A URL with its user info and credential-named query parameters masked. */
const maskUrl = (text: string): string => {
  if (!URL.canParse(text)) return text
  const url = new URL(text)
  if (url.username !== "" || url.password !== "") {
    url.username = MASK
    url.password = ""
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_KEY.test(key)) url.searchParams.set(key, MASK)
  }
  return url.href
}

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const maskValue = (value: unknown, depth: number): unknown => {
  if (typeof value === "string") return maskUrl(value)
  if (typeof value === "function") return "[function]"
  if (typeof value !== "object" || value === null) return value
  if (depth >= MAX_DEPTH) return "[…]"
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => maskValue(item, depth + 1))
  if (!isPlain(value)) return `[${value.constructor?.name ?? "object"}]`
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value).slice(0, MAX_ITEMS)) {
    if (inner === undefined) continue
    out[key] = SECRET_KEY.test(key) && inner !== null && inner !== "" ? MASK : maskValue(inner, depth + 1)
  }
  return out
}

/**
 * The settings as one line of JSON, credentials masked, safe to log.
 *
 * @internal
 */
export const describe = (settings: object): string => escapeControl(JSON.stringify(maskValue(settings, 0)))

/**
 * The DEBUG line a connection logs as it starts: its name, kind and masked settings (the caller
 * logs it only when DEBUG lines are logged, so nothing is computed otherwise).
 *
 * @internal
 */
export const logStart = (config: {
  readonly name: string
  readonly kind: TransportKind
  readonly describe?: (() => string) | undefined
}): Effect.Effect<void> =>
  Effect.logDebug(
    `${escapeControl(config.name, 200)}: connecting over ${config.kind}${
      config.describe === undefined ? "" : ` with ${config.describe()}`
    }`
  )
