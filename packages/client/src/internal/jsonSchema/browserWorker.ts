/**
 * `JsonSchema` in a Web Worker with a hard deadline.
 *
 * One worker answers one job at a time (the others wait here), so a job's deadline starts when
 * the worker takes it. When the deadline passes the worker is terminated — the browser stops even
 * a backtracking regular expression — the job ends in `Timeout`, and a fresh worker is started
 * for the next job. What the worker cannot take is answered in-process, where it costs nothing
 * to refuse: a schema or instance too deep to copy, and every job when no worker can be loaded.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { CheckOutcome, Options, Outcome, Service, Timeout } from "../../JsonSchema.js"
import { defaultBudgetMs, defaultLimits, make as makeInProcess, refuseInstance } from "./inProcess.js"
import type { Reply, Request } from "./workerProtocol.js"

/** @internal */
export interface WorkerOptions extends Options {
  /** Where the worker module is served; default `jsonSchemaWorker.js` beside this module. */
  readonly workerUrl?: string | URL | undefined
}

/** The part of the DOM's `Worker` used here (the package also builds without the DOM library). */
interface WebWorker {
  onmessage: ((event: { readonly data: Reply }) => void) | null
  onerror: ((event: { readonly message: string; preventDefault(): void }) => void) | null
  postMessage(message: Request): void
  terminate(): void
}
type WorkerConstructor = new(url: string | URL, options: { type: "module"; name: string }) => WebWorker
const WorkerClass = (): WorkerConstructor | undefined =>
  (globalThis as unknown as { Worker?: WorkerConstructor }).Worker

type Job = Extract<Request, { _tag: "job" }>

interface Waiter {
  readonly job: Omit<Job, "id" | "_tag">
  readonly resume: (outcome: Effect.Effect<Outcome | CheckOutcome>) => void
}

// The worker gives up by itself a little earlier and survives: only what it cannot interrupt (one
// regular expression) costs a new worker.
const softBudgetShare = 0.9

/** @internal */
export const make = (options?: WorkerOptions): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { workerUrl, ...engineOptions } = options ?? {}
    const inProcess = yield* makeInProcess(engineOptions)
    const budgetMs = engineOptions.budgetMs ?? defaultBudgetMs
    const timeout: Timeout = { _tag: "Timeout", budgetMs }
    const url = workerUrl ?? new URL("./jsonSchemaWorker.js", import.meta.url)
    const init: Request = {
      _tag: "init",
      options: { ...engineOptions, budgetMs: Math.max(1, Math.floor(budgetMs * softBudgetShare)) }
    }
    const maxDepth = Math.max(
      engineOptions.limits?.maxSchemaDepth ?? defaultLimits.maxSchemaDepth,
      engineOptions.limits?.maxInstanceDepth ?? defaultLimits.maxInstanceDepth
    )

    const queue: Array<Waiter> = []
    let inFlight:
      | { readonly waiter: Waiter; readonly id: number; readonly timer: ReturnType<typeof setTimeout> }
      | undefined
    let current: { readonly worker: WebWorker; started: boolean } | undefined
    // No worker could be loaded here (not served, blocked by a CSP): validate in-process.
    let unavailable = false
    let seq = 0

    const inProcessRun = (job: Waiter["job"]) =>
      job.op === "validate"
        ? inProcess.validate(job.schema, job.instance, { cacheKey: job.cacheKey })
        : inProcess.check(job.schema, { cacheKey: job.cacheKey })

    const settle = (outcome: Outcome | CheckOutcome) => {
      const flight = inFlight
      if (flight === undefined) return
      inFlight = undefined
      clearTimeout(flight.timer)
      flight.waiter.resume(Effect.succeed(outcome._tag === "Timeout" ? timeout : outcome))
    }

    const stop = () => {
      current?.worker.terminate()
      current = undefined
    }

    const spawn = () => {
      const worker = new (WorkerClass()!)(url, { type: "module", name: "mcp-effect JSON Schema" })
      const handle = { worker, started: false }
      worker.onmessage = ({ data }) => {
        if (current !== handle) return
        if (data === "ready") handle.started = true
        else if (inFlight?.id === data.id) settle(data.outcome)
        pump()
      }
      worker.onerror = (event) => {
        event.preventDefault()
        if (current !== handle) return
        stop()
        if (!handle.started) {
          unavailable = true
          for (const waiter of queue.splice(0)) waiter.resume(inProcessRun(waiter.job))
          return
        }
        settle({ _tag: "Unusable", reason: `the validator worker stopped: ${event.message}`.slice(0, 300) })
        pump()
      }
      worker.postMessage(init)
      return handle
    }

    const pump = (): void => {
      if (inFlight !== undefined || queue.length === 0) return
      const handle = current ?? (current = spawn())
      if (!handle.started) return
      const waiter = queue.shift()!
      const id = ++seq
      const timer = setTimeout(() => {
        stop()
        settle(timeout)
        current = spawn()
        pump()
      }, budgetMs)
      inFlight = { waiter, id, timer }
      try {
        handle.worker.postMessage({ _tag: "job", id, ...waiter.job } satisfies Request)
      } catch (error) {
        settle({ _tag: "Unusable", reason: `cannot be sent to the validator: ${String(error)}`.slice(0, 300) })
        pump()
      }
    }

    const run = (job: Waiter["job"]): Effect.Effect<Outcome | CheckOutcome> => {
      // Too deep to copy (copying costs the stack validating would): refused in-process, unrun.
      const tooDeep = refuseInstance(job.schema, maxDepth) !== undefined ||
        (job.op === "validate" && refuseInstance(job.instance, maxDepth) !== undefined)
      if (unavailable || tooDeep || WorkerClass() === undefined) return inProcessRun(job)
      return Effect.async<Outcome | CheckOutcome>((resume) => {
        const waiter: Waiter = { job, resume }
        queue.push(waiter)
        pump()
        return Effect.sync(() => {
          const index = queue.indexOf(waiter)
          if (index !== -1) queue.splice(index, 1)
        })
      })
    }

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        stop()
        if (inFlight !== undefined) clearTimeout(inFlight.timer)
        const waiters = [...(inFlight === undefined ? [] : [inFlight.waiter]), ...queue.splice(0)]
        inFlight = undefined
        for (const waiter of waiters) waiter.resume(Effect.interrupt)
      })
    )

    return {
      validate: (schema, instance, validateOptions) =>
        Effect.suspend(() =>
          run({ op: "validate", schema, instance, cacheKey: validateOptions?.cacheKey }) as Effect.Effect<Outcome>
        ),
      check: (schema, checkOptions) =>
        Effect.suspend(() =>
          run({ op: "check", schema, instance: undefined, cacheKey: checkOptions?.cacheKey }) as Effect.Effect<
            CheckOutcome
          >
        ),
      dialectOf: inProcess.dialectOf
    } satisfies Service
  })
