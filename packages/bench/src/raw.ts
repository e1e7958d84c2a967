/**
 * The floor: hand-written JSON-RPC loops with nothing but a resolver per request id. Over stdio,
 * NDJSON on the child's pipes; over HTTP, undici's dispatcher API (what our client uses too:
 * `fetch` costs far more CPU per request). `era` picks 2025-11-25 (`initialize`) or 2026-07-28
 * (`server/discover` and the per-request `_meta` envelope, plus its HTTP headers).
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import type { Endpoint } from "./common.js"

/** @since 0.1.0 */
export type RawEra = "2025-11-25" | "2026-07-28"

/** @since 0.1.0 */
export interface RawSession {
  readonly era: string
  readonly request: (method: string, params: Record<string, unknown>) => Promise<unknown>
  readonly close: () => Promise<void>
}

const clientInfo = { name: "mcp-effect-bench-raw", version: "0.1.0" }

const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": clientInfo,
  "io.modelcontextprotocol/clientCapabilities": {}
}

const withMeta = (era: RawEra, params: Record<string, unknown>): Record<string, unknown> =>
  era === "2026-07-28" ? { ...params, _meta: envelope } : params

interface RpcMessage {
  readonly id?: unknown
  readonly result?: unknown
  readonly error?: { readonly message?: string }
}

const settle = (message: RpcMessage): unknown => {
  if (message.error !== undefined) throw new Error(message.error.message ?? "JSON-RPC error")
  return message.result
}

/** Opens a session and completes the era's handshake. @since 0.1.0 */
export const openRaw = (endpoint: Endpoint, era: RawEra): Promise<RawSession> =>
  endpoint.kind === "stdio" ? openStdio(endpoint, era) : openHttp(endpoint.url, era)

const openStdio = async (
  endpoint: Extract<Endpoint, { kind: "stdio" }>,
  era: RawEra
): Promise<RawSession> => {
  const child = spawn(endpoint.command, [...endpoint.args], { env: endpoint.env, stdio: ["pipe", "pipe", "ignore"] })
  const exited = once(child, "exit")
  const waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>()
  let buffered: Array<Buffer> = []
  const onLine = (line: string) => {
    const message = JSON.parse(line) as RpcMessage
    if (typeof message.id !== "number") return
    const waiter = waiting.get(message.id)
    if (waiter === undefined) return
    waiting.delete(message.id)
    try {
      waiter.resolve(settle(message))
    } catch (error) {
      waiter.reject(error as Error)
    }
  }
  child.stdout.on("data", (chunk: Buffer) => {
    let start = 0
    let newline = chunk.indexOf(10, start)
    while (newline !== -1) {
      buffered.push(chunk.subarray(start, newline))
      const line = buffered.length === 1 ? buffered[0]!.toString("utf8") : Buffer.concat(buffered).toString("utf8")
      buffered = []
      if (line.length > 0) onLine(line)
      start = newline + 1
      newline = chunk.indexOf(10, start)
    }
    if (start < chunk.length) buffered.push(chunk.subarray(start))
  })
  child.on("exit", (code) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`server exited with code ${code}`))
    waiting.clear()
  })
  child.stdin.on("error", () => {})
  let nextId = 1
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: withMeta(era, params) }) + "\n")
    })
  const close = async () => {
    child.stdin.end()
    await exited
  }
  try {
    if (era === "2026-07-28") {
      await request("server/discover", {})
    } else {
      await request("initialize", { protocolVersion: era, capabilities: {}, clientInfo })
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
    }
    return { era, request, close }
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
}

/** The JSON-RPC message of a response body: JSON, or (2025 era) the `data:` of an SSE event. */
const parseBody = (text: string, contentType: string): RpcMessage => {
  if (!contentType.includes("text/event-stream")) return JSON.parse(text) as RpcMessage
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) =>
      line.slice(line[5] === " " ? 6 : 5)
    ).join("\n")
    if (data.length === 0) continue
    const message = JSON.parse(data) as RpcMessage
    if (message.id !== undefined) return message
  }
  throw new Error("no JSON-RPC response in the SSE body")
}

const openHttp = async (url: string, era: RawEra): Promise<RawSession> => {
  // Loaded here, so that a stdio session (the first-contact one-shot) does not load undici.
  const { Agent } = await import("undici")
  const target = new URL(url)
  const origin = target.origin
  const path = target.pathname + target.search
  const agent = new Agent({ connections: 64 })
  const baseHeaders: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream"
  }
  let versionHeader: Record<string, string> = era === "2026-07-28" ? { "mcp-protocol-version": era } : {}
  let nextId = 1
  const post = async (message: Record<string, unknown>, extra: Record<string, string>) => {
    const response = await agent.request({
      origin,
      path,
      method: "POST",
      headers: { ...baseHeaders, ...versionHeader, ...extra },
      body: JSON.stringify(message)
    })
    const text = await response.body.text()
    if (response.statusCode === 202) return undefined
    const contentType = String(response.headers["content-type"] ?? "")
    if (text.length === 0) throw new Error(`HTTP ${response.statusCode} with an empty body`)
    return parseBody(text, contentType)
  }
  const request = async (method: string, params: Record<string, unknown>) => {
    const extra: Record<string, string> = era === "2026-07-28" ? { "mcp-method": method } : {}
    if (era === "2026-07-28" && (method === "tools/call" || method === "prompts/get")) {
      extra["mcp-name"] = String(params.name)
    }
    const message = await post({ jsonrpc: "2.0", id: nextId++, method, params: withMeta(era, params) }, extra)
    if (message === undefined) throw new Error(`${method}: HTTP 202 for a request`)
    return settle(message)
  }
  try {
    if (era === "2026-07-28") {
      await request("server/discover", {})
    } else {
      await request("initialize", { protocolVersion: era, capabilities: {}, clientInfo })
      versionHeader = { "mcp-protocol-version": era }
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, {})
    }
  } catch (error) {
    await agent.destroy()
    throw error
  }
  return { era, request, close: () => agent.close() }
}
