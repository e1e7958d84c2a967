/**
 * The Streamable HTTP transport's connection: `send`, cancellation and the exchange fibers (the
 * POST, its reply and the GET stream are in `streamablePost`, `postReply` and `streamableGet`).
 * Loaded with a Streamable HTTP or plain HTTP server's first connection, so that a process that
 * only talks to stdio servers never loads the HTTP transports.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { ConnectionError } from "../../McpError.js"
import type { InvalidResponseError } from "../../McpError.js"
import type { Options } from "../../StreamableHttp.js"
import type { SendError, SendHints, TransportFactory } from "../../Transport.js"
import * as Address from "../address.js"
import * as Defaults from "../defaults.js"
import * as Http from "./http.js"
import * as Reply from "./postReply.js"
import type { Id, Json } from "./postReply.js"
import * as Get from "./streamableGet.js"
import * as Post from "./streamablePost.js"
import * as State from "./streamableState.js"
import * as StreamSlots from "./streamSlots.js"

/**
 * Waits until `fiber` ends or `ms` pass, whichever comes first: an observer and one timer, where
 * `Effect.timeout(Fiber.await(fiber))` races two more fibers (and an Effect sleep) per connection.
 */
const endOrTimeout = (fiber: Fiber.RuntimeFiber<unknown, unknown>, ms: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const ended = () => {
      clearTimeout(timer)
      resume(Effect.void)
    }
    const timer = setTimeout(() => {
      fiber.removeObserver(ended)
      resume(Effect.void)
    }, ms)
    // Called at once when the fiber has already ended.
    fiber.addObserver(ended)
    return Effect.sync(() => {
      clearTimeout(timer)
      fiber.removeObserver(ended)
    })
  })

