/**
 * Server-initiated requests: each runs under a fixed budget, and every answer — a result, a
 * handler's error, a refusal — reaches the transport through one bounded path: at most
 * `maxConcurrent` answers in the transport at once (an HTTP answer is a POST), refusals waiting
 * for a free slot in a queue. The queue is bounded by backpressure, not by dropping: once it
 * holds `maxQueued` answers (or `maxQueuedIdChars` characters of ids) it asks the transport to
 * stop reading (`paused`), and lets it go on (`resumed`) once it is down to half, so every
 * request read gets its answer. Only a transport that does not stop reading can push it past a
 * hard ceiling (`OVERFLOW` times the count, `OVERFLOW_ID_CHARS` times the characters), beyond
 * which refusals are dropped and counted. Refusals are logged as one summary line per interval,
 * never one line each, so a flood costs bounded memory, sockets and log.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Queue from "effect/Queue"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type { RequestHandler } from "../../RpcPeer.js"
import { escapeControl } from "../escape.js"

/** @internal */
export interface Options {
  readonly server: string
  /** Sends one answer; never fails (a closed transport drops it). */
  readonly send: (message: object) => Effect.Effect<void>
  /** Serves one request; `undefined` for a method no handler serves (refused). */
  readonly serve: RequestHandler
  /** Requests handled at once, and answers in the transport at once. */
  readonly maxConcurrent: number
  /** Refusals waiting for a free answer slot before the transport is asked to stop reading… */
  readonly maxQueued: number
  /** …and the characters of their string ids, which the server chooses. */
  readonly maxQueuedIdChars: number
  /** How often refusals are summarised in the log. */
  readonly summaryInterval: Duration.DurationInput
}

/** @internal */
export interface ServerRequests {
  readonly onRequest: (id: string | number, method: string, params: Record<string, unknown> | undefined) => void
  /** `notifications/cancelled` for a request being handled: its handler is interrupted, no answer goes out. */
  readonly cancel: (id: string | number) => void
  /** Whether the refusal queue is full: the transport should stop reading. */
  readonly paused: () => boolean
  /** Completes once the queue is down to half (at once if it is not full). */
  readonly resumed: Effect.Effect<void>
}

type Id = string | number

/** Why a request was refused, as answered (a constant message: nothing of the server's is echoed). */
const REFUSALS = {
  budget: { code: -32603, message: "Too many concurrent requests" },
  unserved: { code: -32601, message: "Method not found" }
} as const

interface Refusal {
  readonly id: Id
  readonly reason: keyof typeof REFUSALS
}

/** Distinct methods named in one summary; the rest are counted together. */
const MAX_SUMMARY_METHODS = 8
const MAX_METHOD_NAME = 64
/**
 * How far past its bound the queue may grow before refusals are dropped: only a transport that
 * ignores `paused` gets there (one chunk or body read after the pause is always taken in full).
 */
const OVERFLOW = 64
const OVERFLOW_ID_CHARS = 4

const idChars = (id: Id) => (typeof id === "string" ? id.length : 0)

/** What one summary line reports. */
class Tally {
  budget = 0
  unserved = 0
  dropped = 0
  otherMethods = 0
  readonly methods = new Map<string, number>()

  get refused() {
    return this.budget + this.unserved
  }

  count(method: string, reason: Refusal["reason"], dropped: boolean) {
    this[reason]++
    if (dropped) this.dropped++
    // A copy, not a slice: a slice would keep a server-sized method name alive until the summary.
    const name = method.length <= MAX_METHOD_NAME ? method : `${[...method.slice(0, MAX_METHOD_NAME)].join("")}…`
    const seen = this.methods.get(name)
    if (seen !== undefined) this.methods.set(name, seen + 1)
    else if (this.methods.size < MAX_SUMMARY_METHODS) this.methods.set(name, 1)
    else this.otherMethods++
  }

  describe(server: string, interval: string) {
    const reasons = [
      this.budget > 0 ? `${this.budget} over the concurrency budget` : undefined,
      this.unserved > 0 ? `${this.unserved} for methods this client does not serve` : undefined
    ].filter((part) => part !== undefined).join(", ")
    const dropped = this.dropped > 0
      ? `; ${this.dropped} of them dropped unanswered, the transport not stopping for a full answer queue`
      : ""
    const methods = [...this.methods].map(([name, n]) => `${escapeControl(name, MAX_METHOD_NAME + 1)} ×${n}`)
    if (this.otherMethods > 0) methods.push(`other methods ×${this.otherMethods}`)
    return `${server}: refused ${this.refused} server request${
      this.refused === 1 ? "" : "s"
    } ${interval} (${reasons}${dropped}): ${methods.join(", ")}`
  }
}

