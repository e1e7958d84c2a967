/**
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Zlib from "node:zlib"
import type * as Api from "../FakeHttpServer.js"
import * as FakeServer from "../FakeServer.js"

const KiB = 1024
const MiB = 1024 * KiB
const GiB = 1024 * MiB
const MAX_BODY = 16 * MiB
const MAX_POST_STREAMS = 64
const PROTOCOL_VERSIONS = new Set(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
const EVIL_ENDPOINT = "http://evil.example/message"

type JsonRpcId = string | number
type Message = Record<string, unknown>

const isObject = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)

const idOf = (m: Message): JsonRpcId | undefined =>
  typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined

const methodOf = (m: Message): string | undefined => typeof m.method === "string" ? m.method : undefined

const idKey = (id: JsonRpcId): string => typeof id === "number" ? `n${id}` : `s${id}`

const progressTokenOf = (m: Message): unknown => {
  const params = isObject(m.params) ? m.params : undefined
  const meta = params !== undefined && isObject(params._meta) ? params._meta : undefined
  return meta?.progressToken
}

const headersOf = (req: Http.IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const header = (req: Http.IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

const accepts = (req: Http.IncomingMessage, type: string): boolean =>
  (header(req, "accept") ?? "").toLowerCase().includes(type)

const acceptsGzip = (req: Http.IncomingMessage): boolean => /\bgzip\b/i.test(header(req, "accept-encoding") ?? "")

const dataLines = (text: string): string => text.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join("")

// ---------------------------------------------------------------------------------------------
// Plain responses
// ---------------------------------------------------------------------------------------------

const plain = (res: Http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

const sendJson = (
  res: Http.ServerResponse,
  status: number,
  value: unknown,
  options: { readonly gzip?: boolean; readonly dead?: boolean; readonly headers?: Record<string, string> } = {}
) => {
  if (res.headersSent || res.destroyed) return
  let body = Buffer.from(JSON.stringify(value), "utf8")
  const headers: Record<string, string | number> = { "content-type": "application/json", ...options.headers }
  if (options.gzip === true) {
    body = Zlib.gzipSync(body)
    headers["content-encoding"] = "gzip"
  }
  if (options.dead === true) {
    // Chunked, so destroying the socket leaves the body without its terminating chunk.
    res.writeHead(status, headers)
    res.write(body, () => res.destroy())
    return
  }
  headers["content-length"] = body.length
  res.writeHead(status, headers)
  res.end(body)
}

const jsonError = (
  res: Http.ServerResponse,
  status: number,
  code: number,
  message: string,
  extra: { readonly id?: JsonRpcId | undefined; readonly data?: unknown } = {}
) =>
  sendJson(res, status, {
    jsonrpc: "2.0",
    ...(extra.id !== undefined ? { id: extra.id } : {}),
    error: { code, message, ...("data" in extra ? { data: extra.data } : {}) }
  })

/** Writes chunks with backpressure until `next` runs out (then ends) or the client goes away. */
const pump = (res: Http.ServerResponse, next: () => Buffer | undefined) => {
  const loop = () => {
    while (!res.destroyed && !res.writableEnded) {
      const chunk = next()
      if (chunk === undefined) return res.end()
      if (!res.write(chunk)) return res.once("drain", loop)
    }
  }
  loop()
}

let bombMember: Buffer | undefined
// One gzip member inflating to 1 MiB of "0"; members concatenate into one valid gzip body.
const bombChunk = (): Buffer => (bombMember ??= Zlib.gzipSync(Buffer.alloc(MiB, 0x30), { level: 9 }))

const sendBomb = (res: Http.ServerResponse, id: JsonRpcId, sse: boolean, bytes: number) => {
  const prefix = `${sse ? "event: message\ndata: " : ""}{"jsonrpc":"2.0","id":${
    JSON.stringify(id)
  },"result":{"content":[{"type":"text","text":"`
  res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json", "content-encoding": "gzip" })
  res.write(Zlib.gzipSync(prefix))
  let left = bytes
  pump(res, () => {
    if (left <= 0) return undefined
    if (left >= MiB) {
      left -= MiB
      return bombChunk()
    }
    const last = Zlib.gzipSync(Buffer.alloc(left, 0x30))
    left = 0
    return last
  })
}

