/** @internal */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import type { AuthFailure } from "../../McpAuth.js"
import { ConnectionError, RequestTimeoutError, ServerError } from "../../McpError.js"
import type { RequestError } from "../../McpError.js"
import type { Options, Progress, RequestOptions, RpcPeer } from "../../RpcPeer.js"
import type { SendError, SendHints, Transport } from "../../Transport.js"
import { escapeControl } from "../escape.js"
import * as Limits from "../limits.js"
import * as ServerRequests from "./serverRequests.js"

interface Pending {
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

type Params = Record<string, unknown> | undefined

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const paramsOf = (u: unknown): Params => (isObject(u) ? u : undefined)

const describeId = (id: unknown): string => (typeof id === "string" ? JSON.stringify(id.slice(0, 32)) : String(id))

/** @internal */
export const make = <R>(options: Options<R>): Effect.Effect<RpcPeer, ConnectionError | AuthFailure, Scope.Scope | R> =>
  Effect.gen(function*() {
    const server = options.server
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const log = (level: "warn" | "debug", message: string) =>
      runFork(level === "warn" ? Effect.logWarning(message) : Effect.logDebug(message))

    const pending = new Map<string | number, Pending>()
    let nextId = 1
    let closedWith: ConnectionError | undefined
    // Made when something waits for the close before it happened (rare: an idle peer keeps none).
    let closedSignal: Deferred.Deferred<ConnectionError> | undefined
    let transport: Transport | undefined = undefined

    // A timer fiber watches every deadline while requests are pending: it sleeps until the
    // earliest, expires what is due, sleeps again, and ends when nothing is left to watch (an idle
    // connection holds no fiber and no timer). A request whose deadline is earlier than the one
    // it sleeps towards (rare: timeouts are mostly equal) replaces it, so a request costs no
    // timer of its own.
    const clock = yield* Effect.clock
    let wakeAt = Infinity
    let deadlineFiber: Fiber.RuntimeFiber<void> | undefined
    // Auth challenges the transport is handling (see onAuthorizing), and since when.
    let authorizing = 0
    let authorizingSince = 0
    const rearm = () => {
      deadlineFiber?.unsafeInterruptAsFork(FiberId.none)
      // Started on the scheduler, not inside the request's registration.
      deadlineFiber = closedWith === undefined ? runFork(deadlineLoop, { immediate: false }) : undefined
    }
    const watchDeadline = (deadline: number) => {
      if (deadline < wakeAt) {
        wakeAt = deadline
        rearm()
      }
    }

    const settle = (id: string | number, entry: Pending, result: Exit.Exit<unknown, RequestError>) => {
      pending.delete(id)
      if (entry.resume !== undefined) entry.resume(result)
      else entry.settled = result
    }

    const sendCancelled = (id: string | number, reason: string) => {
      if (transport === undefined || closedWith !== undefined) return
      runFork(Effect.ignore(transport.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason }
      })))
    }

    const expire = (now: number) => {
      let earliest = Infinity
      if (authorizing > 0) return earliest
      for (const [id, entry] of pending) {
        if (entry.deadline <= now) {
          const timeoutMs = entry.deadline >= entry.hardDeadline ? entry.maxTotalTimeoutMs! : entry.timeoutMs
          settle(id, entry, Exit.fail(new RequestTimeoutError({ server, method: entry.method, timeoutMs })))
          if (entry.cancellable) sendCancelled(id, `timed out after ${timeoutMs} ms`)
        } else if (entry.deadline < earliest) {
          earliest = entry.deadline
        }
      }
      return earliest
    }

    const deadlineLoop: Effect.Effect<void> = Effect.withFiberRuntime((fiber) => {
      if (fiber !== deadlineFiber) return Effect.void // replaced before it started
      const now = clock.unsafeCurrentTimeMillis()
      const earliest = expire(now)
      wakeAt = earliest
      if (earliest === Infinity) {
        deadlineFiber = undefined
        return Effect.void
      }
      return Effect.zipRight(Effect.sleep(earliest - now), deadlineLoop)
    })

    const failAll = (error: ConnectionError) => {
      const failed = Exit.fail(error)
      for (const [id, entry] of pending) settle(id, entry, failed)
    }

    const onClose = (error: ConnectionError) => {
      if (closedWith !== undefined) return
      closedWith = error
      failAll(error)
      if (closedSignal !== undefined) Deferred.unsafeDone(closedSignal, Exit.succeed(error))
      options.onClose?.(error)
    }

    // Server-initiated requests run in the connection's scope; their answers share one bounded
    // path. Built with the first one: most connections never get one, and the path (its fiber
    // set, answer slots and log summary) is ~5 KB of heap per connection.
    const scope = yield* Effect.scope
    let serverRequests: ServerRequests.ServerRequests | undefined
    const serverRequestsNow = () =>
      serverRequests ??= Runtime.runSync(runtime)(Scope.extend(
        ServerRequests.make({
          server,
          send: (message) => transport === undefined ? Effect.void : Effect.ignore(transport.send(message)),
          handle: options.onRequest,
          maxConcurrent: options.maxConcurrentServerRequests ?? Limits.MAX_CONCURRENT_SERVER_REQUESTS,
          maxQueued: options.maxQueuedRefusals ?? Limits.MAX_QUEUED_REFUSALS,
          maxQueuedIdChars: Limits.MAX_QUEUED_REFUSAL_ID_CHARS,
          summaryInterval: options.refusalSummaryInterval ?? Limits.REFUSAL_SUMMARY_INTERVAL
        }),
        scope
      ))

    const onResponse = (message: Record<string, unknown>) => {
      const id = message.id as string | number
      const entry = pending.get(id)
      if (entry === undefined) {
        log("debug", `${server}: dropped unsolicited response id=${describeId(id)}`)
        return
      }
      if ("error" in message) {
        const error = paramsOf(message.error)
        settle(
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
        settle(id, entry, Exit.succeed(message.result))
      }
    }

    const onProgress = (params: Params) => {
      const token = params?.progressToken
      if (typeof token !== "number" && typeof token !== "string") return
      const entry = pending.get(token)
      if (entry === undefined || typeof params?.progress !== "number") return
      // A later deadline needs no wake-up: the deadline fiber looks again when the old one passes.
      if (entry.resetOnProgress) {
        entry.deadline = Math.min(clock.unsafeCurrentTimeMillis() + entry.timeoutMs, entry.hardDeadline)
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
        if (typeof requestId === "string" || typeof requestId === "number") serverRequests?.cancel(requestId)
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
        if (hasId) serverRequestsNow().onRequest(id, method, paramsOf(message.params))
        else if (id === undefined) onNotification(method, paramsOf(message.params))
        else log("warn", `${server}: skipped request ${escapeControl(method, 64)} with an invalid id`)
      } else if (hasId && ("result" in message || "error" in message)) {
        onResponse(message)
      } else {
        log("warn", `${server}: skipped a malformed JSON-RPC message${hasId ? ` id=${describeId(id)}` : ""}`)
      }
    }

    const onMessage = (message: unknown) => {
      if (Array.isArray(message)) { for (const item of message) onOne(item) }
      else onOne(message)
    }

    const onRequestFailed = (id: string | number, error: SendError) => {
      const entry = pending.get(id)
      if (entry !== undefined) settle(id, entry, Exit.fail(error))
    }

    // While the transport handles an auth challenge (a person may be signing in), deadlines stand
    // still: when the last challenge ends, each pending request gets the time it spent back.
    const onAuthorizing = (active: boolean) => {
      const now = clock.unsafeCurrentTimeMillis()
      if (active) {
        if (authorizing++ === 0) authorizingSince = now
        return
      }
      if (authorizing === 0 || --authorizing > 0) return
      for (const entry of pending.values()) {
        // `deadline - timeoutMs` is when the request's time started to run.
        const paused = now - Math.max(authorizingSince, entry.deadline - entry.timeoutMs)
        entry.deadline += paused
        entry.hardDeadline += paused
      }
      if (pending.size > 0) rearm()
    }

    transport = yield* options.transport({ onMessage, onClose, onRequestFailed, onAuthorizing }, server)
    const open = transport

    // A finalizer of the scope itself, not `Effect.addFinalizer`: a synchronous close needs none
    // of the fiber's refs, of which that one keeps a snapshot (~1 KB per connection).
    yield* Scope.addFinalizer(
      scope,
      Effect.sync(() => {
        onClose(new ConnectionError({ server, message: "connection closed", reason: "closed" }))
        deadlineFiber?.unsafeInterruptAsFork(FiberId.none)
        deadlineFiber = undefined
      })
    )

    /** Puts a request in the pending map, watched by the deadline fiber; its message is not sent yet. */
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
      const startedAt = clock.unsafeCurrentTimeMillis()
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
      pending.set(id, entry)
      watchDeadline(entry.deadline)
      return { id, entry, message }
    }

    /** A request given up by its caller before its response: forgotten, and cancelled on the wire. */
    const abandon = (id: number, entry: Pending) => {
      if (pending.delete(id) && entry.cancellable) sendCancelled(id, "request abandoned by the client")
    }

    const write = open.write
    /** Writes a registered request on a synchronous transport; not written, it is forgotten. */
    const writeNow = (write: NonNullable<Transport["write"]>, id: number, message: object) => {
      let error: SendError | undefined
      try {
        error = write(message)
      } catch (thrown) {
        // Params that cannot be serialized (the host's bug): nothing went out, nothing to wait for.
        pending.delete(id)
        throw thrown
      }
      if (error !== undefined) pending.delete(id)
      return error
    }

    // Without a fiber: a synchronous transport writes the request at once and the response
    // settles it through `onExit` (see `RpcPeer.unsafeRequest`).
    const unsafeRequest: RpcPeer["unsafeRequest"] = write === undefined ? undefined : (
      method,
      params,
      requestOptions,
      onExit
    ) => {
      if (closedWith !== undefined) return closedWith
      const { entry, id, message } = register(method, params, requestOptions)
      entry.resume = onExit
      return writeNow(write, id, message) ?? (() => abandon(id, entry))
    }

    const request = (
      method: string,
      params: Params,
      requestOptions?: RequestOptions
    ): Effect.Effect<unknown, RequestError> =>
      Effect.uninterruptibleMask((restore) => {
        if (closedWith !== undefined) return Effect.fail(closedWith)
        const { entry, id, message } = register(method, params, requestOptions)
        // The response completes the request through the callback kept in the pending map:
        // no fiber, timer or Deferred of its own (see docs/architecture.md).
        let awaiting = false
        const awaitResponse = Effect.async<unknown, RequestError>((resume) => {
          awaiting = true
          if (entry.settled !== undefined) return resume(entry.settled)
          entry.resume = resume
        })
        let sent: Effect.Effect<unknown, RequestError>
        if (write !== undefined) {
          // A synchronous transport (stdio, which takes no hints) writes the request right here.
          const error = writeNow(write, id, message)
          if (error !== undefined) return Effect.fail(error)
          sent = awaitResponse
        } else {
          sent = Effect.zipRight(
            Effect.tapError(open.send(message, requestOptions?.hints), () => Effect.sync(() => pending.delete(id))),
            awaitResponse
          )
        }
        // Interrupted while waiting for the response: the request is abandoned. (Cheaper per
        // request than a canceler returned from `Effect.async`, which wraps it in `onInterrupt`.)
        return Effect.catchAllCause(restore(sent), (cause) => {
          if (awaiting && Cause.isInterruptedOnly(cause)) abandon(id, entry)
          return Effect.failCause(cause)
        })
      })

    const notify = (method: string, params?: Record<string, unknown>, hints?: SendHints) =>
      open.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, hints)

    return {
      request,
      unsafeRequest,
      notify,
      isOpen: () => closedWith === undefined,
      closed: Effect.suspend(() =>
        closedWith !== undefined
          ? Effect.succeed(closedWith)
          : Deferred.await(closedSignal ??= Deferred.unsafeMake<ConnectionError>(FiberId.none))
      ),
      description: open.description,
      authorization: open.authorization ?? Effect.succeed(undefined),
      reusableCache: open.reusableCache ?? true
    } satisfies RpcPeer
  })