/** @internal */
export const make = (options: Options): Effect.Effect<ServerRequests, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { maxConcurrent, send, serve, server } = options
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const fibers = yield* FiberSet.make<void>()
    // Handlers by id, for cancellation; `running` counts them (a server may reuse an id).
    const handling = new Map<Id, Fiber.RuntimeFiber<void>>()
    let running = 0
    const slots = yield* Effect.makeSemaphore(maxConcurrent)
    const answer = (message: object) => slots.withPermits(1)(send(message))

    // Refusals: queued for a free slot, sent by one dispatcher; a full queue pauses the transport.
    let queued = 0
    let queuedIdChars = 0
    const full = () => queued >= options.maxQueued || queuedIdChars >= options.maxQueuedIdChars
    // Made when the transport waits for room (a flood); completed once the queue is down to half.
    let room: Deferred.Deferred<void> | undefined
    // The queue and its dispatcher come with the first refusal: most connections never refuse.
    let refusals: Queue.Queue<Refusal> | undefined
    const dispatchRefusals = (queue: Queue.Queue<Refusal>) =>
      Queue.take(queue).pipe(
        Effect.flatMap((refusal) =>
          Effect.zipRight(
            slots.take(1),
            Effect.sync(() => {
              queued--
              queuedIdChars -= idChars(refusal.id)
              if (
                room !== undefined && queued <= options.maxQueued / 2 && queuedIdChars <= options.maxQueuedIdChars / 2
              ) {
                Deferred.unsafeDone(room, Effect.void)
                room = undefined
              }
              const { id, reason } = refusal
              FiberSet.unsafeAdd(
                fibers,
                runFork(Effect.ensuring(send({ jsonrpc: "2.0", id, error: REFUSALS[reason] }), slots.release(1)))
              )
            })
          )
        ),
        Effect.forever
      )
    const resumed = Effect.suspend(() =>
      full() ? Deferred.await(room ??= Deferred.unsafeMake<void>(FiberId.none)) : Effect.void
    )

    const interval = Duration.format(Duration.decode(options.summaryInterval))
    let tally = new Tally()
    let summaryDue = false
    const summarise = Effect.suspend(() => {
      const done = tally
      tally = new Tally()
      summaryDue = false
      if (done.refused === 0) return Effect.void
      const line = done.describe(server, `in the last ${interval}`)
      // Methods a client does not serve are routine (a server probing); a budget or a full queue is not.
      return done.budget > 0 || done.dropped > 0 ? Effect.logWarning(line) : Effect.logDebug(line)
    })
    yield* Effect.addFinalizer(() => summarise)

    const refuse = (id: Id, method: string, reason: Refusal["reason"]) => {
      if (refusals === undefined) {
        refusals = Effect.runSync(Queue.unbounded<Refusal>())
        // Started on the scheduler, as a forked fiber would be: refusals arriving in the same
        // burst fill the queue first.
        FiberSet.unsafeAdd(fibers, runFork(dispatchRefusals(refusals), { immediate: false }))
      }
      const fits = queued < OVERFLOW * options.maxQueued &&
        queuedIdChars + idChars(id) <= OVERFLOW_ID_CHARS * options.maxQueuedIdChars
      if (fits) {
        refusals.unsafeOffer({ id, reason })
        queued++
        queuedIdChars += idChars(id)
      }
      tally.count(method, reason, !fits)
      if (summaryDue) return
      summaryDue = true
      FiberSet.unsafeAdd(fibers, runFork(Effect.zipRight(Effect.sleep(options.summaryInterval), summarise)))
    }

    const answerOutcome = (id: Id, method: string) =>
      Effect.matchCauseEffect({
        onSuccess: (result: unknown) => answer({ jsonrpc: "2.0", id, result }),
        onFailure: (cause: Cause.Cause<{ readonly code: number; readonly message: string }>) => {
          const failure = Cause.failureOption(cause)
          if (failure._tag === "Some") {
            return answer({ jsonrpc: "2.0", id, error: { code: failure.value.code, message: failure.value.message } })
          }
          if (Cause.isInterruptedOnly(cause)) return Effect.void
          // Host exception details stay local; the server gets a constant message.
          return Effect.zipRight(
            Effect.logWarning(`${server}: handler for ${escapeControl(method, MAX_METHOD_NAME)} failed`, cause),
            answer({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } })
          )
        }
      })

    const onRequest = (id: Id, method: string, params: Record<string, unknown> | undefined) => {
      if (running >= maxConcurrent) return refuse(id, method, "budget")
      const handled = serve(method, params)
      if (handled === undefined) return refuse(id, method, "unserved")
      running++
      // The request keeps its place in the budget until its answer is out, so answers waiting
      // for the transport are bounded by the budget too.
      let fiber: Fiber.RuntimeFiber<void> | undefined = undefined
      fiber = runFork(Effect.ensuring(
        answerOutcome(id, method)(handled),
        Effect.sync(() => {
          running--
          if (fiber !== undefined && handling.get(id) === fiber) handling.delete(id)
        })
      ))
      if (fiber.unsafePoll() === null) {
        FiberSet.unsafeAdd(fibers, fiber)
        handling.set(id, fiber)
      }
    }

    const cancel = (id: Id) => {
      const fiber = handling.get(id)
      if (fiber !== undefined) runFork(Fiber.interrupt(fiber))
    }

    return { onRequest, cancel, paused: full, resumed }
  })