const sendUnterminated = (res: Http.ServerResponse, bytes: number) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.write("data: ")
  const chunk = Buffer.alloc(64 * KiB, 0x78)
  let left = bytes
  pump(res, () => {
    if (left <= 0) return undefined
    const size = Math.min(left, chunk.length)
    left -= size
    return size === chunk.length ? chunk : chunk.subarray(0, size)
  })
}

// ---------------------------------------------------------------------------------------------
// SSE sinks: one HTTP response carrying events, optionally gzipped
// ---------------------------------------------------------------------------------------------

interface Sink {
  readonly write: (text: string) => void
  readonly end: () => void
  readonly destroy: () => void
  /** Destroys the socket once everything written so far has been handed to the kernel. */
  readonly destroyAfterFlush: () => void
  readonly isOpen: () => boolean
  readonly onClose: (f: () => void) => void
}

const openSse = (res: Http.ServerResponse, gzip: boolean, headers: Record<string, string> = {}): Sink => {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...(gzip ? { "content-encoding": "gzip" } : {}),
    ...headers
  })
  res.flushHeaders()
  let ending = false
  let inFlight = 0
  let waiters: Array<() => void> = []
  const settled = () => {
    inFlight--
    if (inFlight === 0) {
      const ready = waiters
      waiters = []
      ready.forEach((f) => f())
    }
  }
  const whenDrained = (f: () => void) => (inFlight === 0 ? f() : waiters.push(f))
  const raw = (chunk: string | Buffer) => {
    if (res.destroyed || res.writableEnded) return
    inFlight++
    res.write(chunk, settled)
  }
  const isOpen = () => !ending && !res.destroyed && !res.writableEnded
  const gz = gzip ? Zlib.createGzip() : undefined
  if (gz !== undefined) {
    gz.on("data", raw)
    gz.on("end", () => {
      if (!res.destroyed) res.end()
    })
    gz.on("error", () => res.destroy())
  }
  const flushed = (f: () => void) =>
    gz === undefined ? whenDrained(f) : gz.flush(Zlib.constants.Z_SYNC_FLUSH, () => setImmediate(() => whenDrained(f)))
  return {
    write: (text) => {
      if (!isOpen()) return
      if (gz === undefined) return raw(text)
      gz.write(text)
      gz.flush(Zlib.constants.Z_SYNC_FLUSH)
    },
    end: () => {
      if (!isOpen()) return
      ending = true
      if (gz === undefined) res.end()
      else gz.end()
    },
    destroy: () => {
      ending = true
      res.destroy()
    },
    destroyAfterFlush: () => {
      if (!isOpen()) return
      ending = true
      flushed(() => res.destroy())
    },
    isOpen,
    onClose: (f) => res.on("close", f)
  }
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP state
// ---------------------------------------------------------------------------------------------

interface EventStream {
  /** `get` for the standalone GET stream, `r<n>` for the stream of the n-th SSE POST. */
  readonly key: string
  seq: number
  /** The highest seq written to a connection (undelivered events wait for the next GET). */
  delivered: number
  readonly history: Array<{ readonly seq: number; readonly text: string }>
  sink: Sink | undefined
  /** A POST stream whose response was emitted. */
  done: boolean
}

interface Pending {
  readonly method: string
  readonly token: unknown
  readonly stream: EventStream | undefined
  readonly json: ((message: Message) => void) | undefined
  readonly cut: boolean
  readonly dead: boolean
}

interface Session {
  readonly id: string | undefined
  readonly scope: Scope.CloseableScope
  connection: { readonly receive: (message: unknown) => void }
  readonly standalone: EventStream
  readonly streams: Map<string, EventStream>
  readonly pending: Map<string, Pending>
  readonly jsonWaiting: Set<Http.ServerResponse>
  nextStream: number
  current: Pending | undefined
  ended: boolean
}

interface LegacySession {
  readonly id: string
  readonly sink: Sink
  readonly scope: Scope.CloseableScope
  readonly connection: { readonly receive: (message: unknown) => void }
  ended: boolean
}

