/**
 * The peer's pending table: each request sent and not yet answered, keyed by its JSON-RPC id,
 * with the callback that completes its caller and the deadlines the deadline watcher reads.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import type { RequestError } from "../../McpError.js"
import type { Progress, RequestOptions } from "../../RpcPeer.js"

/** @internal */
export interface Pending {
  readonly method: string
  /** Moved later by the time the transport spent handling an auth challenge. */
  deadline: number
  readonly timeoutMs: number
  /** Progress moves `deadline` to now + `timeoutMs`, never past `hardDeadline` (`maxTotalTimeoutMs`). */
  readonly resetOnProgress: boolean
  hardDeadline: number
  readonly maxTotalTimeoutMs: number | undefined
  readonly cancellable: boolean
  readonly onProgress: ((progress: Progress) => void) | undefined
  resume: ((exit: Exit.Exit<unknown, RequestError>) => void) | undefined
  settled: Exit.Exit<unknown, RequestError> | undefined
}

/** @internal */
export type Params = Record<string, unknown> | undefined

/** @internal */
export const isObject = Predicate.isRecord

/** @internal */
export const paramsOf = (u: unknown): Params => (isObject(u) ? u : undefined)

/** @internal */
export interface Table {
  readonly entries: Map<string | number, Pending>
  /** Puts a request in the table, its deadline watched; its message is not sent yet. */
  readonly register: (
    method: string,
    params: Params,
    options: RequestOptions | undefined
  ) => { readonly id: number; readonly entry: Pending; readonly message: object }
  /** Completes a request's caller (now, or when it starts waiting) and forgets the request. */
  readonly settle: (id: string | number, entry: Pending, result: Exit.Exit<unknown, RequestError>) => void
  readonly failAll: (error: RequestError) => void
  /** A request given up by its caller before its response: forgotten, and cancelled on the wire. */
  readonly abandon: (id: number, entry: Pending) => void
}

/** @internal */
export const make = (options: {
  readonly defaultTimeoutMs: number
  readonly now: () => number
  /** Told each new deadline (the deadline watcher). */
  readonly watch: (deadline: number) => void
  /** Sends `notifications/cancelled` for a request. */
  readonly cancel: (id: string | number, reason: string) => void
}): Table => {
  const entries = new Map<string | number, Pending>()
  let nextId = 1

  const settle = (id: string | number, entry: Pending, result: Exit.Exit<unknown, RequestError>) => {
    entries.delete(id)
    if (entry.resume !== undefined) entry.resume(result)
    else entry.settled = result
  }

  const register = (method: string, params: Params, requestOptions: RequestOptions | undefined) => {
    const id = nextId++
    requestOptions?.onId?.(id)
    const timeoutMs = requestOptions?.timeoutMs ?? options.defaultTimeoutMs
    const onProgressCallback = requestOptions?.onProgress
    const resetOnProgress = requestOptions?.resetTimeoutOnProgress === true
    const maxTotalTimeoutMs = requestOptions?.maxTotalTimeoutMs ?? (resetOnProgress ? 10 * timeoutMs : undefined)
    let outgoing = params
    if (onProgressCallback !== undefined || resetOnProgress) {
      const meta = paramsOf(params?._meta)
      outgoing = Object.assign({}, params, { _meta: Object.assign({}, meta, { progressToken: id }) })
    }
    const message = outgoing === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params: outgoing }
    const startedAt = options.now()
    const hardDeadline = maxTotalTimeoutMs === undefined ? Infinity : startedAt + maxTotalTimeoutMs
    const entry: Pending = {
      method,
      deadline: Math.min(startedAt + timeoutMs, hardDeadline),
      timeoutMs,
      resetOnProgress,
      hardDeadline,
      maxTotalTimeoutMs,
      cancellable: requestOptions?.cancellable ?? true,
      onProgress: onProgressCallback,
      resume: undefined,
      settled: undefined
    }
    entries.set(id, entry)
    options.watch(entry.deadline)
    return { id, entry, message }
  }

  return {
    entries,
    register,
    settle,
    failAll: (error) => {
      const failed = Exit.fail(error)
      for (const [id, entry] of entries) settle(id, entry, failed)
    },
    abandon: (id, entry) => {
      if (entries.delete(id) && entry.cancellable) options.cancel(id, "request abandoned by the client")
    }
  }
}
