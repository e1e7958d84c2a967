/**
 * Which task each id names on one connection: a server that hands an id to a new task makes it
 * a new generation, and handles of the old one stop working (`TaskReplacedError`); the input
 * requests of each task the handlers already answered; and a task's fields as either era sends
 * them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import { ServerNotFoundError, TaskReplacedError } from "../../McpError.js"
import { Task } from "../../Task.js"

/** A handle, or a bare id (not validated, not checked for replacement). @internal */
export type TaskRef = Task | string

/** @internal */
export const isObject = Predicate.isRecord

/** @internal */
export const idOf = (ref: TaskRef) => typeof ref === "string" ? ref : ref.taskId

/** @internal */
export interface Registry {
  /** The keys of a task's input requests already answered: never put to the handlers twice. */
  readonly answeredOf: (taskId: string) => Set<string>
  /** A handle still names the task it was made for. */
  readonly check: (ref: TaskRef) => Effect.Effect<void, TaskReplacedError | ServerNotFoundError>
  /** Records what the server said about an id; a different creation time is another task. */
  readonly observe: (ref: TaskRef, createdAt: string | undefined) => Effect.Effect<number, TaskReplacedError>
  /** A task just created under `taskId`: a new generation of that id, nothing answered yet. */
  readonly created: (taskId: string, createdAt: string | undefined) => number
  readonly generationOf: (taskId: string) => number | undefined
  /** A task's fields as either era sends them (2025-11-25 `ttl`/`pollInterval`, else `…Ms`). */
  readonly toTask: (detail: Record<string, unknown>, ref: TaskRef, generation: number | undefined) => Task
}

/** @internal */
export const make = (server: string): Registry => {
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

  const created = (taskId: string, createdAt: string | undefined) => {
    const entry = registry.get(taskId)
    const generation = entry === undefined ? 0 : entry.generation + 1
    registry.set(taskId, { generation, createdAt })
    answeredKeys.delete(taskId)
    return generation
  }

  const toTask = (detail: Record<string, unknown>, ref: TaskRef, generation: number | undefined): Task => {
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

  return {
    answeredOf,
    check,
    observe,
    created,
    generationOf: (taskId) => registry.get(taskId)?.generation,
    toTask
  }
}
