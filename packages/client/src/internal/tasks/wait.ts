/**
 * Waiting for a task: `tasks/get` polled at the server's pace (floored and capped) until the
 * task is terminal, its input requests answered through the handlers, each key once (2026-07-28
 * `tasks/update`; 2025-11-25 through the blocking `tasks/result`), the whole wait bounded.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Handlers from "../../Handlers.js"
import { InputRequiredError, InvalidResponseError, RequestTimeoutError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as Protocol from "../../Protocol.js"
import type { RequestOptions } from "../../ServerConnection.js"
import type { Task } from "../../Task.js"
import * as Defaults from "../defaults.js"
import * as Limits from "../limits.js"
import type { Registry, TaskRef } from "./registry.js"
import { idOf, isObject } from "./registry.js"
import type { ResultError, TaskError, WaitOptions } from "./tasks.js"

/** What the wait needs from the rest of the driver. @internal */
export interface Operations {
  readonly server: string
  readonly handlers: Handlers.Handlers | undefined
  readonly registry: Registry
  readonly gate: (method: string) => Effect.Effect<Protocol.Negotiated, TaskError>
  readonly get: (ref: TaskRef, options?: RequestOptions) => Effect.Effect<Task, ResultError>
  readonly result: (ref: TaskRef, options?: RequestOptions) => Effect.Effect<McpSchema.CallToolResult, ResultError>
  /** `tasks/update` with the answers. */
  readonly update: (
    ref: TaskRef,
    inputResponses: Record<string, unknown>,
    options: RequestOptions | undefined
  ) => Effect.Effect<unknown, TaskError>
}

/**
 * Polls `tasks/get` at the server's pace until the task is terminal. With `answer`, input
 * requests are answered through the handlers (each key once, across polls); without it an
 * `input_required` task stops the wait with `InputRequiredError`.
 *
 * @internal
 */
export const make = (ops: Operations) =>
(
  ref: TaskRef,
  options: WaitOptions | undefined,
  answer: boolean,
  first?: Task
): Effect.Effect<Task, ResultError> => {
  const { get, result, server } = ops
  const answered = ops.registry.answeredOf(idOf(ref))
  const pollMs = (task: Task) =>
    Math.min(Math.max(task.pollIntervalMs ?? Defaults.TASK_POLL_MS, Limits.MIN_POLL_MS), Limits.MAX_POLL_MS)
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
          ? Handlers.serve(ops.handlers, r.method, isObject(r.params) ? r.params : {}, "modern")
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
          : Effect.asVoid(ops.update(task, Object.fromEntries(answers), options))
        return failed === undefined ? update : Effect.zipRight(update, Effect.fail(failed.left))
      }
    )
  }
  const run = Effect.flatMap(
    ops.gate("tasks/get"),
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
