/**
 * A handle on a task a server runs for a task-augmented `tools/call` (2025-11-25 tasks, or the
 * 2026-07-28 `io.modelcontextprotocol/tasks` extension). Handles are immutable snapshots: every
 * operation returns a new one. A handle carries its server and the tool definition its creating
 * call went out under, so a result fetched through it is validated against that definition.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { ConfigError } from "./McpError.js"
import * as McpSchema from "./McpSchema.js"

/**
 * `working`, `input_required`, `completed`, `failed` or `cancelled` (a server may send others;
 * they are kept as sent and count as not terminal).
 *
 * @since 0.1.0
 * @category models
 */
export type Status = "working" | "input_required" | "completed" | "failed" | "cancelled" | (string & {})

/**
 * The JSON-RPC error a failed task ended with.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * What a handle serializes to (`JSON.stringify(task)`), and what `Task.fromJSON` reads back.
 *
 * @since 0.1.0
 * @category models
 */
export const TaskJson = Schema.Struct({
  taskId: Schema.String,
  server: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  statusMessage: Schema.optional(Schema.String),
  createdAt: Schema.optional(Schema.String),
  lastUpdatedAt: Schema.optional(Schema.String),
  ttlMs: Schema.optional(Schema.NullOr(Schema.Number)),
  pollIntervalMs: Schema.optional(Schema.Number),
  tool: Schema.optional(McpSchema.Tool)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskJson = typeof TaskJson.Type

const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"])

/**
 * What a handle knows of its task.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskFields {
  readonly taskId: string
  /** The server that issued the id: task ids are unique only there. */
  readonly server: string
  readonly status: Status
  readonly statusMessage?: string | undefined
  readonly createdAt?: string | undefined
  readonly lastUpdatedAt?: string | undefined
  /** How long the server keeps the task (`null`: unlimited; `undefined`: not said). */
  readonly ttlMs?: number | null | undefined
  readonly pollIntervalMs?: number | undefined
  /** The tool's result, once the task completed and it was fetched (or came inline). */
  readonly result?: McpSchema.CallToolResult | undefined
  /** The error a failed task ended with. */
  readonly error?: TaskError | undefined
  /** The server's outstanding requests while `input_required` (2026-07-28). */
  readonly inputRequests?: Record<string, unknown> | undefined
  /** The definition the creating call went out under; results are validated against it. */
  readonly tool?: McpSchema.Tool | undefined
  /** Which task of that id this handle names, within one client (`undefined`: not known). */
  readonly generation?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export class Task extends Data.Class<TaskFields> {
  /** `completed`, `failed` or `cancelled`. */
  get isTerminal(): boolean {
    return TERMINAL.has(this.status)
  }

  get isInputRequired(): boolean {
    return this.status === "input_required"
  }

  get isCompleted(): boolean {
    return this.status === "completed"
  }

  /** A copy with some fields replaced. */
  with(fields: Partial<TaskFields>): Task {
    return new Task({ ...this, ...fields })
  }

  /**
   * What a host keeps to name this task in another client or process: identity, last known
   * state and the tool definition (results and errors are not kept; fetch them again).
   */
  toJSON(): TaskJson {
    return {
      taskId: this.taskId,
      server: this.server,
      status: this.status,
      ...(this.statusMessage !== undefined ? { statusMessage: this.statusMessage } : {}),
      ...(this.createdAt !== undefined ? { createdAt: this.createdAt } : {}),
      ...(this.lastUpdatedAt !== undefined ? { lastUpdatedAt: this.lastUpdatedAt } : {}),
      ...(this.ttlMs !== undefined ? { ttlMs: this.ttlMs } : {}),
      ...(this.pollIntervalMs !== undefined ? { pollIntervalMs: this.pollIntervalMs } : {}),
      ...(this.tool !== undefined ? { tool: this.tool } : {})
    }
  }

  /**
   * Names a task from what `toJSON` produced (or a plain `{ taskId }`), on `server` (default:
   * the server the JSON names). Throws `ConfigError` for anything that is not a handle.
   */
  static fromJSON(json: unknown, server?: string): Task {
    const parsed = parse(json, server)
    if (Either.isLeft(parsed)) throw parsed.left
    return parsed.right
  }
}

const decodeJson = Schema.decodeUnknownEither(TaskJson, McpSchema.parseOptions)

/**
 * `Task.fromJSON` as an effect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = (json: unknown, server?: string): Effect.Effect<Task, ConfigError> =>
  Effect.suspend(() => parse(json, server))

const parse = (json: unknown, server: string | undefined): Either.Either<Task, ConfigError> => {
  const parsed = decodeJson(json)
  if (Either.isLeft(parsed)) {
    return Either.left(new ConfigError({ message: `not a task handle: ${parsed.left.message.slice(0, 300)}` }))
  }
  const fields = parsed.right
  const owner = server ?? fields.server
  if (owner === undefined) {
    return Either.left(new ConfigError({ message: `task ${fields.taskId}: the handle names no server; pass one` }))
  }
  return Either.right(new Task({ ...fields, server: owner, status: fields.status ?? "working" }))
}

/**
 * Whether a tool may run as a task (`execution.taskSupport` is `optional` or `required`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const supportsTask = (tool: McpSchema.Tool): boolean => {
  const support = tool.execution?.taskSupport
  return support === "optional" || support === "required"
}
