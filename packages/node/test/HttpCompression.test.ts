/**
 * Compressed replies through a client that decodes bodies itself (`FetchHttpClient`) and one that
 * hands them over as sent (`UndiciHttpClient`): plain, gzip and multi-member gzip servers, JSON
 * and SSE replies, both eras, and gzip bombs. The servers are real: the fake MCP server behind a
 * node:http front that compresses its replies with zlib.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { assert, describe, it } from "@effect/vitest"
import { ResponseTooLargeError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import { connect } from "@mcp-effect/node/Connect"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Zlib from "node:zlib"

const MiB = 1024 * 1024

/**
 * What the front does to the fake server's replies, when the request's `Accept-Encoding` lists
 * gzip: nothing, gzip (one member, flushed per chunk so SSE events go out as they come), or every
 * chunk as two gzip members. `"bomb"` answers a `tools/call` with a multi-member gzip bomb (the
 * rest passes through as with `"plain"`).
 */
type Mode = "plain" | "gzip" | "members" | "bomb"

interface Received {
  readonly method: string
  readonly rpc: string | undefined
  readonly acceptEncoding: string | undefined
}

interface Bomb {
  closed: boolean
  finished: boolean
}

interface Front {
  readonly url: string
  readonly received: Array<Received>
  /** Replies sent compressed. */
  readonly encoded: { count: number }
  readonly bombs: Array<Bomb>
}

// Headers of one hop only, never forwarded.
const HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length", "accept-encoding"])

const forwarded = (headers: Http.IncomingHttpHeaders): Http.OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP.has(name)))

