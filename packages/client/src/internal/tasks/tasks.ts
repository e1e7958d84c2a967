/**
 * The tasks driver of a connection (2025-11-25 task augmentation and the 2026-07-28 tasks
 * extension): the capability gate, the handle a task-returning call answers with, `tasks/get`,
 * `tasks/result`, `tasks/update`, `tasks/cancel`, `tasks/list`, and a call driven to its end.
 * Ids and generations live in `registry.ts`, the polling wait in `wait.ts`.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Handlers from "../../Handlers.js"
import * as HeaderParams from "../../HeaderParams.js"
import type {
  ConnectError,
  InputRequiredError,
  ServerNotFoundError,
  TaskReplacedError,
  ValidationError
} from "../../McpError.js"
import { CapabilityError, InvalidResponseError, ServerError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as Protocol from "../../Protocol.js"
import type { RequestOptions } from "../../ServerConnection.js"
import type { Task } from "../../Task.js"
import * as Defaults from "../defaults.js"
import * as Extensions from "../extensions.js"
import * as Registry from "./registry.js"
import type { TaskRef } from "./registry.js"
import { idOf, isObject } from "./registry.js"
import * as Wait from "./wait.js"

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
export type { TaskRef }

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

/**
 * The era, after checking tasks can be used: on 2026-07-28 the client must have declared the
 * extension (a server answering `tools/call` with a task evidently speaks it); on 2025-11-25
 * the server must declare the capability at `tasks.<path>` when one is given.
 */
const gateWith = (context: Context) => (method: string, legacyPath?: ReadonlyArray<string>) =>
  Effect.flatMap(context.session, (negotiated): Effect.Effect<Protocol.Negotiated, CapabilityError> => {
    if (negotiated.era === "modern") {
      return context.declared ? Effect.succeed(negotiated) : Effect.fail(
        new CapabilityError({
          server: context.server,
          capability: `${Extensions.TASKS} (declare it in extensions)`,
          method
        })
      )
    }
    return legacyPath === undefined || legacyCapability(negotiated, legacyPath)
      ? Effect.succeed(negotiated)
      : Effect.fail(
        new CapabilityError({ server: context.server, capability: `tasks.${legacyPath.join(".")}`, method })
      )
  })

/** A failed or cancelled task, as the `ServerError` of its call. */
const failureOf = (server: string, task: Task) =>
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

/** 2025-11-25 `tasks/list`, every page (bounded by `maxPages`). 2026-07-28 has no list. */
const listWith = (
  context: Context,
  registry: Registry.Registry,
  gate: ReturnType<typeof gateWith>
) =>
(maxPages: number, options?: RequestOptions): Effect.Effect<ReadonlyArray<Task>, TaskError> =>
  Effect.flatMap(context.session, (negotiated) => {
    const { server } = context
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
                  tasks.push(registry.toTask(item, item.taskId, registry.generationOf(item.taskId)))
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

/** The headers of a request about one task. */
const taskHeaders = (taskId: string) => ({ "mcp-name": HeaderParams.encodeValue(taskId) })

/**
 * Tells the server an abandoned task's work is no longer wanted: `tasks/cancel` in both eras
 * (for tasks, the spec forbids `notifications/cancelled`), where the server takes it. Best
 * effort, on a fiber of its own, so that an interrupted caller is not held by the round trip.
 */
const abandonWith = (context: Context, gate: ReturnType<typeof gateWith>) => (task: Task) =>
  Effect.forkDaemon(Effect.ignore(
    Effect.flatMap(
      gate("tasks/cancel", ["cancel"]),
      () =>
        context.send(
          "tasks/cancel",
          { taskId: task.taskId },
          { timeout: Defaults.TASK_CANCEL_TIMEOUT },
          taskHeaders(task.taskId)
        )
    )
  ))

/** A call is abandoned when its caller gave up (interrupted it) or its wait ran out of time. */
const abandoned = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isInterrupted(exit) ||
  (Exit.isFailure(exit) && Option.exists(Cause.failureOption(exit.cause), (e) => e._tag === "RequestTimeoutError"))

/** @internal */
export const make = (context: Context) => {
  const { server } = context
  const registry = Registry.make(server)
  const { check, observe, toTask } = registry
  const headers = taskHeaders
  const gate = gateWith(context)
  const failure = (task: Task) => failureOf(server, task)

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
    const generation = registry.created(taskId, typeof detail.createdAt === "string" ? detail.createdAt : undefined)
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

  const update$ = (ref: TaskRef, inputResponses: Record<string, unknown>, options: RequestOptions | undefined) =>
    context.send("tasks/update", { taskId: idOf(ref), inputResponses }, options, headers(idOf(ref)))

  const pollUntil = Wait.make({ server, handlers: context.handlers, registry, gate, get, result, update: update$ })

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
            new CapabilityError({ server, capability: `${Extensions.TASKS} (2026-07-28)`, method: "tasks/update" })
          )
          : Effect.asVoid(Effect.tap(update$(ref, inputResponses, options), () => {
            const answered = registry.answeredOf(idOf(ref))
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

  const abandon = abandonWith(context, gate)

  /**
   * Drives a task to its end as `callTool` does: polled at the server's pace, input requests
   * answered, bounded by the task's `ttlMs`; a failed or cancelled task is a `ServerError`. A
   * call interrupted or timed out (its TTL lapsed) cancels the task on the server.
   */
  const driveToResult = (
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
      }),
      Effect.onExit((exit) => abandoned(exit) ? abandon(task) : Effect.void)
    )

  /**
   * A task another client started, waited for as `wait` does, then answered as `callTool`
   * answers. Unlike `driveToResult`, giving up leaves the task alone: the host may resume again.
   */
  const resume = (task: Task, options?: WaitOptions): Effect.Effect<McpSchema.CallToolResult, ResultError> =>
    Effect.flatMap(
      Effect.zipRight(check(task), pollUntil(task, options, true)),
      (done): Effect.Effect<McpSchema.CallToolResult, ResultError> =>
        done.result !== undefined ? Effect.succeed(done.result) : Effect.fail(failure(done))
    )

  return {
    gate,
    created,
    driveToResult,
    resume,
    get,
    result,
    wait: (ref: TaskRef, options?: WaitOptions) => Effect.zipRight(check(ref), pollUntil(ref, options, true)),
    update,
    cancel,
    list: listWith(context, registry, gate)
  }
}
