/**
 * Resume after a restart: what a host saves of a call in flight — a task handle, or the pending
 * round of an `input_required` request — as plain JSON, kept in any `@effect/platform`
 * `KeyValueStore` (memory, file system, a shared store), so that a new process can continue with
 * `client.resumeTask(saved)` or `client.resumeInputRequired(saved, answers?)`.
 *
 * The saved forms hold no credentials: tokens and secrets travel in headers the transport adds,
 * never in these. They do hold what the call was about (a tool's arguments, the server's opaque
 * `requestState`), so keep them where you would keep the call itself.
 *
 * @since 0.2.0
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { InputRequiredError } from "./McpError.js"
import { ConfigError } from "./McpError.js"
import * as McpSchema from "./McpSchema.js"
import { Task } from "./Task.js"

/**
 * A task handle as saved: the server that issued the id (ids are unique only there), the era it
 * was created on (informational: the new connection negotiates its own), the tool definition
 * its result is validated against, and the hints a wait uses (`ttlMs`, `pollIntervalMs`).
 *
 * @since 0.2.0
 * @category models
 */
export const SavedTask = Schema.Struct({
  kind: Schema.Literal("task"),
  version: Schema.Literal(1),
  server: Schema.String,
  taskId: Schema.String,
  era: Schema.optional(Schema.Literal("legacy", "modern")),
  status: Schema.optional(Schema.String),
  createdAt: Schema.optional(Schema.String),
  ttlMs: Schema.optional(Schema.NullOr(Schema.Number)),
  pollIntervalMs: Schema.optional(Schema.Number),
  tool: Schema.optional(McpSchema.Tool),
  savedAt: Schema.String
})

/**
 * @since 0.2.0
 * @category models
 */
export type SavedTask = typeof SavedTask.Type

/**
 * The pending round of an `input_required` request (2026-07-28): the request to send again (its
 * server, method and original params), the server's input requests still to answer, and its
 * opaque `requestState`, echoed exactly on the retry.
 *
 * @since 0.2.0
 * @category models
 */
export const SavedInputRequired = Schema.Struct({
  kind: Schema.Literal("input_required"),
  version: Schema.Literal(1),
  server: Schema.String,
  method: Schema.String,
  params: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  inputRequests: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  requestState: Schema.optional(Schema.String),
  savedAt: Schema.String
})

/**
 * @since 0.2.0
 * @category models
 */
export type SavedInputRequired = typeof SavedInputRequired.Type

/**
 * Either saved form.
 *
 * @since 0.2.0
 * @category models
 */
export const Saved = Schema.Union(SavedTask, SavedInputRequired)

/**
 * @since 0.2.0
 * @category models
 */
export type Saved = typeof Saved.Type

const now = () => new Date().toISOString()

/**
 * The saved form of a task handle (`era`: the era of the connection that created it, when the
 * host knows it). Results and errors are not kept: the new process fetches them again.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromTask = (task: Task, options?: { readonly era?: "legacy" | "modern" | undefined }): SavedTask => ({
  kind: "task",
  version: 1,
  server: task.server,
  taskId: task.taskId,
  ...(options?.era !== undefined ? { era: options.era } : {}),
  status: task.status,
  ...(task.createdAt !== undefined ? { createdAt: task.createdAt } : {}),
  ...(task.ttlMs !== undefined ? { ttlMs: task.ttlMs } : {}),
  ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
  ...(task.tool !== undefined ? { tool: task.tool } : {}),
  savedAt: now()
})

/**
 * The task handle a saved form names (on its own server; `generation` unknown, so the first
 * `tasks/get` whose `createdAt` differs from the saved one is a `TaskReplacedError`).
 *
 * @since 0.2.0
 * @category conversions
 */
export const toTask = (saved: SavedTask): Task =>
  new Task({
    taskId: saved.taskId,
    server: saved.server,
    status: saved.status ?? "working",
    createdAt: saved.createdAt,
    ttlMs: saved.ttlMs,
    pollIntervalMs: saved.pollIntervalMs,
    tool: saved.tool
  })

/** The requests a server may answer with `input_required` (DIGEST §5). */
const ROUND_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"])

/**
 * The saved form of the round an `InputRequiredError` stopped at. Throws `ConfigError` when the
 * error is not resumable (a malformed round cannot be answered by anyone), or when it is a
 * task's (`tasks/update`): save the task instead (`fromTask`); `resumeTask` asks the handlers.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromInputRequired = (error: InputRequiredError): SavedInputRequired => {
  if (!error.resumable) {
    throw new ConfigError({ message: `${error.method} on ${error.server} cannot be resumed: ${error.reason}` })
  }
  if (!ROUND_METHODS.has(error.method)) {
    throw new ConfigError({
      message: `${error.method} on ${error.server}: a task's input request; save the task (Resume.fromTask) instead`
    })
  }
  const params = typeof error.params === "object" && error.params !== null && !Array.isArray(error.params)
    ? error.params as Record<string, unknown>
    : {}
  const requests = error.inputRequests
  return {
    kind: "input_required",
    version: 1,
    server: error.server,
    method: error.method,
    params,
    ...(typeof requests === "object" && requests !== null && !Array.isArray(requests)
      ? { inputRequests: requests as Record<string, unknown> }
      : {}),
    ...(error.requestState !== undefined ? { requestState: error.requestState } : {}),
    savedAt: now()
  }
}

const decodeSaved = Schema.decodeUnknownEither(Saved)

/**
 * Reads a saved form back from what `JSON.parse` gave (a `ConfigError` for anything else).
 *
 * @since 0.2.0
 * @category constructors
 */
export const decode = (json: unknown): Effect.Effect<Saved, ConfigError> =>
  Effect.suspend(() => {
    const parsed = decodeSaved(json)
    return Either.isRight(parsed) ? Effect.succeed(parsed.right) : Effect.fail(
      new ConfigError({ message: `not a saved task or input_required round: ${parsed.left.message.slice(0, 300)}` })
    )
  })

/**
 * Writes `saved` under `key` in the store, as JSON.
 *
 * @since 0.2.0
 * @category storage
 */
export const save = (
  store: KeyValueStore.KeyValueStore,
  key: string,
  saved: Saved
): Effect.Effect<void, PlatformError.PlatformError> => store.set(key, JSON.stringify(saved))

/**
 * Reads what `save` wrote under `key` (`None` when nothing is there; `ConfigError` when what is
 * there is not a saved form).
 *
 * @since 0.2.0
 * @category storage
 */
export const load = (
  store: KeyValueStore.KeyValueStore,
  key: string
): Effect.Effect<Option.Option<Saved>, PlatformError.PlatformError | ConfigError> =>
  Effect.flatMap(store.get(key), (text) => {
    if (Option.isNone(text)) return Effect.succeed(Option.none())
    let json: unknown
    try {
      json = JSON.parse(text.value)
    } catch {
      return Effect.fail(new ConfigError({ message: `${key}: not JSON` }))
    }
    return Effect.map(decode(json), Option.some)
  })

/**
 * Forgets what is saved under `key` (once the call it continues has ended).
 *
 * @since 0.2.0
 * @category storage
 */
export const remove = (
  store: KeyValueStore.KeyValueStore,
  key: string
): Effect.Effect<void, PlatformError.PlatformError> => store.remove(key)
