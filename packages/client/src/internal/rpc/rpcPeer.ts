/**
 * The RPC peer: wires its pending table (`pending.ts`), deadline watcher (`deadlines.ts`) and
 * inbound dispatch (`inbound.ts`) to a transport, and sends requests and notifications.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import type { AuthFailure } from "../../McpAuth.js"
import { ConnectionError } from "../../McpError.js"
import type { RequestError } from "../../McpError.js"
import type { Options, RequestOptions, RpcPeer } from "../../RpcPeer.js"
import type { Backpressure, SendError, SendHints, Transport } from "../../Transport.js"
import * as Limits from "../limits.js"
import * as Deadlines from "./deadlines.js"
import * as Inbound from "./inbound.js"
import * as Pending from "./pending.js"
import type { Params } from "./pending.js"
import * as ServerRequests from "./serverRequests.js"

/** @internal */
export const make = <R>(options: Options<R>): Effect.Effect<RpcPeer, ConnectionError | AuthFailure, Scope.Scope | R> =>
  Effect.gen(function*() {
    const server = options.server
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const log = (level: "warn" | "debug", message: string) =>
      runFork(level === "warn" ? Effect.logWarning(message) : Effect.logDebug(message))
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()

    let closedWith: ConnectionError | undefined
    // Made when something waits for the close before it happened (rare: an idle peer keeps none).
    let closedSignal: Deferred.Deferred<ConnectionError> | undefined
    let transport: Transport | undefined = undefined

    const cancel = (id: string | number, reason: string) => {
      if (transport === undefined || closedWith !== undefined) return
      runFork(Effect.ignore(transport.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason }
      })))
    }
    const table = Pending.make({
      defaultTimeoutMs: options.defaultTimeoutMs,
      now,
      watch: (deadline) => deadlines.watch(deadline),
      cancel
    })
    const deadlines = Deadlines.make({
      server,
      now,
      clock,
      runFork,
      table,
      isClosed: () => closedWith !== undefined,
      cancel
    })

    const onClose = (error: ConnectionError) => {
      if (closedWith !== undefined) return
      closedWith = error
      table.failAll(error)
      if (closedSignal !== undefined) Deferred.unsafeDone(closedSignal, Exit.succeed(error))
      options.onClose?.(error)
    }

    // Server-initiated requests run in the connection's scope; their answers share one bounded
    // path. Built with the first one: most connections never get one, and the path (its fiber
    // set, answer slots and log summary) is heap each idle connection would keep.
    const scope = yield* Effect.scope
    let serverRequests: ServerRequests.ServerRequests | undefined
    const serverRequestsNow = () =>
      serverRequests ??= Runtime.runSync(runtime)(Scope.extend(
        ServerRequests.make({
          server,
          send: (message) => transport === undefined ? Effect.void : Effect.ignore(transport.send(message)),
          serve: options.onRequest,
          maxConcurrent: options.maxConcurrentServerRequests ?? Limits.MAX_CONCURRENT_SERVER_REQUESTS,
          maxQueued: options.maxQueuedRefusals ?? Limits.MAX_QUEUED_REFUSALS,
          maxQueuedIdChars: Limits.MAX_QUEUED_REFUSAL_ID_CHARS,
          summaryInterval: options.refusalSummaryInterval ?? Limits.REFUSAL_SUMMARY_INTERVAL
        }),
        scope
      ))

    const onMessage = Inbound.make({
      server,
      table,
      now,
      log,
      onNotification: options.onNotification,
      serverRequests: serverRequestsNow,
      serverRequestsIfAny: () => serverRequests
    })

    const onRequestFailed = (id: string | number, error: SendError) => {
      const entry = table.entries.get(id)
      if (entry !== undefined) table.settle(id, entry, Exit.fail(error))
    }

    // A full queue of answers stops the transport's reading; a stream stopped for longer than
    // a request may wait for its response fails (its answers do not drain).
    const backpressure: Backpressure = {
      paused: () => serverRequests !== undefined && serverRequests.paused(),
      resumed: Effect.suspend(() => serverRequests === undefined ? Effect.void : serverRequests.resumed),
      stallTimeout: Duration.millis(options.defaultTimeoutMs)
    }

    transport = yield* options.transport(
      { onMessage, onClose, onRequestFailed, onAuthorizing: deadlines.onAuthorizing, backpressure, runtime },
      server
    )
    const opened = transport

    // A finalizer of the scope itself, not `Effect.addFinalizer`: a synchronous close needs none
    // of the fiber's refs, of which that one keeps a snapshot per connection. (A function, not an
    // effect built now: an idle connection keeps no effect for its close.)
    yield* Scope.addFinalizerExit(scope, () => {
      onClose(new ConnectionError({ server, message: "connection closed", reason: "closed" }))
      deadlines.stop()
      return Effect.void
    })

    const write = opened.write
    /** Writes a registered request on a synchronous transport; not written, it is forgotten. */
    const writeNow = (write: NonNullable<Transport["write"]>, id: number, message: object) => {
      let error: SendError | undefined
      try {
        error = write(message)
      } catch (thrown) {
        // Params that cannot be serialized (the host's bug): nothing went out, nothing to wait for.
        table.entries.delete(id)
        throw thrown
      }
      if (error !== undefined) table.entries.delete(id)
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
      const { entry, id, message } = table.register(method, params, requestOptions)
      entry.resume = onExit
      return writeNow(write, id, message) ?? (() => table.abandon(id, entry))
    }

    const request = (
      method: string,
      params: Params,
      requestOptions?: RequestOptions
    ): Effect.Effect<unknown, RequestError> =>
      Effect.uninterruptibleMask((restore) => {
        if (closedWith !== undefined) return Effect.fail(closedWith)
        const { entry, id, message } = table.register(method, params, requestOptions)
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
            Effect.tapError(
              opened.send(message, requestOptions?.hints),
              () => Effect.sync(() => table.entries.delete(id))
            ),
            awaitResponse
          )
        }
        // Interrupted while waiting for the response: the request is abandoned. (Cheaper per
        // request than a canceler returned from `Effect.async`, which wraps it in `onInterrupt`.)
        return Effect.catchAllCause(restore(sent), (cause) => {
          if (awaiting && Cause.isInterruptedOnly(cause)) table.abandon(id, entry)
          return Effect.failCause(cause)
        })
      })

    const notify = (method: string, params?: Record<string, unknown>, hints?: SendHints) =>
      opened.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, hints)

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
      description: opened.description,
      authorization: opened.authorization ?? Effect.succeed(undefined),
      reusableCache: opened.reusableCache ?? true,
      streamRefused: opened.streamRefused
    } satisfies RpcPeer
  })
