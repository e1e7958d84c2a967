/**
 * The MCP answers both soak servers give (one era per server process), the `echo` tool, and the
 * receipts log: one line per `tools/call` received, written synchronously before anything is
 * answered, so it survives a crash and the driver can count how often each token was received.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Fs from "node:fs"
import type { Era, Fault, TransportKind } from "./faults.js"
import { choose, excusesReissue, streamFor } from "./faults.js"

/** @since 0.1.0 */
export interface Settings {
  readonly era: Era
  readonly seed: number
  readonly transport: TransportKind
  /** Multiplies every fault's weight (`SOAK_FAULT_SCALE`, default 1; 0: no faults). */
  readonly scale: number
  /** The receipts log (appended to). */
  readonly log: string
}

/** Reads the settings a server process is started with (`SOAK_*` environment variables). */
export const settingsFromEnv = (transport: TransportKind): Settings => ({
  era: process.env.SOAK_ERA === "2026-07-28" ? "2026-07-28" : "2025-11-25",
  seed: Number(process.env.SOAK_SEED ?? "1"),
  transport,
  scale: Number(process.env.SOAK_FAULT_SCALE ?? "1"),
  log: process.env.SOAK_LOG ?? "/dev/null"
})

/** @since 0.1.0 */
export type Message =
  & { readonly jsonrpc: "2.0"; readonly id?: string | number; readonly method?: string }
  & Record<
    string,
    unknown
  >

/** @since 0.1.0 */
export type Answer = { readonly result: unknown } | { readonly error: { code: number; message: string } }

const MODERN = "2026-07-28"
const echoTool = {
  name: "echo",
  description: "Returns its token.",
  inputSchema: { type: "object", properties: { token: { type: "string" } }, required: ["token"] }
}

const modern = (era: Era, result: Record<string, unknown>) =>
  era === MODERN ? { resultType: "complete", ...result } : result

/** The answer to any request but `tools/call`'s faults. */
export const answer = (era: Era, method: string, params: Record<string, unknown>): Answer => {
  switch (method) {
    case "server/discover":
      return era === MODERN
        ? {
          result: modern(era, {
            supportedVersions: [MODERN],
            capabilities: { tools: {} },
            ttlMs: 3_600_000,
            cacheScope: "public",
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "soak", version: "0.1.0" } }
          })
        }
        : { error: { code: -32601, message: "Method not found" } }
    case "initialize":
      return era === MODERN
        ? { error: { code: -32022, message: "Unsupported protocol version" } }
        : {
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "soak", version: "0.1.0" }
          }
        }
    case "ping":
      return { result: modern(era, {}) }
    case "tools/list":
      return {
        result: modern(era, {
          tools: [echoTool],
          ...(era === MODERN ? { ttlMs: 3_600_000, cacheScope: "public" } : {})
        })
      }
    case "tools/call": {
      const args = Predicate.isRecord(params.arguments) ? params.arguments : {}
      return { result: modern(era, { content: [{ type: "text", text: String(args.token) }] }) }
    }
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } }
  }
}

/** The JSON-RPC response line for `message`. */
export const respond = (id: string | number, answered: Answer): string =>
  JSON.stringify({ jsonrpc: "2.0", id, ...answered })

/** The `tools/call` token of a message, if it is one. */
export const tokenOf = (message: Message): string | undefined => {
  if (message.method !== "tools/call" || !Predicate.isRecord(message.params)) return undefined
  const args = message.params.arguments
  return Predicate.isRecord(args) && typeof args.token === "string" ? args.token : undefined
}

/**
 * The receipts of one server process: counts tokens, picks each receipt's fault and logs it as
 * `token \t fault \t excuses-a-reissue`.
 */
export const receipts = (settings: Settings) => {
  const fd = Fs.openSync(settings.log, "a")
  const seen = new Map<string, number>()
  return (token: string): { readonly fault: Fault; readonly random: () => number } => {
    const n = (seen.get(token) ?? 0) + 1
    seen.set(token, n)
    const random = streamFor(settings.seed, token, n)
    const fault = choose(settings.transport, settings.era, random, settings.scale)
    const excused = excusesReissue(settings.transport, settings.era, fault) ? 1 : 0
    Fs.writeSync(fd, `${token}\t${fault}\t${excused}\n`)
    return { fault, random }
  }
}
