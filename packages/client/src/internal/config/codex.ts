/**
 * Codex's `config.toml`: `[mcp_servers.<name>]` tables, read by `smol-toml`.
 *
 * ```toml
 * [mcp_servers.docs]
 * command = "npx"
 * args = ["-y", "docs-server"]
 * env = { API_KEY = "…" }
 *
 * [mcp_servers.figma]
 * url = "https://mcp.figma.com/mcp"
 * bearer_token_env_var = "FIGMA_TOKEN"
 * ```
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Toml from "smol-toml"
import type { Converted } from "./shared.js"
import { mapEntries, renamed } from "./shared.js"

/**
 * Parses TOML; Left: what is wrong, and where.
 *
 * @internal
 */
export const parse = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(Toml.parse(text))
  } catch (error) {
    if (error instanceof Toml.TomlError) {
      const reason = error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "")
      return Either.left(`not valid TOML at line ${error.line}, column ${error.column}: ${reason}`)
    }
    return Either.left(`not valid TOML: ${String(error)}`)
  }
}

/** Codex settings that only matter inside Codex. */
const DROPPED = ["enabled", "enabled_tools", "disabled_tools", "startup_timeout_sec", "startup_timeout_ms"]

/** `NAME` → the header value `${NAME}` expands to, so a missing variable is reported by name. */
const fromVariables = (value: unknown, prefix = ""): unknown =>
  Predicate.isRecord(value)
    ? Object.fromEntries(Object.entries(value).map(([key, name]) => [key, `${prefix}\${${String(name)}}`]))
    : value

const entry = (_name: string, raw: Record<string, unknown>, warn: (message: string) => void): unknown => {
  const out = renamed(raw, { tool_timeout_sec: "readTimeout", http_headers: "headers" }, [
    ...DROPPED,
    "env_vars",
    "env_http_headers",
    "bearer_token_env_var"
  ])
  if (raw.enabled === false) out.disabled = true
  if (Array.isArray(raw.env_vars)) {
    // Passed through from Codex's own environment: here, from ours, when set.
    const passed = Object.fromEntries(raw.env_vars.map((name) => [String(name), `\${${String(name)}:-}`]))
    out.env = { ...passed, ...(Predicate.isRecord(raw.env) ? raw.env : {}) }
  }
  const headers = {
    ...(Predicate.isRecord(raw.http_headers) ? raw.http_headers : {}),
    ...(fromVariables(raw.env_http_headers) as Record<string, unknown> | undefined),
    ...(typeof raw.bearer_token_env_var === "string"
      ? { Authorization: `Bearer \${${raw.bearer_token_env_var}}` }
      : {})
  }
  if (Object.keys(headers).length > 0) out.headers = headers
  if (raw.startup_timeout_sec !== undefined || raw.startup_timeout_ms !== undefined) {
    warn("startup_timeout_sec is Codex's own: ignored")
  }
  return out
}

/**
 * A Codex document in the common shape.
 *
 * @internal
 */
export const convert = (document: Record<string, unknown>): Converted => {
  const warnings: Array<string> = []
  const servers = document.mcp_servers
  if (!Predicate.isRecord(servers)) {
    return { document: { mcpServers: servers ?? {} }, warnings }
  }
  return { document: { mcpServers: mapEntries(servers, entry, warnings) }, warnings }
}
