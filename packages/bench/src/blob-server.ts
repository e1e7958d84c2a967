/**
 * A minimal stateless Streamable HTTP server for the large-result benchmark:
 * `node blob-server.js json|sse` listens on a free loopback port, prints `listening <port>`, and
 * answers `initialize` (2025-11-25), `tools/list` and `tools/call` of `echo` and `blob`
 * (`{ bytes }`: a text result of that many `x`), each reply as one JSON body or as one SSE
 * `message` event. `server/discover` is answered "method not found", so every client speaks
 * 2025-11-25. The server keeps its cost per call small (the payload string is built once per
 * size), so the benchmark measures the client.
 *
 * @since 0.2.0
 */
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"

const reply = process.argv[2] === "sse" ? "sse" : "json"
// `dual`: also answers 2026-07-28's `server/discover`, so the clients that probe speak that era.
const dual = process.argv[3] === "dual"
const MODERN = "2026-07-28"
const payloads = new Map<number, string>()

const tools = [
  {
    name: "echo",
    description: "Returns its message",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
  },
  {
    name: "blob",
    description: "Returns a text block of the requested size",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } } }
  }
]

type Answer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } }

const text = (s: string) => ({ content: [{ type: "text", text: s }] })

/** A 2026-07-28 request carries its version in `_meta`; its results say they are complete. */
const isModern = (params: Record<string, unknown>) =>
  (params._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/protocolVersion"] === MODERN

const answer = (method: string, params: Record<string, unknown>): Answer => {
  const result = (value: Record<string, unknown>): Answer => ({
    result: isModern(params) ? { ...value, resultType: "complete" } : value
  })
  switch (method) {
    case "server/discover":
      return dual
        ? result({
          supportedVersions: [MODERN, "2025-11-25"],
          capabilities: { tools: {} },
          serverInfo: { name: "bench-blob-server", version: "0.2.0" }
        })
        : { error: { code: -32601, message: `method not found: ${method}` } }
    case "initialize":
      return {
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "bench-blob-server", version: "0.2.0" }
        }
      }
    case "tools/list":
      return result({ tools })
    case "tools/call": {
      const args = (params.arguments ?? {}) as Record<string, unknown>
      if (params.name === "echo") return result(text(String(args.message)))
      if (params.name === "blob") {
        const bytes = Math.min(Number(args.bytes ?? 1024), 512 * 1024 * 1024)
        let payload = payloads.get(bytes)
        if (payload === undefined) {
          payload = "x".repeat(bytes)
          payloads.set(bytes, payload)
        }
        return result(text(payload))
      }
      return { error: { code: -32602, message: `unknown tool ${String(params.name)}` } }
    }
    case "ping":
      return result({})
    default:
      return { error: { code: -32601, message: `method not found: ${method}` } }
  }
}

const respond = (res: ServerResponse, body: string) => {
  if (reply === "sse") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    res.end(`event: message\ndata: ${body}\n\n`)
  } else {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(body)
  }
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" })
    res.end()
    return
  }
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
    readonly id?: string | number
    readonly method: string
    readonly params?: Record<string, unknown>
  }
  if (message.id === undefined) {
    res.writeHead(202)
    res.end()
    return
  }
  respond(res, JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer(message.method, message.params ?? {}) }))
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => {
    res.writeHead(400)
    res.end()
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : 0}\n`)
})
