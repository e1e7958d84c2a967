/** @internal */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Handlers from "../Handlers.js"
import * as HeaderParams from "../HeaderParams.js"
import type { ConnectError, ValidationError } from "../McpError.js"
import {
  CapabilityError,
  InputRequiredError,
  InvalidResponseError,
  RequestTimeoutError,
  ServerError,
  ServerNotFoundError,
  TaskReplacedError
} from "../McpError.js"
import type * as McpSchema from "../McpSchema.js"
import type * as Protocol from "../Protocol.js"
import type { RequestOptions } from "../ServerConnection.js"
import { Task } from "../Task.js"

/** @internal */
export const EXTENSION = "io.modelcontextprotocol/tasks"
/** Poll no faster than this, whatever a server asks (and no slower than 10 s). */
const MIN_POLL_MS = 100
const MAX_POLL_MS = 10_000

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** What the driver needs from its connection. */
export interface Context {
  readonly server: string
  readonly handlers: Handlers.Handlers | undefined
  /** Whether the client declared the 2026-07-28 tasks extension. */
  readonly declared: boolean
  readonly session: Effect.Effect<Protocol.Negotiated, ConnectError>
  readonly send: (
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions | undefined,
    headers?: Record<string, string>
  ) => Effect.Effect<unknown, ConnectError>
  readonly decodeResult: (value: unknown) => Effect.Effect<McpSchema.CallToolResult, InvalidResponseError>
  readonly checkOutput: (
    tool: McpSchema.Tool | undefined,
    result: McpSchema.CallToolResult,
    era: "legacy" | "modern"
  ) => Effect.Effect<void, ValidationError>
}

/** A handle, or a bare id (not validated, not checked for replacement). */
export type TaskRef = Task | string

/** @internal */
export type TaskError = ConnectError | CapabilityError | TaskReplacedError | ServerNotFoundError

/** @internal */
export type ResultError = TaskError | InputRequiredError | ValidationError

/** @internal */
export interface WaitOptions extends RequestOptions {
  /** Bound on the whole wait (default: none; each request keeps its own timeout). */
  readonly waitTimeout?: Duration.DurationInput | undefined
}

const legacyCapability = (negotiated: Protocol.Negotiated, path: ReadonlyArray<string>): boolean => {
  let at: unknown = negotiated.capabilities.tasks
  for (const key of path) {
    if (!isObject(at)) return false
    at = at[key]
  }
  return at !== undefined
}

/**
 * Whether a `tools/call` result created a task: 2025-11-25 `{ task }`, 2026-07-28
 * `resultType: "task"`.
 *
 * @internal
 */
export const isCreated = (raw: unknown, era: "legacy" | "modern"): raw is Record<string, unknown> =>
  isObject(raw) && (era === "legacy" ? isObject(raw.task) : raw.resultType === "task")

