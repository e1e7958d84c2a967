import { assert, describe, it } from "@effect/vitest"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

// A plain fetch client, so the fake is tested without the transports it is meant to test.

interface SseEvent {
  readonly id: string | undefined
  readonly event: string | undefined
  readonly data: string
  readonly retry: string | undefined
}

/** A minimal SSE parser: every block with at least one field is an event, empty data included. */
class SseReader {
  private buffer = ""
  private readonly decoder = new TextDecoder()
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  constructor(response: Response) {
    this.reader = response.body!.getReader()
  }
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n")
      if (end !== -1) {
        const block = this.buffer.slice(0, end)
        this.buffer = this.buffer.slice(end + 2)
        const fields = new Map<string, string>()
        for (const line of block.split("\n")) {
          const colon = line.indexOf(":")
          if (colon === 0) continue
          const name = colon === -1 ? line : line.slice(0, colon)
          const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
          fields.set(name, name === "data" && fields.has("data") ? `${fields.get("data")}\n${value}` : value)
        }
        if (fields.size === 0) continue
        return {
          id: fields.get("id"),
          event: fields.get("event"),
          data: fields.get("data") ?? "",
          retry: fields.get("retry")
        }
      }
      const { done, value } = await this.reader.read()
      if (done) return undefined
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }
  cancel(): Promise<void> {
    return this.reader.cancel()
  }
}

const fetchEither = (url: string, init: RequestInit = {}) =>
  Effect.either(Effect.tryPromise({ try: (signal) => fetch(url, { ...init, signal }), catch: (error) => error }))

const http = (url: string, init: RequestInit = {}) =>
  Effect.flatMap(
    fetchEither(url, init),
    Either.match({
      onLeft: (error) => Effect.die(error),
      onRight: Effect.succeed
    })
  )

const ACCEPT = "application/json, text/event-stream"

const post = (url: string, message: object, headers: Record<string, string> = {}) =>
  http(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(message)
  })

const next = (reader: SseReader) => Effect.promise(() => reader.next())
const nextEither = (reader: SseReader) => Effect.either(Effect.tryPromise(() => reader.next()))

const readAll = (response: Response) =>
  Effect.gen(function*() {
    const reader = new SseReader(response)
    const events: Array<SseEvent> = []
    for (;;) {
      const event = yield* next(reader)
      if (event === undefined) return events
      events.push(event)
    }
  })

const json = (response: Response) => Effect.promise(() => response.json() as Promise<Record<string, unknown>>)
const text = (response: Response) => Effect.promise(() => response.text())

const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params
})
const initialize = request(1, "initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "test", version: "1" }
})
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const echo = (id: number, message: string) => request(id, "tools/call", { name: "echo", arguments: { message } })
const progress = (id: number, steps: number) =>
  request(id, "tools/call", { name: "progress", arguments: { steps, delayMs: 5 }, _meta: { progressToken: `p${id}` } })

const bounded = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.timeout(self, "20 seconds")

/** Initializes a Streamable HTTP session (SSE mode) and returns the headers to send afterwards. */
const connect = (server: FakeHttpServer.FakeHttpServer) =>
  Effect.gen(function*() {
    const response = yield* post(server.mcpUrl, initialize)
    const sessionId = response.headers.get("mcp-session-id")!
    const body = response.headers.get("content-type")!.startsWith("application/json")
      ? yield* json(response)
      : JSON.parse((yield* readAll(response)).find((event) => event.data !== "")!.data)
    assert.strictEqual(body.result.serverInfo.name, "mcp-effect-demo")
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }
    const accepted = yield* post(server.mcpUrl, initialized, headers)
    assert.strictEqual(accepted.status, 202)
    return headers
  })

const openGet = (server: FakeHttpServer.FakeHttpServer, headers: Record<string, string>) =>
  http(server.mcpUrl, { headers: { accept: "text/event-stream", ...headers } })

