/**
 * Zed's `settings.json`: `context_servers`, each a custom command (`command` and `args`, or
 * the older `command: { path, args, env }`), a remote `url`, or one an extension provides.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type { Converted } from "./shared.js"
import { renamed } from "./shared.js"

/** Zed-only fields: the extension's settings, and where the entry came from. */
const DROPPED = ["source", "settings", "enabled"]

const entry = (raw: Record<string, unknown>): Record<string, unknown> => {
  const out = renamed(raw, {}, DROPPED)
  if (raw.enabled === false) out.disabled = true
  if (Predicate.isRecord(raw.command)) {
    const command = raw.command
    out.command = command.path
    if (command.args !== undefined) out.args = command.args
    if (command.env !== undefined) out.env = command.env
  }
  return out
}

/**
 * Whether a document is Zed's settings.
 *
 * @internal
 */
export const recognizes = (document: Record<string, unknown>): boolean =>
  document.context_servers !== undefined && document.mcpServers === undefined && document.servers === undefined

/**
 * A Zed document in the common shape; servers an extension provides are left out (Zed runs
 * them from the extension's code).
 *
 * @internal
 */
export const convert = (document: Record<string, unknown>): Converted => {
  const warnings: Array<string> = []
  const servers = document.context_servers
  if (!Predicate.isRecord(servers)) return { document: { mcpServers: servers }, warnings }
  const mcpServers: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(servers)) {
    const fromExtension = Predicate.isRecord(raw)
      && (raw.source === "extension" || (raw.command === undefined && raw.url === undefined && "settings" in raw))
    if (fromExtension) {
      warnings.push(`server "${name}": provided by a Zed extension, which only Zed can run: left out`)
    } else {
      mcpServers[name] = Predicate.isRecord(raw) ? entry(raw) : raw
    }
  }
  return { document: { mcpServers }, warnings }
}
