/**
 * `JsonSchema` in a worker thread with a hard deadline.
 *
 * One worker answers one request at a time (the others wait in a queue here), so a request's
 * deadline starts when the worker takes it, not while it waits behind another. When the deadline
 * passes the worker is terminated — V8 stops even a backtracking regular expression — the request
 * ends in `Timeout`, and a fresh worker starts at once for the next request (its compiled schemas
 * are lost; they are compiled again on use).
 *
 * @internal
 */
import type { CheckOutcome, Options, Outcome, Service, Timeout, Unusable } from "@mcp-effect/client/JsonSchema"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { Worker } from "node:worker_threads"
import type { Reply, Request } from "./jsonSchemaProtocol.js"

// Tests run this module from src/ (TypeScript), where the worker exists only as built JavaScript.
const workerUrl = import.meta.url.endsWith(".ts")
  ? new URL("../../dist/internal/jsonSchemaWorker.js", import.meta.url)
  : new URL("./jsonSchemaWorker.js", import.meta.url)

interface Handle {
  readonly worker: Worker
  started: boolean
  stopped: boolean
  /** Cache keys whose schema this worker was sent. */
  readonly sent: Set<string>
}

type Job =
  | {
    readonly op: "validate"
    readonly schema: unknown
    readonly instance: unknown
    readonly cacheKey: string | undefined
  }
  | { readonly op: "check"; readonly schema: unknown; readonly cacheKey: string | undefined }

// The worker gives up by itself at this share of the budget, and survives: only a validation it
// cannot interrupt (one regular expression) costs a new worker.
const softBudgetShare = 0.9

const definedOnly = <A extends object>(partial: A): Partial<A> =>
  Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<A>