describe("FakeHttpServer: Streamable HTTP", () => {
  it.scopedLive("initialize and tools/call answer over SSE with a session id and per-stream event ids", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const init = yield* post(server.mcpUrl, initialize)
      assert.strictEqual(init.status, 200)
      assert.strictEqual(init.headers.get("content-type"), "text/event-stream")
      const sessionId = init.headers.get("mcp-session-id")
      assert.isString(sessionId)
      const initEvents = yield* readAll(init)
      assert.deepStrictEqual(initEvents.map((e) => [e.id, e.event]), [["r1-1", "message"]])
      assert.strictEqual(JSON.parse(initEvents[0]!.data).id, 1)

      const headers = { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-11-25" }
      const accepted = yield* post(server.mcpUrl, initialized, headers)
      assert.strictEqual(accepted.status, 202)
      assert.strictEqual(yield* text(accepted), "")

      const call = yield* post(server.mcpUrl, progress(2, 3), headers)
      const events = yield* readAll(call)
      assert.deepStrictEqual(events.map((e) => e.id), ["r2-1", "r2-2", "r2-3", "r2-4"])
      const messages = events.map((e) => JSON.parse(e.data))
      assert.deepStrictEqual(messages.slice(0, 3).map((m) => [m.method, m.params.progressToken, m.params.progress]), [
        ["notifications/progress", "p2", 1],
        ["notifications/progress", "p2", 2],
        ["notifications/progress", "p2", 3]
      ])
      assert.deepStrictEqual(messages[3], {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "done after 3 steps" }] }
      })

      const recorded = yield* server.requests
      assert.deepStrictEqual(recorded.map((r) => [r.method, r.path]), [["POST", "/mcp"], ["POST", "/mcp"], [
        "POST",
        "/mcp"
      ]])
      assert.strictEqual(recorded[2]!.headers["mcp-session-id"], sessionId)
      assert.deepStrictEqual(recorded[2]!.body, progress(2, 3))
    })))

  it.scopedLive("a notification the tool sends while handling the call goes on the call's stream", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const headers = yield* connect(server)
      const call = yield* post(
        server.mcpUrl,
        request(2, "tools/call", { name: "log", arguments: { level: "info", data: "hi" } }),
        headers
      )
      const messages = (yield* readAll(call)).map((e) => JSON.parse(e.data))
      assert.deepStrictEqual(messages.map((m) => m.method ?? m.id), ["notifications/message", 2])
    })))

  it.scopedLive("json mode answers application/json; progress goes to the GET stream", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json" })
      const headers = yield* connect(server)
      const get = yield* openGet(server, headers)
      assert.strictEqual(get.status, 200)
      const reader = new SseReader(get)

      const call = yield* post(server.mcpUrl, echo(2, "hello"), headers)
      assert.strictEqual(call.headers.get("content-type"), "application/json")
      assert.deepStrictEqual(yield* json(call), {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "hello" }] }
      })

      const slow = yield* post(server.mcpUrl, progress(3, 2), headers)
      assert.strictEqual((yield* json(slow)).id, 3)
      const first = yield* next(reader)
      const second = yield* next(reader)
      assert.deepStrictEqual([first!.id, second!.id], ["get-1", "get-2"])
      assert.deepStrictEqual(JSON.parse(second!.data).params, {
        progressToken: "p3",
        progress: 2,
        total: 2,
        message: "step 2 of 2"
      })
    })))

  it.scopedLive("requires the session id (400), 404 after expireSessions, 404 after DELETE", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json" })
      const headers = yield* connect(server)
      assert.strictEqual((yield* post(server.mcpUrl, echo(2, "x"))).status, 400)
      assert.strictEqual((yield* post(server.mcpUrl, echo(3, "x"), headers)).status, 200)
      yield* server.expireSessions
      const expired = yield* post(server.mcpUrl, echo(4, "x"), headers)
      assert.strictEqual(expired.status, 404)
      assert.strictEqual((yield* json(expired)).error !== undefined, true)

      const fresh = yield* connect(server)
      assert.notStrictEqual(fresh["mcp-session-id"], headers["mcp-session-id"])
      const deleted = yield* http(server.mcpUrl, { method: "DELETE", headers: fresh })
      assert.strictEqual(deleted.status, 200)
      assert.strictEqual((yield* post(server.mcpUrl, echo(5, "x"), fresh)).status, 404)
    })))

  it.scopedLive("without sessions, no Mcp-Session-Id is issued or required", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json", sessions: false })
      const init = yield* post(server.mcpUrl, initialize)
      assert.isNull(init.headers.get("mcp-session-id"))
      const call = yield* post(server.mcpUrl, echo(2, "free"))
      assert.strictEqual((yield* json(call)).id, 2)
    })))

  it.scopedLive("an unsupported MCP-Protocol-Version header is a 400; a missing Accept type is a 406", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json" })
      const headers = yield* connect(server)
      const bad = yield* post(server.mcpUrl, echo(2, "x"), { ...headers, "mcp-protocol-version": "1999-01-01" })
      assert.strictEqual(bad.status, 400)
      const notAcceptable = yield* post(server.mcpUrl, echo(3, "x"), { ...headers, accept: "application/json" })
      assert.strictEqual(notAcceptable.status, 406)
    })))

  for (const status of [405, 404, 406] as const) {
    it.scopedLive(`GET answers ${status} when configured so`, () =>
      bounded(Effect.gen(function*() {
        const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, getStream: status })
        const headers = yield* connect(server)
        const get = yield* openGet(server, headers)
        assert.strictEqual(get.status, status)
      })))
  }

  it.scopedLive("notify reaches the GET stream; after cutGetStreams, Last-Event-ID replays what was missed", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const headers = yield* connect(server)
      const reader = new SseReader(yield* openGet(server, headers))
      assert.strictEqual(yield* server.openGetStreams, 1)
      assert.strictEqual((yield* openGet(server, headers)).status, 409)

      yield* server.notify("notifications/tools/list_changed")
      const first = (yield* next(reader))!
      assert.strictEqual(first.id, "get-1")
      assert.strictEqual(JSON.parse(first.data).method, "notifications/tools/list_changed")

      yield* server.cutGetStreams
      assert.isTrue(Either.isLeft(yield* nextEither(reader)))
      yield* server.notify("notifications/resources/list_changed")
      yield* server.notify("notifications/prompts/list_changed")

      const resumed = new SseReader(yield* openGet(server, { ...headers, "last-event-id": "get-1" }))
      const replayed = [(yield* next(resumed))!, (yield* next(resumed))!]
      assert.deepStrictEqual(replayed.map((e) => [e.id, JSON.parse(e.data).method]), [
        ["get-2", "notifications/resources/list_changed"],
        ["get-3", "notifications/prompts/list_changed"]
      ])
      const gets = (yield* server.requests).filter((r) => r.method === "GET")
      assert.deepStrictEqual(gets.map((r) => r.headers["last-event-id"]), [undefined, undefined, "get-1"])
    })))

  it.scopedLive("notifications sent while no GET stream is open wait for the next one", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const headers = yield* connect(server)
      yield* server.notify("notifications/tools/list_changed")
      const reader = new SseReader(yield* openGet(server, headers))
      assert.strictEqual(JSON.parse((yield* next(reader))!.data).method, "notifications/tools/list_changed")
    })))

  it.scopedLive("primeEvents starts POST streams with an id and empty data", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, primeEvents: true })
      const headers = yield* connect(server)
      const events = yield* readAll(yield* post(server.mcpUrl, echo(2, "x"), headers))
      assert.deepStrictEqual(events.map((e) => [e.id, e.data === "" ? "" : JSON.parse(e.data).id]), [
        ["r2-1", ""],
        ["r2-2", 2]
      ])
    })))

  it.scopedLive("gzip compresses JSON bodies and SSE streams for clients accepting it", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, gzip: true })
      const headers = yield* connect(server)
      const sse = yield* post(server.mcpUrl, progress(2, 2), { ...headers, "accept-encoding": "gzip" })
      assert.strictEqual(sse.headers.get("content-encoding"), "gzip")
      assert.strictEqual((yield* readAll(sse)).length, 3)
      const plain = yield* post(server.mcpUrl, echo(3, "x"), { ...headers, "accept-encoding": "identity" })
      assert.isNull(plain.headers.get("content-encoding"))
      const rpc = yield* post(server.rpcUrl, echo(4, "zipped"), { "accept-encoding": "gzip" })
      assert.strictEqual(rpc.headers.get("content-encoding"), "gzip")
      assert.strictEqual((yield* json(rpc)).id, 4)
    })))

  it.scopedLive("a crashing tool destroys the call's stream and ends the session", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const headers = yield* connect(server)
      const call = yield* post(server.mcpUrl, request(2, "tools/call", { name: "crash", arguments: {} }), headers)
      assert.isTrue(Either.isLeft(yield* nextEither(new SseReader(call))))
      assert.strictEqual((yield* post(server.mcpUrl, echo(3, "x"), headers)).status, 404)
    })))
})

