/**
 * Gemini CLI's `settings.json`: `mcpServers` where `url` is an HTTP+SSE endpoint and `httpUrl`
 * a Streamable HTTP one, `timeout` is in milliseconds, and `env` values may say `$NAME`.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type { Converted } from "./shared.js"
import { mapEntries, renamed } from "./shared.js"

/** `$NAME` (Gemini's shorthand) → `${NAME}`. */
const dollar = (value: unknown): unknown =>
  typeof value === "string" ? value.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => `\${${name}}`) : value

const expanded = (value: unknown): unknown =>
  Predicate.isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dollar(v)])) : value

/** Gemini's settings that only matter inside Gemini CLI (tool filters are another point). */
const DROPPED = ["timeout", "authProviderType", "oauth"]

const entry = (_name: string, raw: Record<string, unknown>, warn: (message: string) => void): unknown => {
  const out = renamed(raw, {}, DROPPED)
  if (raw.env !== undefined) out.env = expanded(raw.env)
  if (raw.headers !== undefined) out.headers = expanded(raw.headers)
  if (raw.httpUrl !== undefined && raw.url === undefined) {
    out.url = raw.httpUrl
    delete out.httpUrl
    out.type ??= "http"
  } else if (raw.url !== undefined && raw.httpUrl === undefined) {
    out.type ??= "sse"
  }
  if (typeof raw.timeout === "number") out.readTimeout = raw.timeout / 1000
  if (raw.oauth !== undefined || raw.authProviderType !== undefined) {
    warn("Gemini's oauth and authProviderType are not read: the server is connected without them")
  }
  return out
}

/**
 * A Gemini CLI document in the common shape.
 *
 * @internal
 */
export const convert = (document: Record<string, unknown>): Converted => {
  const warnings: Array<string> = []
  const servers = document.mcpServers ?? {}
  if (!Predicate.isRecord(servers)) return { document: { mcpServers: servers }, warnings }
  return { document: { mcpServers: mapEntries(servers, entry, warnings) }, warnings }
}