/** @internal */
export const make = (context: Context) => {
  const { server } = context
  // Which task each id names here: a server that hands an id to a new task makes it a new
  // generation, and handles of the old one stop working.
  const registry = new Map<string, { generation: number; createdAt: string | undefined }>()
  // The input requests of each task the handlers already answered: never put to them twice,
  // across polls and across waits.
  const answeredKeys = new Map<string, Set<string>>()
  const answeredOf = (taskId: string) => {
    const known = answeredKeys.get(taskId)
    if (known !== undefined) return known
    const fresh = new Set<string>()
    answeredKeys.set(taskId, fresh)
    return fresh
  }

  const idOf = (ref: TaskRef) => typeof ref === "string" ? ref : ref.taskId
  const headers = (taskId: string) => ({ "mcp-name": HeaderParams.encodeValue(taskId) })

  /**
   * The era, after checking tasks can be used: on 2026-07-28 the client must have declared the
   * extension (a server answering `tools/call` with a task evidently speaks it); on 2025-11-25
   * the server must declare the capability at `tasks.<path>` when one is given.
   */
  const gate = (method: string, legacyPath?: ReadonlyArray<string>) =>
    Effect.flatMap(context.session, (negotiated): Effect.Effect<Protocol.Negotiated, CapabilityError> => {
      if (negotiated.era === "modern") {
        return context.declared ? Effect.succeed(negotiated) : Effect.fail(
          new CapabilityError({ server, capability: `${EXTENSION} (declare it in extensions)`, method })
        )
      }
      return legacyPath === undefined || legacyCapability(negotiated, legacyPath)
        ? Effect.succeed(negotiated)
        : Effect.fail(new CapabilityError({ server, capability: `tasks.${legacyPath.join(".")}`, method }))
    })

  /** A handle still names the task it was made for. */
  const check = (ref: TaskRef): Effect.Effect<void, TaskReplacedError | ServerNotFoundError> => {
    if (typeof ref === "string") return Effect.void
    if (ref.server !== server) return Effect.fail(new ServerNotFoundError({ server: ref.server, known: [server] }))
    const entry = registry.get(ref.taskId)
    if (entry === undefined) {
      registry.set(ref.taskId, { generation: ref.generation ?? 0, createdAt: ref.createdAt })
      return Effect.void
    }
    const replaced = (ref.generation !== undefined && ref.generation !== entry.generation) ||
      (ref.createdAt !== undefined && entry.createdAt !== undefined && ref.createdAt !== entry.createdAt)
    return replaced ? Effect.fail(new TaskReplacedError({ server, taskId: ref.taskId })) : Effect.void
  }

  /** Records what the server said about an id; a different creation time is another task. */
  const observe = (ref: TaskRef, createdAt: string | undefined): Effect.Effect<number, TaskReplacedError> => {
    const taskId = idOf(ref)
    const entry = registry.get(taskId)
    if (entry === undefined) {
      registry.set(taskId, { generation: 0, createdAt })
      return Effect.succeed(0)
    }
    if (createdAt !== undefined && entry.createdAt !== undefined && createdAt !== entry.createdAt) {
      registry.set(taskId, { generation: entry.generation + 1, createdAt })
      answeredKeys.delete(taskId)
      return typeof ref === "string"
        ? Effect.succeed(entry.generation + 1)
        : Effect.fail(new TaskReplacedError({ server, taskId }))
    }
    if (entry.createdAt === undefined) entry.createdAt = createdAt
    return Effect.succeed(entry.generation)
  }

  /** A task's fields as either era sends them (2025-11-25 `ttl`/`pollInterval`, else `…Ms`). */
  const toTask = (
    detail: Record<string, unknown>,
    ref: TaskRef,
    generation: number | undefined
  ): Task => {
    const error = isObject(detail.error) ? detail.error : undefined
    const ttl = detail.ttlMs !== undefined ? detail.ttlMs : detail.ttl
    const poll = detail.pollIntervalMs ?? detail.pollInterval
    return new Task({
      taskId: idOf(ref),
      server,
      status: typeof detail.status === "string" ? detail.status : "working",
      statusMessage: typeof detail.statusMessage === "string" ? detail.statusMessage : undefined,
      createdAt: typeof detail.createdAt === "string" ? detail.createdAt : undefined,
      lastUpdatedAt: typeof detail.lastUpdatedAt === "string" ? detail.lastUpdatedAt : undefined,
      ttlMs: typeof ttl === "number" || ttl === null ? ttl : undefined,
      pollIntervalMs: typeof poll === "number" ? poll : undefined,
      error: error === undefined ? undefined : {
        code: typeof error.code === "number" ? error.code : -32603,
        message: typeof error.message === "string" ? error.message.slice(0, 1_000) : "task failed",
        data: error.data
      },
      inputRequests: detail.status === "input_required" && isObject(detail.inputRequests)
        ? detail.inputRequests
        : undefined,
      tool: typeof ref === "string" ? undefined : ref.tool,
      generation
    })
  }

  /** The inline result of a completed 2026-07-28 task, decoded and checked against its tool. */
  const withInlineResult = (
    task: Task,
    detail: Record<string, unknown>,
    era: "legacy" | "modern"
  ): Effect.Effect<Task, ConnectError | ValidationError> =>
    task.status === "completed" && "result" in detail
      ? Effect.flatMap(
        context.decodeResult(detail.result),
        (result) => Effect.as(context.checkOutput(task.tool, result, era), task.with({ result }))
      )
      : Effect.succeed(task)

  /** The handle a task-returning `tools/call` answered with (see `isCreated`). */
  const created = (
    raw: Record<string, unknown>,
    tool: McpSchema.Tool | undefined,
    era: "legacy" | "modern"
  ): Effect.Effect<Task, ConnectError | ValidationError> => {
    const detail = era === "legacy" ? raw.task as Record<string, unknown> : raw
    if (typeof detail.taskId !== "string") {
      return Effect.fail(
        new ServerError({ server, method: "tools/call", code: -32603, message: "a task without taskId" })
      )
    }
    const taskId = detail.taskId
    const entry = registry.get(taskId)
    const generation = entry === undefined ? 0 : entry.generation + 1
    registry.set(taskId, { generation, createdAt: typeof detail.createdAt === "string" ? detail.createdAt : undefined })
    answeredKeys.delete(taskId)
    const base = toTask(detail, taskId, generation).with({ tool })
    return withInlineResult(base, detail, era)
  }

  const get = (ref: TaskRef, options?: RequestOptions): Effect.Effect<Task, TaskError | ValidationError> =>
    Effect.zipRight(
      check(ref),
      Effect.flatMap(gate("tasks/get"), (negotiated) =>
        Effect.flatMap(
          context.send("tasks/get", { taskId: idOf(ref) }, options, headers(idOf(ref))),
          (raw) => {
            const result = isObject(raw) ? raw : {}
            const detail = isObject(result.task) ? result.task : result
            const createdAt = typeof detail.createdAt === "string" ? detail.createdAt : undefined
            return Effect.flatMap(observe(ref, createdAt), (generation) =>
              withInlineResult(toTask(detail, ref, generation), detail, negotiated.era))
          }
        ))
    )

  const failure = (task: Task) =>
    new ServerError({
      server,
      method: "tools/call",
      code: task.error?.code ?? -32603,
      message: task.error?.message ?? `task ${task.taskId} ${task.status}`,
      data: {
        taskId: task.taskId,
        status: task.status,
        ...(task.error?.data !== undefined ? { data: task.error.data } : {})
      }
    })

  /**
   * The tool's result: 2025-11-25 `tasks/result` (which blocks until the task ends; the
   * server's requests meanwhile are answered by the handlers), 2026-07-28 the inline result of
   * `tasks/get` once the task completed. A failed or cancelled task is a `ServerError`.
   */
  const result = (ref: TaskRef, options?: RequestOptions): Effect.Effect<McpSchema.CallToolResult, ResultError> =>
    Effect.zipRight(
      check(ref),
      Effect.flatMap(gate("tasks/result"), (negotiated) => {
        if (negotiated.era === "legacy") {
          return Effect.flatMap(
            context.send("tasks/result", { taskId: idOf(ref) }, options, headers(idOf(ref))),
            (raw) =>
              Effect.flatMap(
                context.decodeResult(raw),
                (decoded) =>
                  Effect.as(
                    context.checkOutput(typeof ref === "string" ? undefined : ref.tool, decoded, "legacy"),
                    decoded
                  )
              )
          )
        }
        return Effect.flatMap(pollUntil(ref, options, false), (task) =>
          task.result !== undefined
            ? Effect.succeed(task.result)
            : Effect.fail(failure(task)))
      })
    )

  /**
   * Polls `tasks/get` at the server's pace until the task is terminal. With `answer`, input
   * requests are answered through the handlers (each key once, across polls); without it an
   * `input_required` task stops the wait with `InputRequiredError`.
   */
  const pollUntil = (
    ref: TaskRef,
    options: WaitOptions | undefined,
    answer: boolean,
    first?: Task
  ): Effect.Effect<Task, ResultError> => {
    const answered = answeredOf(idOf(ref))
    const pollMs = (task: Task) => Math.min(Math.max(task.pollIntervalMs ?? 1_000, MIN_POLL_MS), MAX_POLL_MS)
    const stop = (task: Task, reason: string, resumable: boolean) =>
      new InputRequiredError({
        server,
        method: "tasks/update",
        params: { taskId: task.taskId },
        inputRequests: task.inputRequests,
        resumable,
        reason
      })
    const step = (task: Task, era: "legacy" | "modern"): Effect.Effect<Task, ResultError> => {
      if (task.isTerminal) {
        if (task.status !== "completed" || task.result !== undefined) return Effect.succeed(task)
        return era === "legacy"
          ? Effect.map(result(task, options), (r) => task.with({ result: r }))
          : Effect.fail(
            new InvalidResponseError({
              server,
              method: "tasks/get",
              message: `task ${task.taskId} completed without a result`
            })
          )
      }
      if (task.status === "input_required") {
        // Requests already answered (here or by the host's updateTask) are waited out.
        const unanswered = Object.keys(task.inputRequests ?? {}).some((key) => !answered.has(key))
        if (!answer && unanswered) return Effect.fail(stop(task, "the task needs input; waitForTask answers it", true))
        if (!answer) return poll(task, era)
        // 2025-11-25: the input requests arrive as server requests while tasks/result blocks.
        if (era === "legacy") {
          return Effect.flatMap(
            Effect.either(result(task, options)),
            (outcome) =>
              Effect.flatMap(get(task, options), (next) =>
                Either.isRight(outcome) && next.status === "completed"
                  ? Effect.succeed(next.with({ result: outcome.right }))
                  : next.isTerminal
                  ? Effect.succeed(next)
                  : poll(next, era))
          )
        }
        return Effect.zipRight(respond(task), poll(task, era))
      }
      return poll(task, era)
    }
    const poll = (task: Task, era: "legacy" | "modern"): Effect.Effect<Task, ResultError> =>
      Effect.zipRight(
        Effect.sleep(Duration.millis(pollMs(task))),
        Effect.flatMap(get(task, options), (next) => step(next, era))
      )
    // Every outstanding request is put to its handler once; answers already produced are sent
    // even when another handler fails, and never asked again.
    const respond = (task: Task): Effect.Effect<void, ResultError> => {
      const pending = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key))
      return Effect.flatMap(
        Effect.forEach(pending, ([key, request]) => {
          const r = isObject(request) ? request : {}
          const served = typeof r.method === "string"
            ? Handlers.serve(context.handlers, r.method, isObject(r.params) ? r.params : {}, "modern")
            : undefined
          if (served === undefined) {
            return Effect.succeed(
              Either.left(stop(task, `no handler for a task's ${String(r.method).slice(0, 100)}`, true))
            )
          }
          return Effect.either(Effect.map(
            Effect.catchAll(served, (error) =>
              error instanceof Handlers.InvalidInputRequest
                ? Effect.fail(stop(task, `refused ${String(r.method)}: ${error.message}`, false))
                : Effect.zipRight(
                  Effect.logWarning(`${server}: the ${String(r.method)} handler failed: ${String(error)}`),
                  Effect.fail(stop(task, `the ${String(r.method)} handler failed`, true))
                )),
            (value) => [key, value] as const
          ))
        }),
        (outcomes) => {
          const answers = outcomes.filter(Either.isRight).map((o) => o.right)
          const failed = outcomes.find(Either.isLeft)
          for (const [key] of answers) answered.add(key)
          const update = answers.length === 0
            ? Effect.void
            : Effect.asVoid(update$(task, Object.fromEntries(answers), options))
          return failed === undefined ? update : Effect.zipRight(update, Effect.fail(failed.left))
        }
      )
    }
    const run = Effect.flatMap(
      gate("tasks/get"),
      (negotiated) =>
        first !== undefined
          ? step(first, negotiated.era)
          : Effect.flatMap(get(ref, options), (t) => step(t, negotiated.era))
    )
    const limit = options?.waitTimeout
    if (limit === undefined) return run
    const timeoutMs = Duration.toMillis(Duration.decode(limit))
    return Effect.timeoutFail(run, {
      duration: limit,
      onTimeout: () => new RequestTimeoutError({ server, method: "tasks/get", timeoutMs })
    })
  }

  const update$ = (ref: TaskRef, inputResponses: Record<string, unknown>, options: RequestOptions | undefined) =>
    context.send("tasks/update", { taskId: idOf(ref), inputResponses }, options, headers(idOf(ref)))

  /** 2026-07-28: the host's own answers to a task's input requests (`tasks/update`). */
  const update = (
    ref: TaskRef,
    inputResponses: Record<string, unknown>,
    options?: RequestOptions
  ): Effect.Effect<void, TaskError> =>
    Effect.zipRight(
      check(ref),
      Effect.flatMap(gate("tasks/update"), (negotiated): Effect.Effect<void, TaskError> =>
        negotiated.era === "legacy"
          ? Effect.fail(
            new CapabilityError({ server, capability: `${EXTENSION} (2026-07-28)`, method: "tasks/update" })
          )
          : Effect.asVoid(Effect.tap(update$(ref, inputResponses, options), () => {
            const answered = answeredOf(idOf(ref))
            for (const key of Object.keys(inputResponses)) answered.add(key)
          })))
    )

  /**
   * `tasks/cancel`. 2025-11-25 answers with the task; 2026-07-28 with an empty acknowledgement,
   * after which the task's state is read once (cancellation is eventually consistent).
   */
  const cancel = (ref: TaskRef, options?: RequestOptions): Effect.Effect<Task, TaskError | ValidationError> =>
    Effect.zipRight(
      check(ref),
      Effect.flatMap(
        gate("tasks/cancel", ["cancel"]),
        (negotiated) =>
          Effect.flatMap(context.send("tasks/cancel", { taskId: idOf(ref) }, options, headers(idOf(ref))), (raw) => {
            if (negotiated.era === "modern") return get(ref, options)
            const detail = isObject(raw) ? (isObject(raw.task) ? raw.task : raw) : {}
            const createdAt = typeof detail.createdAt === "string" ? detail.createdAt : undefined
            return Effect.map(observe(ref, createdAt), (generation) => toTask(detail, ref, generation))
          })
      )
    )

  /** 2025-11-25 `tasks/list`, every page (bounded by `maxPages`). 2026-07-28 has no list. */
  const list = (maxPages: number, options?: RequestOptions): Effect.Effect<ReadonlyArray<Task>, TaskError> =>
    Effect.flatMap(context.session, (negotiated) => {
      if (negotiated.era === "modern") {
        return Effect.fail(
          new CapabilityError({
            server,
            capability: "tasks/list (2025-11-25 only; not in 2026-07-28)",
            method: "tasks/list"
          })
        )
      }
      return Effect.zipRight(
        gate("tasks/list", ["list"]),
        Effect.suspend(() => {
          const tasks: Array<Task> = []
          const page = (cursor: string | undefined, n: number): Effect.Effect<ReadonlyArray<Task>, ConnectError> =>
            Effect.flatMap(
              context.send("tasks/list", cursor === undefined ? {} : { cursor }, options),
              (raw) => {
                const result = isObject(raw) ? raw : {}
                for (const item of Array.isArray(result.tasks) ? result.tasks : []) {
                  if (isObject(item) && typeof item.taskId === "string") {
                    tasks.push(toTask(item, item.taskId, registry.get(item.taskId)?.generation))
                  }
                }
                const next = typeof result.nextCursor === "string" ? result.nextCursor : undefined
                if (next === undefined || next === cursor) return Effect.succeed(tasks)
                if (n >= maxPages) {
                  return Effect.as(Effect.logWarning(`${server}: tasks/list stopped after ${maxPages} pages`), tasks)
                }
                return page(next, n + 1)
              }
            )
          return page(undefined, 1)
        })
      )
    })

  /**
   * Drives a task to its end as `callTool` does: polled at the server's pace, input requests
   * answered, bounded by the task's `ttlMs`; a failed or cancelled task is a `ServerError`.
   */
  const complete = (
    task: Task,
    options: RequestOptions | undefined
  ): Effect.Effect<McpSchema.CallToolResult, ConnectError | InputRequiredError | ValidationError> =>
    Effect.flatMap(
      pollUntil(
        task,
        {
          ...options,
          waitTimeout: typeof task.ttlMs === "number" ? Duration.millis(task.ttlMs) : undefined
        },
        true,
        task
      ),
      (done): Effect.Effect<McpSchema.CallToolResult, ResultError> =>
        done.result !== undefined ? Effect.succeed(done.result) : Effect.fail(failure(done))
    ).pipe(
      // Not reachable through a handle this call made itself, except a server that gives the
      // id to another task mid-call: an invalid answer to this call.
      Effect.catchTags({
        TaskReplacedError: (error) =>
          Effect.fail(new InvalidResponseError({ server, method: "tools/call", message: error.message })),
        CapabilityError: (error) =>
          Effect.fail(new InvalidResponseError({ server, method: "tools/call", message: error.message })),
        ServerNotFoundError: (error) =>
          Effect.fail(new InvalidResponseError({ server, method: "tools/call", message: error.message }))
      })
    )

  return {
    gate,
    created,
    complete,
    get,
    result,
    wait: (ref: TaskRef, options?: WaitOptions) => Effect.zipRight(check(ref), pollUntil(ref, options, true)),
    update,
    cancel,
    list
  }
}
