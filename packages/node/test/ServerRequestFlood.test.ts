/**
 * A legacy HTTP+SSE server that floods the client with requests over its stream while its answer
 * endpoint stalls: the client keeps a bounded number of answer POSTs open and bounded memory.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as V8 from "node:v8"
import * as Vm from "node:vm"

const BURST = 10_000

/** A full collection, then the heap in use (`--expose-gc` switched on at run time if need be). */
const heapUsed = (() => {
  V8.setFlagsFromString("--expose-gc")
  const gc = Vm.runInNewContext("gc") as () => void
  return () => {
    gc()
    return process.memoryUsage().heapUsed
  }
})()

interface Flood {
  readonly url: string
  /** Answer POSTs open now, and at most so far. */
  readonly answers: { open: number; max: number; received: Set<string | number> }
  /** Lets the stalled answer POSTs complete, and every later one at once. */
  readonly release: () => void
}

/**
 * Speaks just enough legacy HTTP+SSE: the endpoint event, `initialize` answered on the stream,
 * and after `notifications/initialized` a burst of `roots/list` (served by the client) and
 * `elicitation/create` (not served) requests, then `notifications/burst_done`.
 */
const floodServer = Effect.acquireRelease(
  Effect.async<Flood & { readonly server: Http.Server }>((resume) => {
    let stream: Http.ServerResponse | undefined
    let released = false
    const stalled: Array<() => void> = []
    const answers = { open: 0, max: 0, received: new Set<string | number>() }
    const event = (message: object) => stream!.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
    const server = Http.createServer((req, res) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
        res.write("event: endpoint\ndata: /messages\n\n")
        stream = res
        return
      }
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          readonly id?: string | number
          readonly method?: unknown
          readonly params?: { readonly protocolVersion?: string }
        }
        if (typeof message.method !== "string") {
          answers.received.add(message.id!)
          answers.max = Math.max(answers.max, ++answers.open)
          const done = () => {
            answers.open--
            res.writeHead(202).end()
          }
          return released ? done() : void stalled.push(done)
        }
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
        } else if (message.method === "notifications/initialized") {
          for (let id = 0; id < BURST; id++) {
            event({ jsonrpc: "2.0", id, method: id % 2 === 0 ? "roots/list" : "elicitation/create", params: {} })
          }
          event({ jsonrpc: "2.0", method: "notifications/burst_done" })
        } else if (message.id !== undefined) {
          event({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } })
        }
      })
    })
    const release = () => {
      released = true
      for (const done of stalled.splice(0)) done()
    }
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      resume(Effect.succeed({ server, url: `http://127.0.0.1:${port}/sse`, answers, release }))
    })
  }),
  ({ release, server }) =>
    Effect.async<void>((resume) => {
      release()
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

describe("a flood of server requests over legacy HTTP+SSE", () => {
  it.scopedLive("answers with at most 16 POSTs open and bounded memory while the answer endpoint stalls", () =>
    Effect.gen(function*() {
      const flood = yield* floodServer
      const burstDone = yield* Deferred.make<void>()
      const before = heapUsed()
      yield* ServerConnection.make(Sse.config({ name: "flood", url: flood.url }), {
        clientInfo: { name: "test", version: "1" },
        protocol: "legacy",
        handlers: { roots: [{ uri: "file:///work", name: "work" }] },
        onNotification: (_server, method) => {
          if (method === "notifications/burst_done") Deferred.unsafeDone(burstDone, Exit.void)
        }
      })
      // Every request of the burst has been read and answered, refused, queued or dropped.
      yield* Deferred.await(burstDone)
      const growth = heapUsed() - before
      assert.isAtMost(flood.answers.max, 16)
      assert.isBelow(growth, 64 * 1024 * 1024, `heap grew by ${(growth / 1024 / 1024).toFixed(1)} MiB`)
      // Once the endpoint drains, the accepted requests (the first 16 roots/list) get their answers.
      flood.release()
      while (![0, 2, 4, 30].every((id) => flood.answers.received.has(id))) yield* Effect.sleep("10 millis")
      assert.isAtMost(flood.answers.max, 16)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})