const rpcOf = (body: Buffer): { readonly method?: unknown; readonly id?: unknown } | undefined => {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"))
    return typeof value === "object" && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

// One gzip member inflating to 1 MiB of "0": 1 KiB or so on the wire.
const bombMember = Zlib.gzipSync(Buffer.alloc(MiB, 0x30), { level: 9 })
// 16 GiB once inflated: far more than any cap, and than a client would inflate during a test.
const BOMB_MEMBERS = 16 * 1024

/** Answers with a bomb, writing with backpressure until it is all sent or the client goes away. */
const sendBomb = (res: Http.ServerResponse, id: unknown, sse: boolean, record: Bomb) => {
  res.on("close", () => {
    record.closed = true
    record.finished = res.writableFinished
  })
  res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json", "content-encoding": "gzip" })
  const prefix = `${sse ? "event: message\ndata: " : ""}{"jsonrpc":"2.0","id":${
    JSON.stringify(id)
  },"result":{"content":[{"type":"text","text":"`
  res.write(Zlib.gzipSync(prefix))
  let left = BOMB_MEMBERS
  const pump = () => {
    while (!res.destroyed) {
      if (left-- === 0) return res.end()
      if (!res.write(bombMember)) return res.once("drain", pump)
    }
  }
  pump()
}

/** Writes the upstream reply's chunks to `res` as `mode` says, ending `res` with it. */
const encoder = (res: Http.ServerResponse, mode: "gzip" | "members") => {
  if (mode === "members") {
    return {
      write: (chunk: Buffer) => {
        const half = chunk.length >> 1
        if (half > 0) res.write(Zlib.gzipSync(chunk.subarray(0, half)))
        res.write(Zlib.gzipSync(chunk.subarray(half)))
      },
      end: () => res.end()
    }
  }
  const gzip = Zlib.createGzip()
  gzip.on("data", (chunk: Buffer) => res.write(chunk))
  gzip.on("end", () => res.end())
  return {
    write: (chunk: Buffer) => {
      gzip.write(chunk)
      gzip.flush(Zlib.constants.Z_SYNC_FLUSH)
    },
    end: () => gzip.end()
  }
}

/** A node:http front for `upstream` that compresses its replies as `mode` says. */
const front = (upstream: FakeHttpServer.FakeHttpServer, mode: Mode, sse: boolean) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly front: Front }>((resume) => {
      const target = new URL(upstream.mcpUrl)
      const received: Array<Received> = []
      const encoded = { count: 0 }
      const bombs: Array<Bomb> = []
      const server = Http.createServer((req, res) => {
        const parts: Array<Buffer> = []
        req.on("data", (part: Buffer) => parts.push(part))
        req.on("end", () => {
          const body = Buffer.concat(parts)
          const rpc = rpcOf(body)
          const acceptEncoding = req.headers["accept-encoding"]
          received.push({
            method: req.method!,
            rpc: typeof rpc?.method === "string" ? rpc.method : undefined,
            acceptEncoding
          })
          if (mode === "bomb" && rpc?.method === "tools/call") {
            const record = { closed: false, finished: false }
            bombs.push(record)
            return sendBomb(res, rpc.id, sse, record)
          }
          const out = Http.request(
            {
              host: target.hostname,
              port: target.port,
              path: req.url,
              method: req.method,
              headers: forwarded(req.headers)
            },
            (reply) => {
              const type = reply.headers["content-type"] ?? ""
              const compress = mode !== "plain" && /\bgzip\b/.test(acceptEncoding ?? "") &&
                (type.startsWith("application/json") || type.startsWith("text/event-stream"))
              const headers = forwarded(reply.headers)
              if (compress) {
                encoded.count++
                headers["content-encoding"] = "gzip"
              }
              res.writeHead(reply.statusCode!, headers)
              // An SSE stream's headers go out at once, as the fake server sends them.
              res.flushHeaders()
              const sink = compress
                ? encoder(res, mode === "members" ? "members" : "gzip")
                : { write: (chunk: Buffer) => res.write(chunk), end: () => res.end() }
              reply.on("data", sink.write)
              reply.on("end", sink.end)
            }
          )
          out.on("error", () => res.destroy())
          res.on("close", () => {
            if (!res.writableFinished) out.destroy()
          })
          out.end(body)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, front: { url: `http://127.0.0.1:${port}/mcp`, received, encoded, bombs } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ front }) => front))

type Era = "2026-07-28" | "2025-11-25"
type Client = "fetch" | "undici"

/** What the fetch client was handed: whether any request carried an `Accept-Encoding` of ours. */
interface FetchSpy {
  readonly acceptEncodings: Array<string>
  readonly requests: { count: number }
}

const fetchLayer = (spy: FetchSpy) =>
  FetchHttpClient.layer.pipe(
    Layer.provide(Layer.succeed(FetchHttpClient.Fetch, (input, init) => {
      spy.requests.count++
      const given = new Headers(init?.headers).get("accept-encoding")
      if (given !== null) spy.acceptEncodings.push(given)
      return globalThis.fetch(input, init)
    }))
  )

const clientLayer = (client: Client, spy: FetchSpy) => client === "fetch" ? fetchLayer(spy) : UndiciHttpClient.layer

const setUp = (
  era: Era,
  responseMode: "json" | "sse",
  mode: Mode,
  extra: Partial<StreamableHttp.Options> = {}
) =>
  Effect.gen(function*() {
    const upstream = yield* FakeHttpServer.make({
      definition: { ...Scenarios.demo, era: era === "2026-07-28" ? "modern" : "legacy" },
      responseMode
    })
    const server = yield* front(upstream, mode, responseMode === "sse")
    const connection = yield* ServerConnection.make(
      StreamableHttp.config({ name: "compressed", url: server.url, retries: 0, ...extra }),
      {
        clientInfo: { name: "test", version: "1" },
        onNotification: () => {},
        protocol: era === "2026-07-28" ? "modern" : "legacy"
      }
    )
    return { server, connection }
  })

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const quiet = Logger.withMinimumLogLevel(LogLevel.Error)

/** Polls until `check` holds (the test's timeout bounds the wait). */
const eventually = (check: () => boolean) =>
  Effect.gen(function*() {
    while (!check()) yield* Effect.sleep("20 millis")
  })

const eras: ReadonlyArray<Era> = ["2026-07-28", "2025-11-25"]
const clients: ReadonlyArray<Client> = ["fetch", "undici"]

/**
 * The runtimes a case is not for: on Bun the undici client is Bun's fetch, which asks for its own
 * codings; Deno's fetch decodes only the first gzip member (and so a bomb of many members is cut
 * short, not refused: the client's own inflater refuses it, on every runtime, in the undici cases).
 */
const tagOf = (client: Client, mode: Mode) =>
  client === "undici"
    ? " [not-on-bun: Bun's fetch asks for its own codings (br, zstd)]"
    : mode === "members" || mode === "bomb"
    ? " [not-on-deno: Deno's fetch decodes only the first gzip member]"
    : ""

describe("compressed replies", () => {
  for (const client of clients) {
    for (const era of eras) {
      for (const responseMode of ["json", "sse"] as const) {
        for (const mode of ["plain", "gzip", "members"] as const) {
          it.scopedLive(`${client}, ${era}, ${responseMode} replies, ${mode}${tagOf(client, mode)}`, () => {
            const spy: FetchSpy = { acceptEncodings: [], requests: { count: 0 } }
            return Effect.gen(function*() {
              const { connection, server } = yield* setUp(era, responseMode, mode)
              const echoed = yield* connection.callTool("echo", { message: "héllo ".repeat(2000) })
              assert.strictEqual(text(echoed), "héllo ".repeat(2000))
              const progress: Array<number> = []
              if (responseMode === "sse") {
                // Several events on one compressed stream, each handled as it comes.
                const done = yield* connection.callTool("progress", { steps: 3, delayMs: 1 }, {
                  onProgress: (p) => progress.push(p.progress)
                })
                assert.strictEqual(text(done), "done after 3 steps")
                assert.deepStrictEqual(progress, [1, 2, 3])
              }
              assert.includeMembers((yield* connection.listTools()).map((tool) => tool.name), ["echo", "add"])

              const rpcs = server.received.map((r) => r.rpc)
              assert.strictEqual(rpcs.includes("initialize"), era === "2025-11-25")
              const calls = server.received.filter((r) => r.rpc === "tools/call")
              // Either client asks for gzip: fetch on its own, the undici client because it inflates.
              for (const call of calls) assert.match(call.acceptEncoding ?? "", /\bgzip\b/)
              if (mode === "plain") assert.strictEqual(server.encoded.count, 0)
              else assert.isAtLeast(server.encoded.count, calls.length)
              if (client === "fetch") {
                assert.isAbove(spy.requests.count, 0)
                assert.deepStrictEqual(spy.acceptEncodings, [], "no Accept-Encoding of ours through fetch")
              } else {
                for (const call of calls) assert.strictEqual(call.acceptEncoding, "gzip, deflate")
              }
            }).pipe(Effect.provide(clientLayer(client, spy)), quiet)
          })
        }
      }
    }
  }

  for (const client of clients) {
    for (const responseMode of ["json", "sse"] as const) {
      it.scopedLive(`${client}: a gzip bomb in a ${responseMode} reply fails with ResponseTooLargeError${tagOf(client, "bomb")}`, () => {
        const spy: FetchSpy = { acceptEncodings: [], requests: { count: 0 } }
        return Effect.gen(function*() {
          const { connection, server } = yield* setUp("2026-07-28", responseMode, "bomb", {
            maxDecompressedBodyBytes: MiB
          })
          const error = yield* Effect.flip(connection.callTool("echo", { message: "boom" }))
          assert.instanceOf(error, ResponseTooLargeError)
          assert.strictEqual(error.limit, MiB)
          // The body was abandoned, not read (nor inflated) to its end.
          yield* eventually(() => server.bombs.length === 1 && server.bombs[0]!.closed)
          assert.isFalse(server.bombs[0]!.finished)
          // The connection goes on.
          assert.includeMembers((yield* connection.listTools()).map((tool) => tool.name), ["echo"])
        }).pipe(Effect.provide(clientLayer(client, spy)), quiet)
      })
    }
  }

  for (const client of clients) {
    it.scopedLive(`${client}: the legacy HTTP+SSE stream, gzip'd${tagOf(client, "gzip")}`, () => {
      const spy: FetchSpy = { acceptEncodings: [], requests: { count: 0 } }
      return Effect.gen(function*() {
        // The fake server gzips the stream when asked to.
        const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, gzip: true })
        const connection = yield* ServerConnection.make(
          Sse.config({ name: "legacy", url: server.sseUrl }),
          { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
        )
        assert.strictEqual(text(yield* connection.callTool("echo", { message: "streamed" })), "streamed")
        const [stream] = (yield* server.requests).filter((r) => r.method === "GET")
        assert.match(stream!.headers["accept-encoding"] ?? "", /\bgzip\b/)
        if (client === "fetch") assert.deepStrictEqual(spy.acceptEncodings, [])
        else assert.strictEqual(stream!.headers["accept-encoding"], "gzip, deflate")
      }).pipe(Effect.provide(clientLayer(client, spy)), quiet)
    })
  }

  it.scopedLive("connect (the Node facade) asks for gzip and inflates multi-member SSE replies [not-on-bun: Bun's fetch asks for its own codings (br, zstd)]", () =>
    Effect.gen(function*() {
      const upstream = yield* FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "sse" })
      const server = yield* front(upstream, "members", true)
      const client = yield* Effect.acquireRelease(
        Effect.promise(() => connect(server.url, { transport: "streamable_http" })),
        (client) => Effect.promise(() => client.close())
      )
      const sum = yield* Effect.promise(() => client.callTool("add", { a: 2, b: 3 }))
      assert.deepStrictEqual(sum.structuredContent, { sum: 5 })
      const calls = server.received.filter((r) => r.rpc === "tools/call")
      assert.deepStrictEqual(calls.map((r) => r.acceptEncoding), ["gzip, deflate"])
      assert.isAtLeast(server.encoded.count, 1)
    }).pipe(quiet))

  it.scopedLive("middleware over the undici client: bodies are still inflated, and asked compressed [not-on-bun: Bun's fetch asks for its own codings (br, zstd)]", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* setUp("2025-11-25", "json", "gzip", {
        httpClient: (base) => base.pipe(HttpClient.mapRequest(HttpClientRequest.setHeader("x-through", "middleware")))
      })
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "wrapped" })), "wrapped")
      const calls = server.received.filter((r) => r.rpc === "tools/call")
      assert.deepStrictEqual(calls.map((r) => r.acceptEncoding), ["gzip, deflate"])
      assert.isAtLeast(server.encoded.count, 1)
    }).pipe(Effect.provide(UndiciHttpClient.layer), quiet))

  it.scopedLive("a fetch client given in place of the undici one is not asked for compression", () => {
    const spy: FetchSpy = { acceptEncodings: [], requests: { count: 0 } }
    return Effect.gen(function*() {
      const fetchClient = yield* Effect.provide(HttpClient.HttpClient, fetchLayer(spy))
      const { connection, server } = yield* setUp("2026-07-28", "sse", "gzip", { httpClient: () => fetchClient })
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "fetched" })), "fetched")
      assert.isAbove(spy.requests.count, 0)
      assert.deepStrictEqual(spy.acceptEncodings, [])
      assert.isAtLeast(server.encoded.count, 1)
    }).pipe(Effect.provide(UndiciHttpClient.layer), quiet)
  })
})
