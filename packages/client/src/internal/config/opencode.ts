/**
 * OpenCode's `opencode.json(c)`: an `mcp` object of `local` (a command array) and `remote`
 * (a URL) servers, with `{env:NAME}` references.
 *
 * ```jsonc
 * { "mcp": {
 *   "docs": { "type": "local", "command": ["npx", "-y", "docs-server"], "environment": { "K": "v" } },
 *   "api": { "type": "remote", "url": "https://api.example.com/mcp", "headers": { "Authorization": "Bearer {env:TOKEN}" } }
 * } }
 * ```
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type { Converted } from "./shared.js"
import { mapEntries, renamed } from "./shared.js"

/** `{env:NAME}` → `${NAME}`; `{file:…}` is left as written, and reported. */
const references = (value: unknown, warn: (message: string) => void): unknown => {
  if (typeof value === "string") {
    if (/\{file:[^}]*\}/.test(value)) warn("{file:…} references are not read: the text is used as written")
    return value.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => `\${${name}}`)
  }
  if (Array.isArray(value)) return value.map((item) => references(item, warn))
  if (Predicate.isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, references(v, warn)]))
  }
  return value
}

const oauthOf = (value: unknown): unknown => {
  if (value === false || value === undefined) return undefined
  if (!Predicate.isRecord(value)) return value
  return renamed(value, {}, [])
}

const entry = (_name: string, written: Record<string, unknown>, warn: (message: string) => void): unknown => {
  const raw = references(written, warn) as Record<string, unknown>
  const out = renamed(raw, { environment: "env" }, ["type", "enabled", "command", "timeout", "oauth"])
  if (raw.enabled === false) out.disabled = true
  if (raw.type === "local") {
    out.type = "stdio"
    if (Array.isArray(raw.command)) {
      out.command = raw.command[0]
      out.args = raw.command.slice(1)
    } else {
      out.command = raw.command
    }
  } else if (raw.type === "remote") {
    out.type = "http"
    const oauth = oauthOf(raw.oauth)
    if (oauth !== undefined) out.oauth = oauth
  } else {
    out.type = raw.type
  }
  // OpenCode's `timeout` (milliseconds) bounds how long it waits for the server's answers.
  if (typeof raw.timeout === "number") out.readTimeout = raw.timeout / 1000
  return out
}

/**
 * Whether a document is OpenCode's: its `$schema`, or an `mcp` object whose entries are
 * `local` or `remote` (VS Code settings' `mcp` holds `servers`).
 *
 * @internal
 */
export const recognizes = (document: Record<string, unknown>): boolean =>
  (typeof document.$schema === "string" && document.$schema.includes("opencode.ai"))
  || (Predicate.isRecord(document.mcp) &&
    Object.values(document.mcp).some((entry) =>
      Predicate.isRecord(entry) && (entry.type === "local" || entry.type === "remote")
    ))

/**
 * An OpenCode document in the common shape.
 *
 * @internal
 */
export const convert = (document: Record<string, unknown>): Converted => {
  const warnings: Array<string> = []
  const servers = document.mcp ?? {}
  if (!Predicate.isRecord(servers)) return { document: { mcpServers: servers }, warnings }
  return { document: { mcpServers: mapEntries(servers, entry, warnings) }, warnings }
}
