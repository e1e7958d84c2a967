/**
 * @internal
 */
import type * as Http from "node:http"
import * as Zlib from "node:zlib"
import type * as Api from "../FakeHttpServer.js"
import { idOf, type JsonRpcId, type Message, methodOf } from "./httpMessage.js"
import { jsonError, pump } from "./httpResponse.js"

export const KiB = 1024
export const MiB = 1024 * KiB
export const GiB = 1024 * MiB

export let bombMember: Buffer | undefined
// One gzip member inflating to 1 MiB of "0"; members concatenate into one valid gzip body.
export const bombChunk = (): Buffer => (bombMember ??= Zlib.gzipSync(Buffer.alloc(MiB, 0x30), { level: 9 }))

export const sendBomb = (res: Http.ServerResponse, id: JsonRpcId, sse: boolean, bytes: number) => {
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

export const sendUnterminated = (res: Http.ServerResponse, bytes: number) => {
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

export interface Armed<A> {
  readonly settings: A
  readonly method: string
  readonly times: number
  used: number
}

export const arm = <A extends Api.FaultScope>(value: boolean | A | undefined, defaults: A): Armed<A> | undefined => {
  if (value === undefined || value === false) return undefined
  const settings = value === true ? defaults : value
  return { settings, method: settings.method ?? "tools/call", times: settings.times ?? Infinity, used: 0 }
}

export const fire = <A>(armed: Armed<A> | undefined, method: string | undefined): A | undefined => {
  if (armed === undefined) return undefined
  if (armed.method !== "*" && armed.method !== method) return undefined
  if (armed.used >= armed.times) return undefined
  armed.used++
  return armed.settings
}

export type Status4xx = Exclude<Api.Faults["status4xx"], boolean | undefined>
export type Sized = Api.FaultScope & { readonly bytes?: number | undefined }
export type Redirect = Exclude<Api.Faults["redirect"], boolean | undefined>
export type Unanswered = Exclude<Api.Faults["unansweredJson"], boolean | undefined>

export const unansweredBody = (reply: Unanswered["reply"], id: JsonRpcId): string => {
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

/** The scripted faults of one server, as armed now; `set` re-arms the ones it names. */
export const makeFaults = (responseMode: "sse" | "json", foreignUrl: () => string) => {
  let status5xxLeft = 0
  let status4xx: Armed<Status4xx> | undefined
  let cut: Armed<Api.FaultScope> | undefined
  let dead: Armed<Api.FaultScope> | undefined
  let bomb: Armed<Sized> | undefined
  let unterminated: Armed<Sized> | undefined
  let redirect: Armed<Redirect> | undefined
  let stall: Armed<Api.FaultScope> | undefined
  let unanswered: Armed<Unanswered> | undefined
  let retryZero = false
  let hostileId: string | undefined
  let offOrigin: boolean | string = false

  const set = (faults: Api.Faults) => {
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
      res.writeHead(redirected.status ?? 307, { location: redirected.to ?? `${foreignUrl()}${req.url ?? "/"}` })
      res.end()
      return true
    }
    const rejected = fire(status4xx, method)
    if (rejected !== undefined) {
      jsonError(
        res,
        rejected.status ?? 400,
        rejected.code ?? -32600,
        rejected.message ?? "Invalid Request (scripted)",
        {
          id,
          data: "data" in rejected ? rejected.data : { reason: "scripted status4xx" }
        }
      )
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

  return {
    set,
    shortCircuit,
    /** Takes one scripted 503 when any are left. */
    status5xx: (): boolean => {
      if (status5xxLeft <= 0) return false
      status5xxLeft--
      return true
    },
    cut: (method: string) => fire(cut, method) !== undefined,
    dead: (method: string | undefined) => fire(dead, method) !== undefined,
    stall: (method: string | undefined) => fire(stall, method) !== undefined,
    retryZero: () => retryZero,
    hostileId: () => hostileId,
    offOrigin: () => offOrigin
  }
}