describe("FakeHttpServer: legacy HTTP+SSE", () => {
  it.scopedLive("GET /sse announces the endpoint; POSTs there get 202 and answers come on the stream", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const reader = new SseReader(yield* http(server.sseUrl, { headers: { accept: "text/event-stream" } }))
      const endpoint = (yield* next(reader))!
      assert.strictEqual(endpoint.event, "endpoint")
      assert.match(endpoint.data, /^\/message\?sessionId=[0-9a-f-]+$/)
      const messageUrl = new URL(endpoint.data, server.sseUrl).href

      const accepted = yield* post(messageUrl, initialize)
      assert.strictEqual(accepted.status, 202)
      const answer = (yield* next(reader))!
      assert.strictEqual(answer.event, "message")
      assert.strictEqual(JSON.parse(answer.data).result.serverInfo.name, "mcp-effect-demo")

      yield* post(messageUrl, echo(2, "legacy"))
      assert.deepStrictEqual(JSON.parse((yield* next(reader))!.data).result.content, [{ type: "text", text: "legacy" }])
      yield* server.notify("notifications/tools/list_changed")
      assert.strictEqual(JSON.parse((yield* next(reader))!.data).method, "notifications/tools/list_changed")

      yield* server.expireSessions
      assert.isUndefined(yield* next(reader))
      assert.strictEqual((yield* post(messageUrl, echo(3, "x"))).status, 404)
    })))

  it.scopedLive("offOriginEndpoint points the endpoint event at another origin", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, offOriginEndpoint: true })
      const reader = new SseReader(yield* http(server.sseUrl))
      assert.match((yield* next(reader))!.data, /^http:\/\/evil\.example\/message\?sessionId=/)
    })))
})

