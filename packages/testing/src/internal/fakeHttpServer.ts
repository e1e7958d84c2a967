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
import type * as Api from "../FakeHttpServer.js"
import * as FakeServer from "../FakeServer.js"
import { makeFaults, MiB } from "./httpFaults.js"
import {
  accepts,
  acceptsGzip,
  dataLines,
  header,
  headersOf,
  idKey,
  idOf,
  isObject,
  type Message,
  methodOf,
  progressTokenOf
} from "./httpMessage.js"
import { jsonError, plain, sendJson } from "./httpResponse.js"
import { type EventStream, newStream, parseEventId, type Pending, type Session } from "./httpSession.js"
import { makeLegacySse } from "./legacySse.js"
import { openSse, type Sink } from "./sseSink.js"

const MAX_BODY = 16 * MiB
const MAX_POST_STREAMS = 64
const PROTOCOL_VERSIONS = new Set(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])

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
    const getSinks = new Set<Sink>()
    let foreignUrl = ""

    const faults = makeFaults(responseMode, () => foreignUrl)
    // Stalled POSTs, handled when released (unless their client went away).
    const stalled: Array<() => void> = []
    faults.set(options)
    const legacy = makeLegacySse({ fake, runtime, gzipFor, getSinks, offOrigin: faults.offOrigin })

    // --- Streamable HTTP events -----------------------------------------------------------------

    const eventId = (stream: EventStream, seq: number) => faults.hostileId() ?? `${stream.key}-${seq}`

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

    const postMcp = (
      hostile: boolean,
      req: Http.IncomingMessage,
      res: Http.ServerResponse,
      message: Message
    ) => {
      if (strictAccept && !(accepts(req, "application/json") && accepts(req, "text/event-stream"))) {
        return jsonError(res, 406, -32000, "Not Acceptable: accept both application/json and text/event-stream")
      }
      if (hostile && faults.shortCircuit(req, res, message, true)) return
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
      const isCut = hostile && responseMode === "sse" && faults.cut(method)
      const isDead = hostile && faults.dead(method)
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
      if (faults.retryZero() && sink.isOpen()) {
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

    const postRpc = (hostile: boolean, req: Http.IncomingMessage, res: Http.ServerResponse, message: Message) => {
      if (hostile && faults.shortCircuit(req, res, message, false)) return
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
      const isDead = hostile && faults.dead(method)
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
      if (hostile && method === "POST" && faults.status5xx()) {
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
          if (hostile && faults.stall(methodOf(message))) {
            let gone = false
            res.once("close", () => (gone = true))
            stalled.push(() => gone ? undefined : postMcp(hostile, req, res, message))
            return
          }
          return postMcp(hostile, req, res, message)
        }
        case "/sse":
          return method === "GET"
            ? legacy.open(hostile, req, res)
            : plain(res, 405, "Method Not Allowed", { allow: "GET" })
        case "/message": {
          if (method !== "POST") return plain(res, 405, "Method Not Allowed", { allow: "POST" })
          const message = parse()
          return message === undefined ? undefined : legacy.post(url, res, message)
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
        legacy.endAll(true)
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
        legacy.endAll(false)
      }),
      notify: (method, params) => fake.notify(method, params),
      cutGetStreams: Effect.sync(() => {
        for (const sink of [...getSinks]) sink.destroy()
        getSinks.clear()
      }),
      openGetStreams: Effect.sync(() => [...getSinks].filter((sink) => sink.isOpen()).length),
      openPostStreams: (method) =>
        Effect.sync(() => {
          let open = 0
          for (const session of new Set([...sessions.values(), globalSession, modernSession])) {
            for (const pending of session?.pending.values() ?? []) {
              if (pending.method === method && pending.stream?.sink?.isOpen() === true) open++
            }
          }
          return open
        }),
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
      setFaults: (next) => Effect.sync(() => faults.set(next))
    }
    return server
  })
