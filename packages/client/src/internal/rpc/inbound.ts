/**
 * The peer's inbound dispatch: what the transport delivers, sorted into responses (settling the
 * pending table), progress (moving deadlines), cancellations and other notifications, and
 * server-initiated requests.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import { ServerError } from "../../McpError.js"
import { escapeControl } from "../escape.js"
import type { Params, Table } from "./pending.js"
import { isObject, paramsOf } from "./pending.js"
import type { ServerRequests } from "./serverRequests.js"

const describeId = (id: unknown): string => (typeof id === "string" ? JSON.stringify(id.slice(0, 32)) : String(id))

/** @internal */
export const make = (options: {
  readonly server: string
  readonly table: Table
  readonly now: () => number
  readonly log: (level: "warn" | "debug", message: string) => void
  readonly onNotification: (method: string, params: Params) => void
  /** The server-request path, built by the first server request. */
  readonly serverRequests: () => ServerRequests
  /** The server-request path if one was built. */
  readonly serverRequestsIfAny: () => ServerRequests | undefined
}): (message: unknown) => void => {
  const { log, server, table } = options

  const onResponse = (message: Record<string, unknown>) => {
    const id = message.id as string | number
    const entry = table.entries.get(id)
    if (entry === undefined) {
      log("debug", `${server}: dropped unsolicited response id=${describeId(id)}`)
      return
    }
    if ("error" in message) {
      const error = paramsOf(message.error)
      table.settle(
        id,
        entry,
        Exit.fail(
          new ServerError({
            server,
            method: entry.method,
            code: typeof error?.code === "number" ? error.code : -32603,
            message: typeof error?.message === "string" ? error.message : "Malformed error response",
            data: error?.data
          })
        )
      )
    } else {
      table.settle(id, entry, Exit.succeed(message.result))
    }
  }

  const onProgress = (params: Params) => {
    const token = params?.progressToken
    if (typeof token !== "number" && typeof token !== "string") return
    const entry = table.entries.get(token)
    if (entry === undefined || typeof params?.progress !== "number") return
    // A later deadline needs no wake-up: the deadline fiber looks again when the old one passes.
    if (entry.resetOnProgress) {
      entry.deadline = Math.min(options.now() + entry.timeoutMs, entry.hardDeadline)
    }
    entry.onProgress?.({
      progress: params.progress,
      total: typeof params.total === "number" ? params.total : undefined,
      message: typeof params.message === "string" ? params.message : undefined
    })
  }

  const onNotification = (method: string, params: Params) => {
    if (method === "notifications/progress") return onProgress(params)
    if (method === "notifications/cancelled") {
      const requestId = params?.requestId
      if (typeof requestId === "string" || typeof requestId === "number") {
        options.serverRequestsIfAny()?.cancel(requestId)
      }
    }
    try {
      options.onNotification(method, params)
    } catch (error) {
      log("warn", `${server}: notification listener for ${method} threw: ${String(error)}`)
    }
  }

  const onOne = (message: unknown) => {
    if (!isObject(message)) {
      log("warn", `${server}: skipped a message that is not a JSON-RPC object`)
      return
    }
    const id = message.id
    const method = message.method
    const hasId = typeof id === "string" || typeof id === "number"
    if (typeof method === "string") {
      if (hasId) options.serverRequests().onRequest(id, method, paramsOf(message.params))
      else if (id === undefined) onNotification(method, paramsOf(message.params))
      else log("warn", `${server}: skipped request ${escapeControl(method, 64)} with an invalid id`)
    } else if (hasId && ("result" in message || "error" in message)) {
      onResponse(message)
    } else {
      log("warn", `${server}: skipped a malformed JSON-RPC message${hasId ? ` id=${describeId(id)}` : ""}`)
    }
  }

  return (message: unknown) => {
    if (Array.isArray(message)) { for (const item of message) onOne(item) }
    else onOne(message)
  }
}
