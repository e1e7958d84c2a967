/** @internal */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Predicate from "effect/Predicate"

/**
 * @internal
 * @inline
 */
export interface TaskOptions {
  /** `pollIntervalMs` the server asks for (default 100). */
  readonly pollIntervalMs?: number | undefined
  /** `ttlMs` it grants (default 60 000; `null`: unlimited). */
  readonly ttlMs?: number | null | undefined
  /** Every new task gets the same id, as a server that reuses ids would. */
  readonly reuseIds?: boolean | undefined
  /** Items per `tasks/list` page (default: all). */
  readonly pageSize?: number | undefined
}

type Answer = Record<string, unknown>
type RpcError = { code: number; message: string; data?: unknown }

interface Entry {
  readonly taskId: string
  readonly createdAt: string
  readonly modern: boolean
  status: string
  statusMessage?: string
  lastUpdatedAt: string
  result?: unknown
  error?: RpcError
  inputRequests?: Record<string, unknown> | undefined
  inputResponses: Record<string, unknown>
  readonly done: Deferred.Deferred<void>
  updated: Deferred.Deferred<void>
  fiber?: Fiber.RuntimeFiber<void>
}

/** @internal */
export const EXTENSION = "io.modelcontextprotocol/tasks"

/**
 * The task side of the fake server: creation from a `tools/call`, the run (re-run with the
 * accumulated `inputResponses` after each `tasks/update`), and the task methods of both eras.
 *
 * @internal
 */
