/**
 * The sending side of a Streamable HTTP connection: a message's POST (retried on 5xx) and what
 * its reply means — a JSON body, an SSE stream (read by `streamableGet.ts`), a refusal, or a
 * lost session.
 *
 * @internal
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import { InvalidResponseError, MissingResponseError, ServerError } from "../../McpError.js"
import type { SendError, SendHints } from "../../Transport.js"
import { escapeControl } from "../escape.js"
import * as Limits from "../limits.js"
import * as Http from "./http.js"
import * as Reply from "./postReply.js"
import type { Id, Json } from "./postReply.js"
import { readExchange } from "./streamableGet.js"
import type { Connection } from "./streamableState.js"
import { deliver, expired, headers } from "./streamableState.js"

/** The JSON-RPC error of a refusal's body (bounded), if it holds one. */
const errorBody = (c: Connection, response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(
    Effect.either(Http.readText({ ...c.settings, maxBodyBytes: Limits.MAX_ERROR_BODY_BYTES }, response)),
    Reply.errorBody
  )

const refusal = (
  c: Connection,
  status: number,
  id: Id | undefined,
  method: string,
  { error, hasId }: Reply.ErrorBody
): Effect.Effect<void, SendError> => {
  if (error !== undefined && id !== undefined && hasId) {
    // A JSON-RPC error for our request: the peer turns it into its typed error.
    deliver(c, { jsonrpc: "2.0", id, error })
    return Effect.void
  }
  return Effect.fail(
    new ServerError({
      server: c.settings.server,
      method,
      code: typeof error?.code === "number" ? error.code : -32600,
      message: typeof error?.message === "string" ? error.message.slice(0, 500) : `HTTP ${status}`,
      data: error !== undefined ? error.data : { status }
    })
  )
}

const refused = (c: Connection, response: HttpClientResponse.HttpClientResponse, id: Id | undefined, method: string) =>
  Effect.flatMap(errorBody(c, response), (body) => refusal(c, response.status, id, method, body))

// The one "session lost" path, for a request that carried the session: a 404, as the spec
// requires, or a 400 naming the session, taken once for that 404: the session opened after it
// must answer a request before another counts.
const lostSession = (
  c: Connection,
  response: HttpClientResponse.HttpClientResponse,
  id: Id | undefined,
  method: string
): Effect.Effect<void, SendError> => {
  if (response.status === 404) return Effect.zipRight(Http.discard(response), Effect.fail(expired(c, method, id)))
  return Effect.flatMap(errorBody(c, response), (body): Effect.Effect<void, SendError> => {
    if (!Reply.mentionsSession(body.error) || c.lost.unproven) return refusal(c, 400, id, method, body)
    c.lost.unproven = true
    const warn = c.lost.warned ? Effect.void : Effect.logWarning(
      `${c.settings.server}: answered HTTP 400 ${
        escapeControl(JSON.stringify(String(body.error!.message)), 200)
      } for its session id; the spec requires 404 for a session it no longer knows, so this is taken for an expired session`
    )
    c.lost.warned = true
    return Effect.zipRight(warn, Effect.fail(expired(c, method, id)))
  })
}

const missing = (c: Connection, method: string, message: string) =>
  new MissingResponseError({ server: c.settings.server, method, message })

// The body of a `200 application/json` reply; a request it does not answer fails at once.
const readJson = (c: Connection, response: HttpClientResponse.HttpClientResponse, id: Id | undefined, method: string) =>
  Effect.flatMap(Http.readText(c.settings, response), (text): Effect.Effect<void, SendError | InvalidResponseError> => {
    const messages = Reply.jsonMessages(text)
    if (messages === undefined) {
      return Effect.fail(
        new InvalidResponseError({ server: c.settings.server, method, message: "the response body is not JSON" })
      )
    }
    let answered = false
    for (const message of messages) {
      if (Reply.answers(message, id)) answered = true
      deliver(c, message)
    }
    if (id === undefined || answered) return Effect.void
    return Effect.fail(missing(
      c,
      method,
      Reply.isBlank(text)
        ? `the reply to request ${JSON.stringify(id)} is an empty application/json body`
        : Reply.describeUnanswered(id, messages)
    ))
  })

/**
 * What a POST's reply means for its message: the session `initialize` was given, a lost
 * session, a refusal, or the body (JSON, or an SSE stream read in the exchange's own fiber).
 * `resumable`: a legacy request, whose broken stream is resumed and whose session is carried.
 *
 * @internal
 */
export const processReply = (
  c: Connection,
  response: HttpClientResponse.HttpClientResponse,
  id: Id | undefined,
  method: string,
  resumable: boolean
): Effect.Effect<void, SendError | InvalidResponseError> => {
  if (method === "initialize" && c.sessionId === undefined) {
    const issued = response.headers["mcp-session-id"]
    if (issued !== undefined && Http.isSafeHeaderValue(issued)) c.sessionId = issued
  }
  const status = response.status
  const carriedSession = c.sessionId !== undefined && method !== "initialize"
  if (carriedSession && (status === 404 || (status === 400 && resumable))) return lostSession(c, response, id, method)
  if (status >= 400) return refused(c, response, id, method)
  if (carriedSession && id !== undefined) c.lost.unproven = false
  const type = (response.headers["content-type"] ?? "").toLowerCase()
  if (id !== undefined && type.startsWith("text/event-stream")) return readExchange(c, response, id, method, resumable)
  if (type.startsWith("application/json")) return readJson(c, response, id, method)
  // A 2026-07-28 response arrives on its POST or not at all.
  if (id !== undefined && !resumable) {
    return Effect.zipRight(
      Http.discard(response),
      Effect.fail(missing(
        c,
        method,
        `the reply to request ${JSON.stringify(id)} is HTTP ${status} with Content-Type ${
          escapeControl(JSON.stringify(type.slice(0, 64)), 100)
        }, neither JSON nor an event stream`
      ))
    )
  }
  return Http.discard(response)
}

/**
 * POSTs one message (`accept`: what the reply may be), retried on a 5xx; `hints` carry the
 * era's headers and the hook that learns which credentials went out.
 *
 * @internal
 */
export const post = (c: Connection, accept: string, message: Json, method: string, hints: SendHints | undefined) =>
  Http.withRetries(
    c.settings,
    method,
    Effect.flatMap(
      Effect.suspend(() => {
        const sent = headers(c, { accept }, hints)
        const request = Http.executeAuthorized(
          c.settings,
          HttpClientRequest.post(c.url).pipe(
            HttpClientRequest.setHeaders(sent),
            HttpClientRequest.bodyText(JSON.stringify(message), "application/json")
          )
        )
        const onAuthorization = hints?.onAuthorization
        return onAuthorization === undefined ? request : Effect.zipRight(
          Effect.map(Http.authorizationKey(sent), onAuthorization),
          request
        )
      }),
      (response) =>
        response.status >= 500
          ? Effect.zipRight(Http.discard(response), Effect.fail(Http.transient(c.settings, method, response.status)))
          : Effect.succeed(response)
    )
  )
