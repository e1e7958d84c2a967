/**
 * A legacy HTTP+SSE server that floods its first client with requests: the endpoint event,
 * every request of the client answered on the stream (`initialize` with its result, any other
 * method with `{}`), and after the first `notifications/initialized` a burst of `roots/list`
 * (served by the client) and `elicitation/create` (not served), then `notifications/burst_done`.
 * Answer POSTs are counted (open now, most open at once, ids received) and complete at once,
 * or once `release` is called when the server starts `stalled`. `streamableFloodServer` is the
 * same over Streamable HTTP (JSON answers to POSTs, the burst on the first GET stream, and again
 * on the reply stream of each `tools/call`, ids `call-N`, before its result).
 */
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import type * as Net from "node:net"

interface Message {
  readonly id?: string | number
  readonly method?: unknown
  readonly params?: { readonly protocolVersion?: string }
}

/** The JSON body of a POST, once read. */
const readMessage = (req: Http.IncomingMessage, onMessage: (message: Message) => void) => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => onMessage(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message))
}

/** A flood server. */
export interface Flood {
  readonly url: string
  /** Answer POSTs open now, and at most so far, and the ids answered. */
  readonly answers: { open: number; max: number; readonly received: Set<string | number> }
  /** SSE streams opened, and closed by the client. */
  readonly streams: { opened: number; closed: number }
  /** Lets the stalled answer POSTs complete, and every later one at once. */
  readonly release: () => void
}

/**
 * The server in the current scope: `burst` requests, answers stalled until released if
 * `stalled`; over Streamable HTTP if `streamable`.
 */
export const floodServer = (burst: number, stalled: boolean, streamable = false) =>
  Effect.acquireRelease(
    Effect.async<Flood & { readonly server: Http.Server }>((resume) => {
      let released = !stalled
      const waiting: Array<() => void> = []
      const answers = { open: 0, max: 0, received: new Set<string | number>() }
      const streams = { opened: 0, closed: 0 }
      // An answer POST: counted, and completed at once or once released.
      const holdAnswer = (id: string | number, res: Http.ServerResponse) => {
        answers.received.add(id)
        answers.max = Math.max(answers.max, ++answers.open)
        const done = () => {
          answers.open--
          res.writeHead(202).end()
        }
        return released ? done() : void waiting.push(done)
      }
      const server = Http.createServer((req, res) => {
        if (req.method === "GET" && streamable) {
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
          res.on("close", () => streams.closed++)
          if (streams.opened++ > 0) return
          for (let id = 0; id < burst; id++) {
            const method = id % 2 === 0 ? "roots/list" : "elicitation/create"
            res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, method, params: {} })}\n\n`)
          }
          return
        }
        if (req.method === "GET") {
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
          streams.opened++
          const path = `/messages?stream=${streams.opened}`
          res.write(`event: endpoint\ndata: ${path}\n\n`)
          streamsByPath.set(path, res)
          res.on("close", () => streams.closed++)
          return
        }
        if (streamable) return void answerStreamable(req, res)
        const stream = streamsByPath.get(req.url ?? "")!
        const event = (message: object) => stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
        readMessage(req, (message) => {
          if (typeof message.method !== "string") return holdAnswer(message.id!, res)
          res.writeHead(202).end()
          if (message.method === "initialize") {
            event({
              jsonrpc: "2.0",
              id: message.id,
              result: {
                protocolVersion: message.params?.protocolVersion,
                capabilities: {},
                serverInfo: { name: "flood", version: "1" }
              }
            })
          } else if (
            message.method === "notifications/initialized" && stream === streamsByPath.get("/messages?stream=1")
          ) {
            for (let id = 0; id < burst; id++) {
              event({ jsonrpc: "2.0", id, method: id % 2 === 0 ? "roots/list" : "elicitation/create", params: {} })
            }
            event({ jsonrpc: "2.0", method: "notifications/burst_done" })
          } else if (message.id !== undefined) {
            event({ jsonrpc: "2.0", id: message.id, result: {} })
          }
        })
      })
      const streamsByPath = new Map<string, Http.ServerResponse>()
      const answerStreamable = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
        readMessage(req, (message) => {
          if (typeof message.method !== "string") return holdAnswer(message.id!, res)
          if (message.id === undefined) return void res.writeHead(202).end()
          if (message.method === "tools/call") {
            // The burst on the call's reply stream, then its result, then the stream's end.
            res.writeHead(200, { "content-type": "text/event-stream" })
            for (let id = 0; id < burst; id++) {
              const method = id % 2 === 0 ? "roots/list" : "elicitation/create"
              res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: `call-${id}`, method, params: {} })}\n\n`)
            }
            const result = { content: [{ type: "text", text: "done" }] }
            return void res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n\n`)
          }
          const result = message.method === "initialize"
            ? {
              protocolVersion: message.params?.protocolVersion,
              capabilities: {},
              serverInfo: { name: "flood", version: "1" }
            }
            : {}
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
        })
      }
      const release = () => {
        released = true
        for (const done of waiting.splice(0)) done()
      }
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as Net.AddressInfo
        const url = `http://127.0.0.1:${port}/${streamable ? "mcp" : "sse"}`
        resume(Effect.succeed({ server, url, answers, streams, release }))
      })
    }),
    ({ release, server }) =>
      Effect.async<void>((resume) => {
        release()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
