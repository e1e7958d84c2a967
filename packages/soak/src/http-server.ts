/**
 * The soak's Streamable HTTP server (node:http on loopback, one era per process): faults on
 * `tools/call` chosen by `faults.ts` — connections dropped mid-response, 503 bursts, expired
 * sessions (404, 2025-11-25 only), stalls, garbage SSE events, duplicate and unsolicited
 * responses, JSON-RPC errors. Prints `listening PORT` on stdout once it accepts connections.
 *
 *   SOAK_ERA=2025-11-25|2026-07-28 SOAK_SEED=N SOAK_LOG=FILE node http-server.js
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import { garbage, unsolicited } from "./faults.js"
import type { Message } from "./protocol.js"
import { answer, receipts, respond, settingsFromEnv, tokenOf } from "./protocol.js"

const settings = settingsFromEnv("http")
const receive = receipts(settings)
const sessions = new Set<string>()
const legacy = settings.era === "2025-11-25"
/** Requests still to answer with 503 in the current burst. */
let burst = 0

const sse = (res: Http.ServerResponse, events: ReadonlyArray<string>) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.end(events.map((data) => `event: message\ndata: ${data}\n\n`).join(""))
}

const json = (res: Http.ServerResponse, status: number, body: string, headers: Http.OutgoingHttpHeaders = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(body)
}

/** Sends part of the answer, then destroys the socket. */
const drop = (res: Http.ServerResponse, line: string, asSse: boolean) => {
  const body = asSse ? `event: message\ndata: ${line}\n\n` : line
  res.writeHead(200, {
    "content-type": asSse ? "text/event-stream" : "application/json",
    ...(asSse ? {} : { "content-length": Buffer.byteLength(body) })
  })
  res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy())
}

const onToolCall = (res: Http.ServerResponse, message: Message & { id: string | number }, token: string) => {
  const line = respond(message.id, answer(settings.era, "tools/call", message.params as Record<string, unknown>))
  const { fault, random } = receive(token)
  const asSse = random() < 0.5
  switch (fault) {
    case "drop":
      return drop(res, line, asSse)
    case "burst5xx":
      burst = Math.floor(random() * 4)
      return json(res, 503, "{\"error\":\"injected 503\"}")
    case "expire":
      sessions.clear()
      return json(res, 404, "{\"error\":\"session expired\"}")
    case "stall":
      // Never answered; the socket goes when the client gives up (or after two minutes).
      res.socket?.setTimeout(120_000, () => res.socket?.destroy())
      return
    case "garbage":
      return sse(res, [...garbage(random), line])
    case "duplicate":
      return sse(res, [line, line])
    case "unsolicited":
      return sse(res, [...unsolicited(random, token), line])
    case "rpcError":
      return json(res, 200, respond(message.id, { error: { code: -32603, message: "injected failure" } }))
    default:
      return asSse ? sse(res, [line]) : json(res, 200, line)
  }
}

const onPost = (req: Http.IncomingMessage, res: Http.ServerResponse, body: string) => {
  if (burst > 0) {
    burst--
    return json(res, 503, "{\"error\":\"injected 503\"}")
  }
  let message: Message
  try {
    message = JSON.parse(body) as Message
  } catch {
    return json(res, 400, respond(0, { error: { code: -32700, message: "Parse error" } }))
  }
  const session = req.headers["mcp-session-id"]
  if (legacy && message.method === "initialize") {
    const id = Crypto.randomUUID()
    sessions.add(id)
    return json(res, 200, respond(message.id!, answer(settings.era, "initialize", {})), { "mcp-session-id": id })
  }
  if (legacy && (typeof session !== "string" || !sessions.has(session))) {
    return json(res, 404, "{\"error\":\"unknown session\"}")
  }
  if (message.id === undefined || typeof message.method !== "string") {
    res.writeHead(202).end()
    return
  }
  const token = tokenOf(message)
  if (token !== undefined) return onToolCall(res, message as Message & { id: string | number }, token)
  const params = (message.params ?? {}) as Record<string, unknown>
  return json(res, 200, respond(message.id, answer(settings.era, message.method, params)))
}

const server = Http.createServer((req, res) => {
  if (req.method === "DELETE") {
    const session = req.headers["mcp-session-id"]
    if (typeof session === "string") sessions.delete(session)
    res.writeHead(200).end()
    return
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST, DELETE" }).end()
    return
  }
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => onPost(req, res, Buffer.concat(chunks).toString("utf8")))
})

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : 0}\n`)
})
process.on("SIGTERM", () => process.exit(0))