const newStream = (key: string): EventStream => ({
  key,
  seq: 0,
  delivered: 0,
  history: [],
  sink: undefined,
  done: false
})

const parseEventId = (id: string): { readonly key: string; readonly seq: number } | undefined => {
  const dash = id.lastIndexOf("-")
  if (dash <= 0) return undefined
  const seq = Number(id.slice(dash + 1))
  return Number.isInteger(seq) && seq >= 0 ? { key: id.slice(0, dash), seq } : undefined
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

interface Armed<A> {
  readonly settings: A
  readonly method: string
  readonly times: number
  used: number
}

const arm = <A extends Api.FaultScope>(value: boolean | A | undefined, defaults: A): Armed<A> | undefined => {
  if (value === undefined || value === false) return undefined
  const settings = value === true ? defaults : value
  return { settings, method: settings.method ?? "tools/call", times: settings.times ?? Infinity, used: 0 }
}

const fire = <A>(armed: Armed<A> | undefined, method: string | undefined): A | undefined => {
  if (armed === undefined) return undefined
  if (armed.method !== "*" && armed.method !== method) return undefined
  if (armed.used >= armed.times) return undefined
  armed.used++
  return armed.settings
}

type Status4xx = Exclude<Api.Faults["status4xx"], boolean | undefined>
type Sized = Api.FaultScope & { readonly bytes?: number | undefined }
type Redirect = Exclude<Api.Faults["redirect"], boolean | undefined>
type Unanswered = Exclude<Api.Faults["unansweredJson"], boolean | undefined>

const unansweredBody = (reply: Unanswered["reply"], id: JsonRpcId): string => {
  if (typeof reply === "object") return JSON.stringify({ jsonrpc: "2.0", id: reply.id, result: {} })
  switch (reply ?? "empty") {
    case "otherId":
      return JSON.stringify({ jsonrpc: "2.0", id: typeof id === "number" ? id + 1000 : `${id}-other`, result: {} })
    case "notifications":
      return JSON.stringify([1, 2].map((n) => ({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: `not the response (${n})` }
      })))
    default:
      return ""
  }
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

const listen = (handler: Http.RequestListener): Effect.Effect<Http.Server, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Http.Server>((resume) => {
      const server = Http.createServer(handler)
      server.once("error", (error) => resume(Effect.die(error)))
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const baseUrl = (server: Http.Server): string => `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`

/** @internal */
export const make = (options: Api.Options): Effect.Effect<Api.FakeHttpServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const fake = yield* FakeServer.make(options.definition)
    const runtime = yield* Effect.runtime<never>()
    const runSync = Runtime.runSync(runtime)
    const runFork = Runtime.runFork(runtime)

    const responseMode = options.responseMode ?? "sse"
    const useSessions = options.sessions ?? true
    const getStream = options.getStream ?? "sse"
    const historySize = Math.max(1, options.historySize ?? 100)
    const strictAccept = options.strictAccept ?? true
    const gzipFor = (req: Http.IncomingMessage) => options.gzip === true && acceptsGzip(req)

    const recorded: Array<Api.RecordedRequest> = []
    const abandoned: Array<Api.RecordedRequest> = []
    const sessions = new Map<string, Session>()
    let globalSession: Session | undefined
    // 2026-07-28 requests carry no session: they share one stateless connection to the fake.
    let modernSession: Session | undefined
    const legacySessions = new Map<string, LegacySession>()
    const getSinks = new Set<Sink>()
    let foreignUrl = ""

    // --- faults -------------------------------------------------------------------------------

    let status5xxLeft = 0
    let status4xx: Armed<Status4xx> | undefined
    let cut: Armed<Api.FaultScope> | undefined
    let dead: Armed<Api.FaultScope> | undefined
    let bomb: Armed<Sized> | undefined
    let unterminated: Armed<Sized> | undefined
    let redirect: Armed<Redirect> | undefined
    let stall: Armed<Api.FaultScope> | undefined
    let unanswered: Armed<Unanswered> | undefined
    // Stalled POSTs, handled when released (unless their client went away).
    const stalled: Array<() => void> = []
    let retryZero = false
    let hostileId: string | undefined
    let offOrigin: boolean | string = false

    const setFaults = (faults: Api.Faults) => {
      if ("status5xxTimes" in faults) status5xxLeft = faults.status5xxTimes ?? 0
      if ("status4xx" in faults) status4xx = arm(faults.status4xx, {})
      if ("cutAfterNotifications" in faults) cut = arm(faults.cutAfterNotifications, {})
      if ("deadSocketAfterResult" in faults) dead = arm(faults.deadSocketAfterResult, {})
      if ("gzipBomb" in faults) bomb = arm(faults.gzipBomb, {})
      if ("unterminatedEvent" in faults) unterminated = arm(faults.unterminatedEvent, {})
      if ("redirect" in faults) redirect = arm(faults.redirect, {})
      if ("stall" in faults) stall = arm(faults.stall, {})
      if ("unansweredJson" in faults) unanswered = arm(faults.unansweredJson, {})
      if ("retryZero" in faults) retryZero = faults.retryZero === true
      if ("longEventId" in faults) {
        const value = faults.longEventId
        hostileId = value === undefined || value === false
          ? undefined
          : value === true
          ? "e".repeat(10 * KiB)
          : value.id
      }
      if ("offOriginEndpoint" in faults) offOrigin = faults.offOriginEndpoint ?? false
    }
    setFaults(options)

    // --- Streamable HTTP events -----------------------------------------------------------------

    const eventId = (stream: EventStream, seq: number) => hostileId ?? `${stream.key}-${seq}`

    const record = (stream: EventStream, text: string) => {
      stream.history.push({ seq: stream.seq, text })
      if (stream.history.length > historySize) stream.history.shift()
    }

    const emit = (
      stream: EventStream,
      data: string,
      final?: { readonly cut: boolean; readonly dead: boolean }
    ) => {
      stream.seq++
      const text = `id: ${eventId(stream, stream.seq)}\nevent: message\n${dataLines(data)}\n`
      record(stream, text)
      if (final !== undefined) stream.done = true
      const sink = stream.sink
      if (sink === undefined || !sink.isOpen()) {
        stream.sink = undefined
        return
      }
      if (final?.cut === true) {
        stream.sink = undefined
        return sink.destroyAfterFlush()
      }
      sink.write(text)
      stream.delivered = stream.seq
      if (final !== undefined) {
        stream.sink = undefined
        if (final.dead) sink.destroyAfterFlush()
        else sink.end()
      }
    }

    const prime = (stream: EventStream) => {
      stream.seq++
      const text = `id: ${eventId(stream, stream.seq)}\ndata: \n\n`
      record(stream, text)
      if (stream.sink?.isOpen() === true) {
        stream.sink.write(text)
        stream.delivered = stream.seq
      }
    }

    const attach = (stream: EventStream, sink: Sink, after: number) => {
      for (const event of stream.history) {
        if (event.seq > after) sink.write(event.text)
      }
      stream.delivered = Math.max(stream.delivered, stream.seq)
      if (stream.done) return sink.end()
      stream.sink = sink
      sink.onClose(() => {
        if (stream.sink === sink) stream.sink = undefined
      })
    }

    const targetStream = (session: Session, message: Message | undefined): EventStream => {
      // A 2026-07-28 subscription's notifications go on its own listen request's stream.
      const meta = message !== undefined && isObject(message.params) && isObject(message.params._meta)
        ? message.params._meta
        : undefined
      const subscription = meta?.["io.modelcontextprotocol/subscriptionId"]
      if (typeof subscription === "string" || typeof subscription === "number") {
        const pending = session.pending.get(idKey(subscription))
        if (pending?.stream !== undefined && !pending.stream.done) return pending.stream
      }
      if (message !== undefined && message.method === "notifications/progress") {
        const token = isObject(message.params) ? message.params.progressToken : undefined
        if (token !== undefined) {
          for (const pending of session.pending.values()) {
            if (pending.stream !== undefined && !pending.stream.done && pending.token === token) return pending.stream
          }
        }
      }
      const current = session.current
      if (current?.stream !== undefined && !current.stream.done) return current.stream
      return session.standalone
    }

    const route = (session: Session, message: Message) => {
      const id = idOf(message)
      if (message.method === undefined && id !== undefined) {
        const pending = session.pending.get(idKey(id))
        if (pending !== undefined) {
          session.pending.delete(idKey(id))
          if (pending.stream !== undefined) {
            return emit(pending.stream, JSON.stringify(message), { cut: pending.cut, dead: pending.dead })
          }
          return pending.json?.(message)
        }
      }
      emit(targetStream(session, message), JSON.stringify(message))
    }

    const endSession = (session: Session, abrupt: boolean) => {
      if (session.ended) return
      session.ended = true
      if (session.id !== undefined) sessions.delete(session.id)
      if (globalSession === session) globalSession = undefined
      for (const stream of session.streams.values()) {
        const sink = stream.sink
        stream.sink = undefined
        if (abrupt) sink?.destroy()
        else sink?.end()
      }
      for (const res of session.jsonWaiting) {
        if (abrupt || res.headersSent) res.destroy()
        else jsonError(res, 404, -32001, "Session not found")
      }
      session.jsonWaiting.clear()
      session.pending.clear()
      runFork(Scope.close(session.scope, Exit.void))
    }

    const createSession = (): Session => {
      if (!useSessions && globalSession !== undefined) return globalSession
      const standalone = newStream("get")
      const session: Session = {
        id: useSessions ? Crypto.randomUUID() : undefined,
        scope: runSync(Scope.make()),
        connection: { receive: () => {} },
        standalone,
        streams: new Map([[standalone.key, standalone]]),
        pending: new Map(),
        jsonWaiting: new Set(),
        nextStream: 0,
        current: undefined,
        ended: false
      }
      session.connection = runSync(Scope.extend(
        fake.serve({
          send: (message) => {
            if (!session.ended && isObject(message)) route(session, message)
          },
          sendRaw: (text) => {
            if (!session.ended) emit(targetStream(session, undefined), text)
          },
          close: () => endSession(session, true)
        }),
        session.scope
      ))
      if (session.id !== undefined) sessions.set(session.id, session)
      else globalSession = session
      return session
    }

    const openPostStream = (session: Session): EventStream => {
      const stream = newStream(`r${++session.nextStream}`)
      session.streams.set(stream.key, stream)
      if (session.streams.size > MAX_POST_STREAMS + 1) {
        for (const [key, old] of session.streams) {
          if (old !== session.standalone && old.done && old.sink === undefined) session.streams.delete(key)
          if (session.streams.size <= MAX_POST_STREAMS + 1) break
        }
      }
      return stream
    }

    /** The request's session, or undefined after answering 400/404. */
    const findSession = (req: Http.IncomingMessage, res: Http.ServerResponse): Session | undefined => {
      if (!useSessions) return globalSession ?? createSession()
      if (header(req, "mcp-protocol-version") === "2026-07-28") {
        if (modernSession === undefined) {
          modernSession = createSession()
          if (modernSession.id !== undefined) sessions.delete(modernSession.id)
        }
        return modernSession
      }
      const id = header(req, "mcp-session-id")
      if (id === undefined) {
        jsonError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required")
        return undefined
      }
      const session = sessions.get(id)
      if (session === undefined && options.unknownSessionStatus === 400) {
        jsonError(res, 400, -32000, "Bad Request: No valid session ID provided")
      } else if (session === undefined) {
        jsonError(res, 404, -32001, "Session not found")
      }
      return session
    }

    const versionOk = (req: Http.IncomingMessage, res: Http.ServerResponse): boolean => {
      const version = header(req, "mcp-protocol-version")
      if (version === undefined || PROTOCOL_VERSIONS.has(version)) return true
      jsonError(res, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version}`)
      return false
    }

    // --- request handlers -----------------------------------------------------------------------

    /** Answers a matching short-circuiting fault; true when it did. */
    const shortCircuit = (
      req: Http.IncomingMessage,
      res: Http.ServerResponse,
      message: Message,
      sseAllowed: boolean
    ): boolean => {
      const method = methodOf(message)
      const id = idOf(message)
      const redirected = fire(redirect, method)
      if (redirected !== undefined) {
        res.writeHead(redirected.status ?? 307, { location: redirected.to ?? `${foreignUrl}${req.url ?? "/"}` })
        res.end()
        return true
      }
      const rejected = fire(status4xx, method)
      if (rejected !== undefined) {
        jsonError(res, rejected.status ?? 400, -32600, rejected.message ?? "Invalid Request (scripted)", {
          id,
          data: "data" in rejected ? rejected.data : { reason: "scripted status4xx" }
        })
        return true
      }
      if (id === undefined || method === undefined) return false
      const unansweredReply = fire(unanswered, method)
      if (unansweredReply !== undefined) {
        const body = unansweredBody(unansweredReply.reply, id)
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        res.end(body)
        return true
      }
      const bombed = fire(bomb, method)
      if (bombed !== undefined) {
        sendBomb(res, id, sseAllowed && responseMode === "sse", bombed.bytes ?? GiB)
        return true
      }
      if (sseAllowed) {
        const endless = fire(unterminated, method)
        if (endless !== undefined) {
          sendUnterminated(res, endless.bytes ?? 100 * MiB)
          return true
        }
      }
      return false
    }

    const postMcp = (
      hostile: boolean,
      req: Http.IncomingMessage,
      res: Http.ServerResponse,
      message: Message
    ) => {
      if (strictAccept && !(accepts(req, "application/json") && accepts(req, "text/event-stream"))) {
        return jsonError(res, 406, -32000, "Not Acceptable: accept both application/json and text/event-stream")
      }
      if (hostile && shortCircuit(req, res, message, true)) return
      const method = methodOf(message)
      const id = idOf(message)
      const initializing = method === "initialize" && id !== undefined
      const session = initializing ? createSession() : findSession(req, res)
      if (session === undefined) return
      if (!initializing && !versionOk(req, res)) return
      if (id === undefined || method === undefined) {
        res.writeHead(202).end()
        return session.connection.receive(message)
      }
      const sessionHeader: Record<string, string> = initializing && session.id !== undefined
        ? { "mcp-session-id": session.id }
        : {}
      const isCut = hostile && responseMode === "sse" && fire(cut, method) !== undefined
      const isDead = hostile && fire(dead, method) !== undefined
      let pending: Pending
      if (responseMode === "sse") {
        const stream = openPostStream(session)
        attach(stream, openSse(res, gzipFor(req), sessionHeader), 0)
        if (options.primeEvents === true) prime(stream)
        pending = { method, token: progressTokenOf(message), stream, json: undefined, cut: isCut, dead: isDead }
      } else {
        session.jsonWaiting.add(res)
        res.on("close", () => session.jsonWaiting.delete(res))
        const gzip = gzipFor(req)
        pending = {
          method,
          token: progressTokenOf(message),
          stream: undefined,
          json: (response) => {
            session.jsonWaiting.delete(res)
            sendJson(res, 200, response, { gzip, dead: isDead, headers: sessionHeader })
          },
          cut: false,
          dead: isDead
        }
      }
      session.pending.set(idKey(id), pending)
      // Messages the fake sends while handling this synchronously belong to this request.
      session.current = pending
      session.connection.receive(message)
      session.current = undefined
    }

    const getMcp = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
      if (getStream !== "sse") {
        return plain(
          res,
          getStream,
          Http.STATUS_CODES[getStream] ?? "",
          getStream === 405 ? { allow: "POST, DELETE" } : {}
        )
      }
      if (strictAccept && !accepts(req, "text/event-stream")) {
        return jsonError(res, 406, -32000, "Not Acceptable: accept text/event-stream")
      }
      const session = findSession(req, res)
      if (session === undefined || !versionOk(req, res)) return
      const lastEventId = header(req, "last-event-id")
      let stream: EventStream
      let after: number
      if (lastEventId !== undefined) {
        const parsed = parseEventId(lastEventId)
        const found = parsed === undefined ? undefined : session.streams.get(parsed.key)
        if (parsed === undefined || found === undefined) {
          return jsonError(res, 400, -32000, "Bad Request: unknown Last-Event-ID")
        }
        found.sink?.end()
        found.sink = undefined
        stream = found
        after = parsed.seq
      } else {
        if (session.standalone.sink?.isOpen() === true) {
          return jsonError(res, 409, -32000, "Conflict: only one GET stream per session")
        }
        stream = session.standalone
        after = stream.delivered
      }
      const sink = openSse(res, gzipFor(req))
      getSinks.add(sink)
      sink.onClose(() => getSinks.delete(sink))
      attach(stream, sink, after)
      if (retryZero && sink.isOpen()) {
        sink.write(`id: ${eventId(stream, stream.seq)}\nretry: 0\ndata: \n\n`)
        if (stream.sink === sink) stream.sink = undefined
        sink.end()
      }
    }

    const deleteMcp = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
      if (!useSessions) return plain(res, 405, "Method Not Allowed", { allow: "GET, POST" })
      const session = findSession(req, res)
      if (session === undefined) return
      endSession(session, false)
      res.writeHead(200).end()
    }

    const endLegacy = (legacy: LegacySession, abrupt: boolean) => {
      if (legacy.ended) return
      legacy.ended = true
      legacySessions.delete(legacy.id)
      if (abrupt) legacy.sink.destroy()
      else legacy.sink.end()
      runFork(Scope.close(legacy.scope, Exit.void))
    }

    const openLegacy = (hostile: boolean, req: Http.IncomingMessage, res: Http.ServerResponse) => {
      const id = Crypto.randomUUID()
      const sink = openSse(res, gzipFor(req))
      getSinks.add(sink)
      const endpoint = hostile && offOrigin !== false
        ? (offOrigin === true ? `${EVIL_ENDPOINT}?sessionId=${id}` : offOrigin)
        : `/message?sessionId=${id}`
      sink.write(`event: endpoint\ndata: ${endpoint}\n\n`)
      const scope = runSync(Scope.make())
      const connection = runSync(Scope.extend(
        fake.serve({
          send: (message) => sink.write(`event: message\n${dataLines(JSON.stringify(message))}\n`),
          sendRaw: (text) => sink.write(`event: message\n${dataLines(text)}\n`),
          close: () => endLegacy(legacy, true)
        }),
        scope
      ))
      const legacy: LegacySession = { id, sink, scope, connection, ended: false }
      legacySessions.set(id, legacy)
      sink.onClose(() => {
        getSinks.delete(sink)
        endLegacy(legacy, true)
      })
    }

    const postLegacy = (url: URL, res: Http.ServerResponse, message: Message) => {
      const id = url.searchParams.get("sessionId")
      if (id === null) return jsonError(res, 400, -32000, "Bad Request: sessionId is required")
      const legacy = legacySessions.get(id)
      if (legacy === undefined) return jsonError(res, 404, -32001, "Session not found")
      plain(res, 202, "Accepted")
      legacy.connection.receive(message)
    }

    const postRpc = (hostile: boolean, req: Http.IncomingMessage, res: Http.ServerResponse, message: Message) => {
      if (hostile && shortCircuit(req, res, message, false)) return
      const id = idOf(message)
      const method = methodOf(message)
      const scope = runSync(Scope.make())
      let finished = false
      const finish = () => {
        if (finished) return
        finished = true
        runFork(Scope.close(scope, Exit.void))
      }
      if (id === undefined || method === undefined) {
        res.writeHead(202).end()
        runSync(Scope.extend(fake.serve({ send: () => {}, sendRaw: () => {}, close: () => {} }), scope)).receive(
          message
        )
        return finish()
      }
      const isDead = hostile && fire(dead, method) !== undefined
      const gzip = gzipFor(req)
      res.on("close", finish)
      const connection = runSync(Scope.extend(
        fake.serve({
          send: (sent) => {
            if (isObject(sent) && sent.method === undefined && sent.id === id) {
              sendJson(res, 200, sent, { gzip, dead: isDead })
              finish()
            }
          },
          sendRaw: () => {},
          close: () => {
            res.destroy()
            finish()
          }
        }),
        scope
      ))
      connection.receive(message)
    }

    const handle = (hostile: boolean, req: Http.IncomingMessage, res: Http.ServerResponse, text: string) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1")
      const method = req.method ?? "GET"
      if (hostile && method === "POST" && status5xxLeft > 0) {
        status5xxLeft--
        return plain(res, 503, "Service Unavailable (scripted)")
      }
      const parse = (): Message | undefined => {
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {
          jsonError(res, 400, -32700, "Parse error")
          return undefined
        }
        if (!isObject(body)) jsonError(res, 400, -32600, "Invalid Request: one JSON-RPC message per POST")
        return isObject(body) ? body : undefined
      }
      switch (url.pathname) {
        case "/mcp": {
          if (method === "GET") return getMcp(req, res)
          if (method === "DELETE") return deleteMcp(req, res)
          if (method !== "POST") return plain(res, 405, "Method Not Allowed", { allow: "GET, POST, DELETE" })
          const message = parse()
          if (message === undefined) return
          if (hostile && fire(stall, methodOf(message)) !== undefined) {
            let gone = false
            res.once("close", () => (gone = true))
            stalled.push(() => gone ? undefined : postMcp(hostile, req, res, message))
            return
          }
          return postMcp(hostile, req, res, message)
        }
        case "/sse":
          return method === "GET"
            ? openLegacy(hostile, req, res)
            : plain(res, 405, "Method Not Allowed", { allow: "GET" })
        case "/message": {
          if (method !== "POST") return plain(res, 405, "Method Not Allowed", { allow: "POST" })
          const message = parse()
          return message === undefined ? undefined : postLegacy(url, res, message)
        }
        case "/rpc": {
          if (method !== "POST") return plain(res, 405, "Method Not Allowed", { allow: "POST" })
          const message = parse()
          return message === undefined ? undefined : postRpc(hostile, req, res, message)
        }
        default:
          return plain(res, 404, "Not Found")
      }
    }

    const handler = (origin: "main" | "foreign"): Http.RequestListener => (req, res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      req.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size <= MAX_BODY) chunks.push(chunk)
      })
      req.on("error", () => res.destroy())
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: unknown
        try {
          body = text.length > 0 ? JSON.parse(text) : undefined
        } catch {
          body = undefined
        }
        const entry: Api.RecordedRequest = {
          origin,
          method: req.method ?? "GET",
          path: req.url ?? "/",
          headers: headersOf(req),
          body,
          text
        }
        recorded.push(entry)
        res.once("close", () => {
          if (!res.writableFinished) abandoned.push(entry)
        })
        if (size > MAX_BODY) return plain(res, 413, "Payload Too Large")
        handle(origin === "main", req, res, text)
      })
    }

    const main = yield* listen(handler("main"))
    const foreign = yield* listen(handler("foreign"))
    foreignUrl = baseUrl(foreign)
    const url = baseUrl(main)

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const session of [...sessions.values(), ...(globalSession !== undefined ? [globalSession] : [])]) {
          endSession(session, true)
        }
        for (const legacy of [...legacySessions.values()]) endLegacy(legacy, true)
      })
    )

    const server: Api.FakeHttpServer = {
      url,
      mcpUrl: `${url}/mcp`,
      sseUrl: `${url}/sse`,
      rpcUrl: `${url}/rpc`,
      foreignUrl,
      fake,
      requests: Effect.sync(() => [...recorded]),
      abandoned: Effect.sync(() => [...abandoned]),
      expireSessions: Effect.sync(() => {
        for (const session of [...sessions.values(), ...(globalSession !== undefined ? [globalSession] : [])]) {
          endSession(session, false)
        }
        for (const legacy of [...legacySessions.values()]) endLegacy(legacy, false)
      }),
      notify: (method, params) => fake.notify(method, params),
      cutGetStreams: Effect.sync(() => {
        for (const sink of [...getSinks]) sink.destroy()
        getSinks.clear()
      }),
      openGetStreams: Effect.sync(() => [...getSinks].filter((sink) => sink.isOpen()).length),
      cutPostStreams: (method) =>
        Effect.sync(() => {
          const all = [...sessions.values(), globalSession, modernSession]
          for (const session of new Set(all)) {
            for (const pending of session?.pending.values() ?? []) {
              const sink = pending.stream?.sink
              if (pending.method !== method || sink === undefined) continue
              pending.stream!.sink = undefined
              sink.destroy()
            }
          }
        }),
      releaseStalled: Effect.sync(() => stalled.splice(0).forEach((handle) => handle())),
      setFaults: (faults) => Effect.sync(() => setFaults(faults))
    }
    return server
  })