/** @internal */
export const transportOf = (
  options: Options,
  mode: "streamable" | "plain",
  lost: State.LostSessions
): TransportFactory<HttpClient.HttpClient> =>
(sink, server) =>
  Effect.gen(function*() {
    const c = State.make(yield* Http.settings(server, options, sink), options.url, sink, lost)
    // The exchanges' fibers, interrupted by the transport's one finalizer (below). A plain set,
    // not a `FiberSet`: its finalizer would keep one more copy of the fiber's refs per connection.
    const fibers = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
    let fibersClosed = false
    const track = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) => {
      if (fibersClosed) {
        fiber.unsafeInterruptAsFork(FiberId.none)
      } else if (!fibers.has(fiber)) {
        fibers.add(fiber)
        fiber.addObserver(() => {
          if (!fibersClosed) fibers.delete(fiber)
        })
      }
      return fiber
    }
    // Forks a request's exchange into `fibers` at once (no effect around the fork), in a fiber
    // whose refs already turn the HttpClient's spans off (no `Effect.locally` per request).
    const runFork = Runtime.runFork(Http.quietRuntime(sink.runtime ?? (yield* Effect.runtime<never>())))
    const fork = <A, E>(exchange: Effect.Effect<A, E>) => track(runFork(exchange))
    // The GET stream's fibers, forked the same way.
    const run = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<Fiber.RuntimeFiber<A, E>> =>
      Effect.sync(() => fibersClosed ? Effect.runFork(Effect.interrupt) as Fiber.RuntimeFiber<A, E> : fork(effect))
    const readers = new Map<Id, Fiber.RuntimeFiber<unknown, never>>()
    // The requests of `readers` sent as 2026-07-28 requests (see `send` on cancellation).
    const modernReaders = new Set<Id>()
    let listening = false
    // Why the GET stream was not opened (the origin's long-lived streams at their limit).
    let getRefused: ConnectionError | undefined
    // This connection's slot among the origin's long-lived streams (GET and listen streams),
    // made with its first such stream: most connections open none.
    let holder: StreamSlots.Holder | undefined
    const slot = () =>
      holder ??= StreamSlots.holder(
        server,
        Http.originOf(options.url),
        StreamSlots.limitOf(options.maxStreamsPerOrigin)
      )
    const accept = mode === "plain" ? "application/json" : "application/json, text/event-stream"

    // The GET stream is opened before `notifications/initialized` goes out, so what a server
    // sends the moment it is initialized (a list_changed, say) has a stream to arrive on.
    const openListen = Effect.suspend(() => {
      listening = true
      // Without a slot the GET stream is left closed, so that calls still get a connection.
      const refused = slot().open()
      if (refused !== undefined) {
        getRefused = refused
        return Effect.logWarning(`${server}: no GET stream: ${refused.message}`)
      }
      // The first GET keeps running if it is slow: listen takes its answer rather than
      // opening a second stream (which would pick up messages meant for a resumption).
      return Effect.flatMap(run(Effect.either(State.get(c, undefined))), (firstGet) =>
        Effect.zipRight(
          run(Effect.ensuring(Get.listen(c, Fiber.join(firstGet)), Effect.sync(slot().close))),
          endOrTimeout(firstGet, Defaults.FIRST_GET_WAIT_MS)
        ))
    })

    // A request's exchange runs in a fiber of its own, its failure reported for its id: the
    // caller waits for the response alone, so the request's deadline covers a POST the server
    // never answers, cancellation interrupts the exchange, and closing the transport interrupts
    // whatever is still in flight. A defect (our bug) fails the request at once too, logged,
    // rather than leaving it to its timeout.
    const forkExchange = (exchange: Effect.Effect<void, SendError | InvalidResponseError>, id: Id, method: string) =>
      fork(Effect.catchAllCause(exchange, (cause) => {
        const failure = Cause.failureOption(cause)
        if (failure._tag === "Some") {
          const error = failure.value
          return Effect.sync(() =>
            sink.onRequestFailed(
              id,
              error._tag === "InvalidResponseError"
                ? new ConnectionError({ server, message: error.message, reason: "protocol" })
                : error
            )
          )
        }
        if (Cause.isInterruptedOnly(cause)) return Effect.void
        return Effect.zipRight(
          Effect.logError(`${server}: internal error in the HTTP exchange of ${method}`, cause),
          Effect.sync(() =>
            sink.onRequestFailed(
              id,
              new ConnectionError({ server, message: `internal error in the HTTP exchange: ${Cause.squash(cause)}` })
            )
          )
        )
      }))

    const send = (message: object, hints?: SendHints): Effect.Effect<void, SendError> =>
      Effect.suspend(() => {
        if (c.closed) {
          return Effect.fail(new ConnectionError({ server, message: "the HTTP session is closed", reason: "closed" }))
        }
        const m = message as Json
        const method = typeof m.method === "string" ? m.method : "response"
        const id = typeof m.method === "string" && Reply.isId(m.id) ? m.id : undefined
        if (method === "initialize") c.initializeId = id
        if (method === "notifications/cancelled" && Reply.isObject(m.params) && Reply.isId(m.params.requestId)) {
          const reader = readers.get(m.params.requestId)
          if (reader !== undefined) track(Effect.runFork(Fiber.interrupt(reader)))
          // On 2026-07-28 closing the response stream (aborting the POST) is the cancellation:
          // nothing is posted. (Its exchange, while it runs, is the only way the response could come.)
          if (modernReaders.has(m.params.requestId)) return Effect.void
        }
        const before = method === "notifications/initialized" && mode === "streamable" &&
            options.getStream !== false && !listening
          ? openListen
          : undefined
        const posted = Effect.flatMap(
          Post.post(c, accept, m, method, hints),
          (response) => Post.processReply(c, response, id, method, hints?.modern !== true)
        )
        const exchange = before === undefined ? posted : Effect.zipRight(before, posted)
        // A 2026-07-28 listen stream is long-lived: it needs the connection's slot (shared by its
        // replacement), and fails at once, clearly, when the origin has none left.
        const longLived = method === "subscriptions/listen" && id !== undefined
        if (longLived) {
          const refused = slot().open()
          if (refused !== undefined) return Effect.fail(refused)
        }
        if (id === undefined) {
          return Effect.catchTag(
            exchange,
            "InvalidResponseError",
            (e) => Effect.fail(new ConnectionError({ server, message: e.message, reason: "protocol" }))
          )
        }
        const fiber = forkExchange(exchange, id, method)
        readers.set(id, fiber)
        if (hints?.modern === true) modernReaders.add(id)
        if (longLived) fiber.addObserver(slot().close)
        fiber.addObserver(() => {
          if (readers.get(id) !== fiber) return
          readers.delete(id)
          modernReaders.delete(id)
        })
        return Effect.void
      })

    // The session's DELETE, then the exchanges' fibers interrupted (as a `FiberSet` made before
    // this finalizer would be, after it). A finalizer of the scope itself, built when it runs, the
    // DELETE forked with the transport's runtime: it sees the refs of the opening (its context,
    // its log annotations) as under `Effect.addFinalizer`, which keeps a copy of them per connection.
    yield* Scope.addFinalizerExit(yield* Effect.scope, () =>
      Effect.ensuring(
        Effect.suspend(() => {
          c.closed = true
          if (c.sessionId === undefined) {
            return Effect.void
          }
          const request = HttpClientRequest.del(options.url).pipe(HttpClientRequest.setHeaders(State.headers(c)))
          return Fiber.join(runFork(
            Http.executeAuthorized(c.settings, request).pipe(
              Effect.flatMap(Http.discard),
              Effect.timeout(Defaults.SESSION_DELETE_TIMEOUT),
              Effect.ignore
            )
          ))
        }),
        Effect.suspend(() => {
          fibersClosed = true
          return Fiber.interruptAll(fibers)
        })
      ))

    return {
      send,
      description: `${mode === "plain" ? "http" : "streamable-http"}:${Http.originOf(options.url)}`,
      authorization: Effect.suspend(() => Http.authorizationKey(c.settings.headers())),
      reusableCache: !c.settings.customised,
      sessionId: () => c.sessionId,
      streamRefused: () => getRefused,
      address: Address.addressOf(options.url)
    }
  })