/** @internal */
export const make = (options?: Options): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const budgetMs = options?.budgetMs ?? JsonSchema.defaultBudgetMs
    const limits = { ...JsonSchema.defaultLimits, ...definedOnly(options?.limits ?? {}) }
    const defaultDialect = options?.defaultDialect ?? "2020-12"
    const timeout: Timeout = { _tag: "Timeout", budgetMs }
    const cacheSize = options?.cacheSize ?? 256
    const workerData: Options = { ...options, budgetMs: Math.max(1, Math.floor(budgetMs * softBudgetShare)) }

    // $schema values the trusted remotes make usable (custom meta-schemas), as the worker sees them.
    const remoteDialects = new Map<string, JsonSchema.Dialect>()
    for (const remote of options?.remotes ?? []) {
      const schema = remote.schema as Record<string, unknown> | null
      if (typeof schema === "object" && schema !== null && typeof schema.$vocabulary === "object") {
        const base = typeof schema.$schema === "string"
          ? JsonSchema.dialectOf({ $schema: schema.$schema }, defaultDialect)
          : { _tag: "Supported" as const, dialect: defaultDialect }
        if (base._tag === "Supported") remoteDialects.set(remote.uri.replace(/#$/, ""), base.dialect)
      }
    }
    const dialectOf = (schema: unknown): JsonSchema.DialectOutcome => {
      const outcome = JsonSchema.dialectOf(schema, defaultDialect)
      if (outcome._tag === "Supported") return outcome
      const remote = remoteDialects.get(outcome.dialect.replace(/#$/, ""))
      return remote === undefined ? outcome : { _tag: "Supported", dialect: remote }
    }

    interface Waiter {
      readonly job: Job
      readonly resume: (outcome: Effect.Effect<Outcome | CheckOutcome>) => void
    }
    // Jobs not sent yet, and the one the worker is busy with: the worker gets one job at a time,
    // the next one sent as soon as the answer arrives (no fiber hop in between).
    const queue: Array<Waiter> = []
    let inFlight: { readonly waiter: Waiter; readonly id: number; readonly timer: NodeJS.Timeout } | undefined
    let current: Handle | undefined
    let seq = 0

    const post = (handle: Handle, job: Job, id: number, withSchema: boolean) => {
      handle.worker.postMessage(
        { ...job, schema: withSchema ? job.schema : undefined, withSchema, id } satisfies Request
      )
    }

    const settle = (outcome: Outcome | CheckOutcome) => {
      const flight = inFlight
      if (flight === undefined) return
      inFlight = undefined
      clearTimeout(flight.timer)
      // The worker's own (earlier) deadline is an implementation detail.
      flight.waiter.resume(Effect.succeed(outcome._tag === "Timeout" ? timeout : outcome))
    }

    const pump = (): void => {
      if (inFlight !== undefined || queue.length === 0) return
      const handle = current ?? (current = spawn())
      if (!handle.started) {
        // Its "ready" pumps. Until then no deadline timer exists: the waiting jobs keep the
        // process alive through the worker itself (nothing else may, and Node would exit).
        handle.worker.ref()
        return
      }
      const waiter = queue.shift()!
      const id = ++seq
      const timer = setTimeout(() => {
        stop(handle)
        settle(timeout)
        // Warm the next worker at once, whether or not a job waits for it.
        current ??= spawn()
        pump()
      }, budgetMs)
      inFlight = { waiter, id, timer }
      try {
        const key = waiter.job.cacheKey
        post(handle, waiter.job, id, key === undefined || !handle.sent.has(key))
      } catch (error) {
        settle({ _tag: "Unusable", reason: `cannot be sent to the validator: ${String(error)}`.slice(0, 300) })
        pump()
      }
    }

    const stop = (handle: Handle) => {
      if (handle.stopped) return
      handle.stopped = true
      if (current === handle) current = undefined
      void handle.worker.terminate().catch(() => {})
    }

    const spawn = (): Handle => {
      const worker = new Worker(workerUrl, { workerData })
      const handle: Handle = { worker, started: false, stopped: false, sent: new Set() }
      worker.on("message", (message: Reply | "ready") => {
        if (message === "ready") {
          handle.started = true
          worker.unref()
        } else if (inFlight !== undefined && inFlight.id === message.id) {
          const job = inFlight.waiter.job
          if ("missing" in message) {
            // Evicted from the worker's cache: send it again, same job, same deadline.
            handle.sent.delete(job.cacheKey!)
            try {
              return post(handle, job, message.id, true)
            } catch (error) {
              settle({ _tag: "Unusable", reason: `cannot be sent to the validator: ${String(error)}`.slice(0, 300) })
              return pump()
            }
          }
          if (job.cacheKey !== undefined) {
            if (handle.sent.size >= cacheSize) handle.sent.clear()
            handle.sent.add(job.cacheKey)
          }
          settle(message.outcome)
        }
        pump()
      })
      const died = (why: string) => {
        if (handle.stopped) return
        stop(handle)
        if (!handle.started) {
          // Not a hostile schema: the worker cannot run here (not built, not loadable).
          const defect = new Error(`the JSON Schema worker (${workerUrl.href}) could not start: ${why}`)
          for (const waiter of queue.splice(0)) waiter.resume(Effect.die(defect))
          return
        }
        settle({ _tag: "Unusable", reason: `the validator worker stopped: ${why}`.slice(0, 300) })
        pump()
      }
      worker.on("error", (error) => died(String(error)))
      worker.on("exit", (code) => died(`exit code ${code}`))
      // The scope terminates it; an unclosed scope must not keep the process alive. Only after the
      // listeners: on Node 20 adding a `message` listener refs the worker's port again. A job in
      // flight keeps the process alive through its deadline timer.
      worker.unref()
      return handle
    }

    const run = (job: Job): Effect.Effect<Outcome | CheckOutcome> =>
      Effect.async<Outcome | CheckOutcome>((resume) => {
        const waiter: Waiter = { job, resume }
        queue.push(waiter)
        pump()
        return Effect.sync(() => {
          // Interrupted: forget it if not sent; a sent job runs out (the worker is busy with it).
          const index = queue.indexOf(waiter)
          if (index !== -1) queue.splice(index, 1)
        })
      })

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (current !== undefined) stop(current)
        const waiters = [...(inFlight === undefined ? [] : [inFlight.waiter]), ...queue.splice(0)]
        if (inFlight !== undefined) clearTimeout(inFlight.timer)
        inFlight = undefined
        for (const waiter of waiters) waiter.resume(Effect.interrupt)
      })
    )
    // The worker starts with the first job: a program that validates nothing never loads it.

    // Without the caller's key, the schema object itself is the key (schemas are treated as
    // immutable), so the worker is sent each schema once rather than on every call.
    const objectKeys = new WeakMap<object, string>()
    let objects = 0
    const keyOf = (schema: unknown, cacheKey: string | undefined): string | undefined => {
      if (cacheKey !== undefined) return `k:${cacheKey}`
      if (typeof schema !== "object" || schema === null) return undefined
      let key = objectKeys.get(schema)
      if (key === undefined) objectKeys.set(schema, key = `o:${++objects}`)
      return key
    }

    // Checked once per schema object: a large schema is walked once, not on every call.
    const verdicts = new WeakMap<object, { readonly refused: Unusable | JsonSchema.UnsupportedDialect | undefined }>()
    const schemaRefused = (schema: unknown): Unusable | JsonSchema.UnsupportedDialect | undefined => {
      const known = typeof schema === "object" && schema !== null ? verdicts.get(schema) : undefined
      if (known !== undefined) return known.refused
      const refused = refuseSchema(schema)
      if (typeof schema === "object" && schema !== null) verdicts.set(schema, { refused })
      return refused
    }
    const refuseSchema = (schema: unknown): Unusable | JsonSchema.UnsupportedDialect | undefined => {
      const dialect = dialectOf(schema)
      if (dialect._tag === "UnsupportedDialect") return dialect
      // Not sent when too deep: copying it would cost as much stack as compiling it.
      const refused = JsonSchema.refuseInstance(schema, limits.maxSchemaDepth)
      if (refused === undefined) return undefined
      return {
        _tag: "Unusable",
        reason: refused.message.startsWith("nested")
          ? `the schema is nested deeper than ${limits.maxSchemaDepth} levels (at ${refused.path || "the root"})`
          : `the schema is not JSON (at ${refused.path || "the root"})`
      }
    }

    const check: Service["check"] = (schema, options) =>
      Effect.suspend(() => {
        const refused = schemaRefused(schema)
        if (refused !== undefined) return Effect.succeed(refused)
        return run({ op: "check", schema, cacheKey: keyOf(schema, options?.cacheKey) }) as Effect.Effect<CheckOutcome>
      })

    const validate: Service["validate"] = (schema, instance, options) =>
      Effect.suspend(() => {
        const refusedSchema = schemaRefused(schema)
        if (refusedSchema !== undefined) return Effect.succeed(refusedSchema)
        const refused = JsonSchema.refuseInstance(instance, limits.maxInstanceDepth)
        if (refused !== undefined) {
          // Not sent: copying it would cost as much stack as validating it.
          return Effect.map(check(schema, options), (ready): Outcome =>
            ready._tag === "Ready"
              ? { _tag: "Invalid", dialect: ready.dialect, partial: ready.partial, errors: [refused], omitted: 0 }
              : ready)
        }
        const cacheKey = keyOf(schema, options?.cacheKey)
        return run({ op: "validate", schema, instance, cacheKey }) as Effect.Effect<Outcome>
      })

    return { validate, check, dialectOf } satisfies Service
  })

