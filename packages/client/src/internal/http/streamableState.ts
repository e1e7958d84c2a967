/**
 * What one Streamable HTTP connection's POST exchanges and GET stream share: the session the
 * server issued, the negotiated version, the request headers derived from them, and the sink
 * every received message goes to.
 *
 * @internal
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { ConnectionError, SessionExpiredError } from "../../McpError.js"
import type { SendHints, TransportSink } from "../../Transport.js"
import * as Http from "./http.js"
import * as Reply from "./postReply.js"
import type { Id } from "./postReply.js"

/**
 * What the sessions of one connection remember about a server that answers a lost session
 * with 400: whether it was told about, and whether the session opened after such a 400 has
 * yet to answer a request (until then another such 400 is the server's real answer).
 *
 * @internal
 */
export interface LostSessions {
  warned: boolean
  unproven: boolean
}

/** @internal */
export interface Connection {
  readonly settings: Http.HttpSettings
  readonly url: string
  readonly sink: TransportSink
  readonly lost: LostSessions
  sessionId: string | undefined
  protocolVersion: string | undefined
  /** The id of the `initialize` in flight, whose result names the protocol version. */
  initializeId: Id | undefined
  closed: boolean
  /**
   * The reconnection time: the last `retry:` the server sent on any stream, as an EventSource
   * keeps one for its whole connection.
   */
  serverRetry: number | undefined
  /** The configured headers the bases below were derived from (a function may hand out new ones). */
  configured: Record<string, string> | undefined
  /** Whether the bases below ask for compressed bodies (`settings.rawBodies` when they were derived). */
  compressed: boolean
  legacyBase: Record<string, string>
  modernBase: Record<string, string>
}

/** @internal */
export const make = (
  settings: Http.HttpSettings,
  url: string,
  sink: TransportSink,
  lost: LostSessions
): Connection => ({
  settings,
  url,
  sink,
  lost,
  sessionId: undefined,
  protocolVersion: undefined,
  initializeId: undefined,
  closed: false,
  serverRetry: undefined,
  configured: undefined,
  compressed: false,
  legacyBase: {},
  modernBase: {}
})

// Configured headers in the Mcp-Param-* namespace would impersonate tool arguments on a
// 2026-07-28 request, where the client owns that namespace: they go to legacy requests only.
const withoutParams = (configured: Record<string, string>) =>
  Object.fromEntries(Object.entries(configured).filter(([name]) => !/^mcp-param-/i.test(name)))

/** The headers of a request: the configured ones, the session's, the era's, then `extra`. @internal */
export const headers = (c: Connection, extra?: Record<string, string>, hints?: SendHints): Record<string, string> => {
  const current = c.settings.headers()
  if (current !== c.configured || c.compressed !== c.settings.rawBodies) {
    c.configured = current
    c.compressed = c.settings.rawBodies
    c.legacyBase = Http.withAcceptEncoding(c.settings, { ...current })
    c.modernBase = Http.withAcceptEncoding(c.settings, withoutParams(current))
  }
  // `Object.assign`, not spreads: this runs per request (see `serverConnection.ts`).
  if (hints?.modern === true) return Object.assign({}, c.modernBase, extra, hints.headers)
  const all: Record<string, string> = Object.assign({}, c.legacyBase, extra)
  if (c.sessionId !== undefined) all["mcp-session-id"] = c.sessionId
  if (c.protocolVersion !== undefined) all["mcp-protocol-version"] = c.protocolVersion
  return hints?.headers === undefined ? all : Object.assign(all, hints.headers)
}

/** Hands a received message on, noting the protocol version `initialize`'s result names. @internal */
export const deliver = (c: Connection, message: unknown): void => {
  if (
    c.initializeId !== undefined && Reply.isObject(message) && message.id === c.initializeId &&
    Reply.isObject(message.result) &&
    typeof message.result.protocolVersion === "string" && Http.isSafeHeaderValue(message.result.protocolVersion, 64)
  ) {
    c.protocolVersion = message.result.protocolVersion
    c.initializeId = undefined
  }
  c.sink.onMessage(message)
}

/** An SSE event's message; `undefined` when it is not JSON (the stream's reader logs it once, counted). @internal */
export const parseEvent = (data: string): unknown => {
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}

/** Opens (or resumes, after `lastEventId`) a GET stream. @internal */
export const get = (c: Connection, lastEventId: string | undefined) =>
  Http.executeAuthorized(
    c.settings,
    HttpClientRequest.get(c.url).pipe(
      HttpClientRequest.setHeaders(
        headers(
          c,
          lastEventId === undefined ? { accept: "text/event-stream" } : {
            accept: "text/event-stream",
            "last-event-id": lastEventId
          }
        )
      )
    )
  )

/**
 * The server expired the session: the request that met the expiry fails with
 * SessionExpiredError (its caller may re-send it on a new session); everything else in flight
 * fails with the connection.
 *
 * @internal
 */
export const expired = (c: Connection, method: string, id: Id | undefined): SessionExpiredError => {
  c.sessionId = undefined
  c.closed = true
  const error = new SessionExpiredError({ server: c.settings.server, method })
  if (id !== undefined) c.sink.onRequestFailed(id, error)
  c.sink.onClose(
    new ConnectionError({ server: c.settings.server, message: "the server expired the session", reason: "closed" })
  )
  return error
}