describe("FakeHttpServer: plain JSON-RPC over HTTP", () => {
  it.scopedLive("/rpc answers each request with one JSON response and notifications with 202", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const init = yield* post(server.rpcUrl, initialize, { accept: "application/json" })
      assert.strictEqual(init.headers.get("content-type"), "application/json")
      assert.strictEqual((yield* json(init)).id, 1)
      assert.strictEqual((yield* post(server.rpcUrl, initialized)).status, 202)
      const call = yield* post(server.rpcUrl, request(2, "tools/call", { name: "add", arguments: { a: 2, b: 3 } }))
      assert.deepStrictEqual((yield* json(call)).result, {
        content: [{ type: "text", text: "5" }],
        structuredContent: { sum: 5 }
      })
      const parseError = yield* http(server.rpcUrl, { method: "POST", body: "{nope" })
      assert.strictEqual(parseError.status, 400)
      assert.strictEqual(((yield* json(parseError)).error as { code: number }).code, -32700)
    })))
})

describe("FakeHttpServer: hostile faults", () => {
  it.scopedLive("status5xxTimes answers the next n POSTs with 503", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, status5xxTimes: 2 })
      assert.strictEqual((yield* post(server.mcpUrl, initialize)).status, 503)
      assert.strictEqual((yield* post(server.mcpUrl, initialize)).status, 503)
      assert.strictEqual((yield* post(server.mcpUrl, initialize)).status, 200)
      assert.strictEqual((yield* server.fake.requests("initialize")).length, 1)
    })))

  it.scopedLive("status4xx answers with a JSON-RPC error body carrying the request id", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: Scenarios.demo,
        responseMode: "json",
        status4xx: { message: "nope", data: { why: "scripted" } }
      })
      const headers = yield* connect(server)
      const rejected = yield* post(server.mcpUrl, echo(7, "x"), headers)
      assert.strictEqual(rejected.status, 400)
      assert.deepStrictEqual(yield* json(rejected), {
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32600, message: "nope", data: { why: "scripted" } }
      })
    })))

  it.scopedLive("cutAfterNotifications destroys the stream before the result; Last-Event-ID replays it", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, cutAfterNotifications: true })
      const headers = yield* connect(server)
      const reader = new SseReader(yield* post(server.mcpUrl, progress(2, 2), headers))
      const seen = [(yield* next(reader))!, (yield* next(reader))!]
      assert.deepStrictEqual(seen.map((e) => JSON.parse(e.data).method), [
        "notifications/progress",
        "notifications/progress"
      ])
      assert.isTrue(Either.isLeft(yield* nextEither(reader)))

      const resumed = yield* readAll(yield* openGet(server, { ...headers, "last-event-id": seen[1]!.id! }))
      assert.deepStrictEqual(resumed.map((e) => [e.id, JSON.parse(e.data).id]), [["r2-3", 2]])
      assert.strictEqual(JSON.parse(resumed[0]!.data).result.content[0].text, "done after 2 steps")
    })))

  it.scopedLive("deadSocketAfterResult delivers the result, then the stream fails instead of ending", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, deadSocketAfterResult: true })
      const headers = yield* connect(server)
      const reader = new SseReader(yield* post(server.mcpUrl, echo(2, "last words"), headers))
      assert.strictEqual(JSON.parse((yield* next(reader))!.data).result.content[0].text, "last words")
      assert.isTrue(Either.isLeft(yield* nextEither(reader)))
    })))

  it.scopedLive("gzipBomb sends a small body that inflates to `bytes` of zeros inside a JSON-RPC prefix", () =>
    bounded(Effect.gen(function*() {
      const bytes = 8 * 1024 * 1024
      const server = yield* FakeHttpServer.make({
        definition: Scenarios.demo,
        responseMode: "json",
        gzipBomb: { bytes }
      })
      const headers = yield* connect(server)
      const response = yield* post(server.mcpUrl, echo(2, "x"), headers)
      assert.strictEqual(response.headers.get("content-encoding"), "gzip")
      const body = yield* text(response)
      const prefix = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`
      assert.strictEqual(body.length, prefix.length + bytes)
      assert.isTrue(body.startsWith(prefix + "0000"))
      assert.strictEqual((yield* server.fake.requests("tools/call")).length, 0)
    })))

  it.scopedLive("gzipBomb keeps streaming a 1 GiB inflation until the client gives up", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, gzipBomb: true })
      const headers = yield* connect(server)
      const response = yield* post(server.mcpUrl, echo(2, "x"), headers)
      const reader = response.body!.getReader()
      let inflated = 0
      while (inflated < 16 * 1024 * 1024) {
        const chunk = yield* Effect.promise(() => reader.read())
        assert.isFalse(chunk.done)
        inflated += chunk.value!.length
      }
      yield* Effect.promise(() => reader.cancel())
    })))

  it.scopedLive("unterminatedEvent sends data: and bytes without a newline until the client disconnects", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, unterminatedEvent: true })
      const headers = yield* connect(server)
      const response = yield* post(server.mcpUrl, echo(2, "x"), headers)
      assert.strictEqual(response.headers.get("content-type"), "text/event-stream")
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let received = ""
      while (received.length < 4 * 1024 * 1024) {
        const chunk = yield* Effect.promise(() => reader.read())
        received += decoder.decode(chunk.value!, { stream: true })
      }
      assert.isTrue(received.startsWith("data: xxxx"))
      assert.isFalse(received.includes("\n"))
      yield* Effect.promise(() => reader.cancel())
    })))

  it.scopedLive("unterminatedEvent with bytes ends the response after that many bytes", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: Scenarios.demo,
        unterminatedEvent: { method: "*", times: 1, bytes: 100_000 }
      })
      const body = yield* text(yield* post(server.mcpUrl, initialize))
      assert.strictEqual(body, "data: " + "x".repeat(100_000))
    })))

  it.scopedLive("retryZero: every GET stream sends retry: 0 with its last event id, then ends", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, retryZero: true })
      const headers = yield* connect(server)
      yield* server.notify("notifications/tools/list_changed")
      const events = yield* readAll(yield* openGet(server, headers))
      assert.deepStrictEqual(events.map((e) => [e.id, e.retry]), [["get-1", undefined], ["get-1", "0"]])
      const again = yield* readAll(yield* openGet(server, { ...headers, "last-event-id": "get-1" }))
      assert.deepStrictEqual(again.map((e) => [e.id, e.retry, e.data]), [["get-1", "0", ""]])
    })))

  it.scopedLive("longEventId replaces event ids with 10 KiB ones, or a given id", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, longEventId: true })
      const headers = yield* connect(server)
      const events = yield* readAll(yield* post(server.mcpUrl, echo(2, "x"), headers))
      assert.strictEqual(events[0]!.id, "e".repeat(10 * 1024))
      yield* server.setFaults({ longEventId: { id: "a\u0000b\u001b[31m" } })
      const control = yield* readAll(yield* post(server.mcpUrl, echo(3, "x"), headers))
      assert.strictEqual(control[0]!.id, "a\u0000b\u001b[31m")
      assert.strictEqual(JSON.parse(control[0]!.data).id, 3)
    })))

  it.scopedLive("redirect answers 307 to another origin, which records what the client sent", () =>
    bounded(Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: Scenarios.demo,
        responseMode: "json",
        redirect: { method: "initialize", times: 1 }
      })
      const manual = yield* http(server.mcpUrl, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/json", accept: ACCEPT, authorization: "Bearer secret" },
        body: JSON.stringify(initialize)
      })
      assert.strictEqual(manual.status, 307)
      assert.strictEqual(manual.headers.get("location"), `${server.foreignUrl}/mcp`)
      assert.notStrictEqual(new URL(server.foreignUrl).origin, new URL(server.url).origin)

      // The redirect fired once; arm it again and let fetch follow it (fetch drops Authorization cross-origin).
      yield* server.setFaults({ redirect: { method: "initialize", times: 1 } })
      const followed = yield* post(server.mcpUrl, initialize, { authorization: "Bearer secret" })
      assert.strictEqual(followed.status, 200)
      assert.strictEqual((yield* json(followed)).id, 1)
      const foreign = (yield* server.requests).filter((r) => r.origin === "foreign")
      assert.deepStrictEqual(foreign.map((r) => [r.method, r.path, r.headers.authorization]), [
        ["POST", "/mcp", undefined]
      ])
    })))
})