/** @internal */
export interface Shared {
  readonly key: string
  readonly service: Service
  readonly scope: Scope.CloseableScope
  readonly lingerMs: number
  users: number
  timer: NodeJS.Timeout | undefined
}

// One service (and worker) per distinct options, for every scope that asked for a shared one.
const shared = new Map<string, Shared>()

/**
 * Takes a use of the shared service for `options` (starting it if there is none), synchronously;
 * `undefined` when the options cannot be a key. Give it back with {@link releaseShared}.
 *
 * @internal
 */
export const acquireShared = (options: Options | undefined, lingerMs: number): Shared | undefined => {
  let key: string
  try {
    key = JSON.stringify(options ?? {})
  } catch {
    return undefined
  }
  let entry = shared.get(key)
  if (entry === undefined) {
    const scope = Effect.runSync(Scope.make())
    entry = { key, service: builtOnFirstUse(options, scope), scope, lingerMs, users: 0, timer: undefined }
    shared.set(key, entry)
  }
  if (entry.timer !== undefined) {
    clearTimeout(entry.timer)
    entry.timer = undefined
  }
  entry.users++
  return entry
}

// Built when first asked, not when taken: a process's first connect reaches its server sooner
// (about 1 ms of first-run code before the spawn), and a client that validates nothing never
// builds it. `make` is synchronous, so the first use builds it to its end before anything else
// can ask.
const builtOnFirstUse = (options: Options | undefined, scope: Scope.Scope): Service => {
  let built: Service | undefined
  const service = () => built ??= Effect.runSync(Scope.extend(make(options), scope))
  // Once built, calls go straight to it: no suspend per validation on the call path.
  return {
    validate: (schema, instance, validateOptions) =>
      built !== undefined
        ? built.validate(schema, instance, validateOptions)
        : Effect.suspend(() => service().validate(schema, instance, validateOptions)),
    check: (schema, checkOptions) =>
      built !== undefined
        ? built.check(schema, checkOptions)
        : Effect.suspend(() => service().check(schema, checkOptions)),
    dialectOf: (schema) => service().dialectOf(schema)
  }
}

/**
 * Gives a use back; the last one stops the service `lingerMs` later unless it is taken again.
 *
 * @internal
 */
export const releaseShared = (entry: Shared): void => {
  if (--entry.users > 0) return
  entry.timer = setTimeout(() => {
    if (entry.users > 0 || shared.get(entry.key) !== entry) return
    shared.delete(entry.key)
    Effect.runFork(Scope.close(entry.scope, Exit.void))
  }, entry.lingerMs)
  entry.timer.unref()
}

/**
 * Like {@link make}, but every scope asking with equal options gets the same service (one worker,
 * one queue), started by the first and stopped `lingerMs` after the last one closed, so that
 * connections opened one after another do not each start a worker. Neither the worker nor the
 * linger timer keeps the process alive.
 *
 * @internal
 */
export const makeShared = (options?: Options, lingerMs = defaultLingerMs): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.suspend(() => {
    const entry = acquireShared(options, lingerMs)
    if (entry === undefined) return make(options)
    return Effect.as(Effect.addFinalizer(() => Effect.sync(() => releaseShared(entry))), entry.service)
  })

/** @internal */
export const defaultLingerMs = 10_000