export const make = (
  options: TaskOptions,
  runFork: <A>(effect: Effect.Effect<A>) => Fiber.RuntimeFiber<A>,
  notify: (entry: { modern: boolean; send: (message: object) => void }, params: Record<string, unknown>) => void
) => {
  const tasks = new Map<string, Entry>()
  let sequence = 0

  const fields = (entry: Entry) => ({
    taskId: entry.taskId,
    status: entry.status,
    ...(entry.statusMessage !== undefined ? { statusMessage: entry.statusMessage } : {}),
    createdAt: entry.createdAt,
    lastUpdatedAt: entry.lastUpdatedAt,
    ...(entry.modern
      ? { ttlMs: options.ttlMs === undefined ? 60_000 : options.ttlMs, pollIntervalMs: options.pollIntervalMs ?? 100 }
      : { ttl: options.ttlMs === undefined ? 60_000 : options.ttlMs, pollInterval: options.pollIntervalMs ?? 100 })
  })

  /** 2026-07-28 `tasks/get` inlines the result, the error or the input requests. */
  const detailed = (entry: Entry) => ({
    ...fields(entry),
    ...(entry.status === "completed" ? { result: entry.result } : {}),
    ...(entry.status === "failed" && entry.error !== undefined ? { error: entry.error } : {}),
    ...(entry.status === "input_required" ? { inputRequests: entry.inputRequests } : {})
  })

  const stamp = Effect.map(Clock.currentTimeMillis, (now) => new Date(now + sequence).toISOString())

  /**
   * Starts a task running `run` (the tool) and answers with the creation result. `send` is
   * the creating connection (2025-11-25 status notifications go there).
   */
  const create = (
    modern: boolean,
    send: (message: object) => void,
    run: (inputResponses: Record<string, unknown> | undefined) => Effect.Effect<Answer>
  ): Effect.Effect<Answer> =>
    Effect.gen(function*() {
      sequence++
      const taskId = options.reuseIds === true ? "task-1" : `task-${sequence}`
      const old = tasks.get(taskId)
      if (old?.fiber !== undefined) yield* Fiber.interrupt(old.fiber)
      const now = yield* stamp
      const entry: Entry = {
        taskId,
        createdAt: now,
        lastUpdatedAt: now,
        modern,
        status: "working",
        inputResponses: {},
        done: yield* Deferred.make<void>(),
        updated: yield* Deferred.make<void>()
      }
      tasks.set(taskId, entry)
      const setStatus = (status: string, extra: Partial<Entry>) =>
        Effect.map(stamp, (at) => {
          Object.assign(entry, extra, { status, lastUpdatedAt: at })
          if (!modern) notify({ modern, send }, fields(entry))
        })
      // Suspended: each run sees the answers accumulated so far.
      const loop: Effect.Effect<void> = Effect.flatMap(
        Effect.suspend(() =>
          run(Object.keys(entry.inputResponses).length === 0 ? undefined : { ...entry.inputResponses })
        ),
        (answer) => {
          if (answer.resultType === "input_required" && Predicate.isRecord(answer.inputRequests)) {
            return Effect.gen(function*() {
              entry.updated = yield* Deferred.make<void>()
              yield* setStatus("input_required", { inputRequests: answer.inputRequests as Record<string, unknown> })
              yield* Deferred.await(entry.updated)
              yield* setStatus("working", { inputRequests: undefined })
              yield* loop
            })
          }
          return Effect.zipRight(setStatus("completed", { result: answer }), Deferred.succeed(entry.done, undefined))
        }
      )
      entry.fiber = runFork(loop)
      return modern ? { resultType: "task", ...fields(entry) } : { task: fields(entry) }
    })

  const find = (params: Record<string, unknown>): Effect.Effect<Entry, RpcError> => {
    const entry = typeof params.taskId === "string" ? tasks.get(params.taskId) : undefined
    return entry === undefined
      ? Effect.fail({ code: -32602, message: `Unknown task: ${String(params.taskId)}` })
      : Effect.succeed(entry)
  }

  const terminal = (entry: Entry) => ["completed", "failed", "cancelled"].includes(entry.status)

  /** Serves a task method, or `undefined` when `method` is not one. */
  const serve = (method: string, params: Record<string, unknown>, modern: boolean) => {
    switch (method) {
      case "tasks/get":
        return Effect.map(find(params), (entry) => modern ? detailed(entry) : fields(entry))
      case "tasks/result":
        if (modern) return Effect.fail({ code: -32601, message: "Method not found: tasks/result" })
        return Effect.flatMap(
          find(params),
          (entry) =>
            Effect.flatMap(Deferred.await(entry.done), () =>
              entry.status === "completed"
                ? Effect.succeed(entry.result)
                : Effect.fail(entry.error ?? { code: -32603, message: `task ${entry.status}` }))
        )
      case "tasks/update":
        if (!modern) return Effect.fail({ code: -32601, message: "Method not found: tasks/update" })
        return Effect.flatMap(find(params), (entry) => {
          if (Predicate.isRecord(params.inputResponses)) Object.assign(entry.inputResponses, params.inputResponses)
          return Effect.as(Deferred.succeed(entry.updated, undefined), {})
        })
      case "tasks/cancel":
        return Effect.flatMap(find(params), (entry): Effect.Effect<unknown, RpcError> => {
          if (terminal(entry)) return Effect.fail({ code: -32602, message: `task ${entry.taskId} is already terminal` })
          return Effect.gen(function*() {
            if (entry.fiber !== undefined) yield* Fiber.interrupt(entry.fiber)
            entry.status = "cancelled"
            entry.lastUpdatedAt = yield* stamp
            yield* Deferred.succeed(entry.done, undefined)
            return modern ? {} : fields(entry)
          })
        })
      case "tasks/list": {
        if (modern) return Effect.fail({ code: -32601, message: "Method not found: tasks/list" })
        const all = [...tasks.values()].map(fields)
        const start = typeof params.cursor === "string" ? Number(params.cursor) || 0 : 0
        const size = options.pageSize ?? all.length
        const end = start + size
        return Effect.succeed({
          tasks: all.slice(start, end),
          ...(end < all.length ? { nextCursor: String(end) } : {})
        })
      }
      default:
        return undefined
    }
  }

  return { create, serve }
}
