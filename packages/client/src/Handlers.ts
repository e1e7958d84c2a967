/**
 * What the host provides to answer a server's requests for input — elicitation, sampling and
 * roots — on both eras (server-initiated requests on legacy connections, `inputRequests` of
 * `input_required` results on 2026-07-28). The capabilities the client declares are derived
 * from which handlers exist, never hard-coded.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Deprecations from "./Deprecations.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Root {
  readonly uri: string
  readonly name?: string | undefined
}

/**
 * The params of an `elicitation/create` request: a form (`requestedSchema`) or, with
 * `mode: "url"`, a URL to open (2026-07-28 dropped `elicitationId`; the client removes it).
 *
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestParams =
  | {
    readonly mode?: "form" | undefined
    readonly message: string
    readonly requestedSchema: {
      readonly type: "object"
      readonly properties: Record<string, Record<string, unknown>>
      readonly required?: ReadonlyArray<string> | undefined
    }
    readonly [key: string]: unknown
  }
  | {
    readonly mode: "url"
    readonly message: string
    readonly url: string
    readonly elicitationId?: string | undefined
    readonly [key: string]: unknown
  }

/**
 * What an elicitation is answered with (a handler may also return the content alone for a
 * form, or `true` to accept a URL; an unknown action is sent as `cancel`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ElicitResult {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: Record<string, string | number | boolean | ReadonlyArray<string>> | undefined
  readonly _meta?: Record<string, unknown> | undefined
}

/**
 * One message of a sampling conversation.
 *
 * @since 0.1.0
 * @category models
 */
export interface SamplingMessage {
  readonly role: "user" | "assistant"
  readonly content: Record<string, unknown> | ReadonlyArray<Record<string, unknown>>
}

/**
 * The params of a `sampling/createMessage` request.
 *
 * @since 0.1.0
 * @category models
 */
export interface CreateMessageRequestParams {
  readonly messages: ReadonlyArray<SamplingMessage>
  readonly maxTokens: number
  readonly systemPrompt?: string | undefined
  readonly modelPreferences?: Record<string, unknown> | undefined
  readonly includeContext?: "none" | "thisServer" | "allServers" | undefined
  readonly temperature?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly metadata?: Record<string, unknown> | undefined
  readonly tools?: ReadonlyArray<Record<string, unknown>> | undefined
  readonly toolChoice?: Record<string, unknown> | undefined
  readonly [key: string]: unknown
}

/**
 * What a sampling request is answered with.
 *
 * @since 0.1.0
 * @category models
 */
export interface CreateMessageResult {
  readonly role: "assistant"
  readonly content: Record<string, unknown> | ReadonlyArray<Record<string, unknown>>
  readonly model: string
  readonly stopReason?: string | undefined
  readonly [key: string]: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Handlers {
  /**
   * Answers `elicitation/create`. Return `{ action, content? }` or, for a form, the content
   * alone (sent as `accept`). An action other than accept/decline/cancel is answered `cancel`.
   */
  readonly elicitation?: ((params: Record<string, unknown>) => Effect.Effect<unknown, unknown>) | undefined
  /** Which elicitation modes the handler supports (default: form only). */
  readonly elicitationModes?: ReadonlyArray<"form" | "url"> | undefined
  /** Answers `sampling/createMessage` with a `CreateMessageResult`. */
  readonly sampling?: ((params: Record<string, unknown>) => Effect.Effect<unknown, unknown>) | undefined
  /** The sampling handler accepts tool-enabled requests (declares `sampling.tools`). */
  readonly samplingSupportsTools?: boolean | undefined
  /** The sampling handler honours `includeContext` (declares `sampling.context`). */
  readonly samplingContext?: boolean | undefined
  /** The roots `roots/list` answers with; a function is read at every request (see `setRoots`). */
  readonly roots?: ReadonlyArray<Root> | (() => ReadonlyArray<Root>) | undefined
}

/**
 * An input request the client refuses before any handler runs (an invalid sampling history, a
 * tool-enabled request the handler does not support): `-32602` to the server.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidInputRequest extends Data.TaggedError("InvalidInputRequest")<{ readonly message: string }> {}

/**
 * The client capabilities the handlers imply.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const capabilities = (
  handlers: Handlers | undefined,
  era: "legacy" | "modern" = "modern"
): McpSchema.ClientCapabilities => {
  // Built field by field, not from spreads: one hidden class for all (each connection keeps two).
  const declared: { -readonly [K in keyof McpSchema.ClientCapabilities]: McpSchema.ClientCapabilities[K] } = {}
  if (handlers === undefined) return declared
  if (handlers.elicitation !== undefined) {
    declared.elicitation = Object.fromEntries((handlers.elicitationModes ?? ["form"]).map((mode) => [mode, {}]))
  }
  if (handlers.sampling !== undefined) {
    const sampling: Record<string, unknown> = {}
    if (handlers.samplingSupportsTools === true) sampling.tools = {}
    if (handlers.samplingContext === true) sampling.context = {}
    declared.sampling = sampling
  }
  if (handlers.roots !== undefined) declared.roots = era === "legacy" ? { listChanged: true } : {}
  return declared
}

const rootsOf = (handlers: Handlers | undefined): ReadonlyArray<Root> => {
  const roots = handlers?.roots
  return roots === undefined ? [] : typeof roots === "function" ? roots() : roots
}

const contentBlocks = (content: unknown): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(content) ? content.filter(Predicate.isRecord) : Predicate.isRecord(content) ? [content] : []

/**
 * Why a sampling request is refused before the handler sees it, if it is (DIGEST §5 and the
 * sampling page): roles user/assistant, content present, a user message carrying tool results
 * holds nothing else, every assistant tool use answered by the next user message, tools only
 * when the handler supports them, `includeContext` only with `sampling.context`.
 *
 * @since 0.1.0
 * @category sampling
 */
export const samplingProblem = (handlers: Handlers, params: Record<string, unknown>): string | undefined => {
  const messages = params.messages
  if (!Array.isArray(messages) || messages.length === 0) return "messages must be a non-empty array"
  const usesTools = (Array.isArray(params.tools) && params.tools.length > 0) || params.toolChoice !== undefined
  if (usesTools && handlers.samplingSupportsTools !== true) {
    return "tool-enabled sampling is not supported by this client"
  }
  const context = params.includeContext
  if ((context === "thisServer" || context === "allServers") && handlers.samplingContext !== true) {
    return `includeContext "${context}" is not supported by this client`
  }
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i]
    if (!Predicate.isRecord(message)) return `message ${i} is not an object`
    if (message.role !== "user" && message.role !== "assistant") return `message ${i} has an invalid role`
    const blocks = contentBlocks(message.content)
    if (blocks.length === 0) return `message ${i} has no content`
    const results = blocks.filter((b) => b.type === "tool_result")
    if (message.role === "user" && results.length > 0 && results.length !== blocks.length) {
      return `message ${i} mixes tool results with other content`
    }
    const uses = blocks.filter((b) => b.type === "tool_use")
    if (message.role === "assistant" && uses.length > 0) {
      const next: unknown = messages[i + 1]
      const answered = new Set(
        Predicate.isRecord(next) && next.role === "user"
          ? contentBlocks(next.content).filter((b) => b.type === "tool_result").map((b) => b.toolUseId)
          : []
      )
      if (uses.some((use) => !answered.has(use.id))) {
        return `a tool use of message ${i} is not answered by the next message`
      }
    }
  }
  return undefined
}

const ACTIONS = new Set(["accept", "decline", "cancel"])

/** Defaults of the requested schema fill what an accepted form left out (SEP-1034). */
const withDefaults = (content: unknown, schema: unknown): unknown => {
  if (!Predicate.isRecord(schema) || !Predicate.isRecord(schema.properties)) return content
  const filled: Record<string, unknown> = Predicate.isRecord(content) ? { ...content } : {}
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!(key in filled) && Predicate.isRecord(property) && "default" in property) filled[key] = property.default
  }
  return filled
}

/**
 * Normalises what an elicitation handler returned into an `ElicitResult`.
 *
 * @since 0.1.0
 * @category elicitation
 */
export const elicitResult = (params: Record<string, unknown>, answer: unknown): Record<string, unknown> => {
  const url = params.mode === "url"
  if (answer === true) return { action: "accept" }
  if (Predicate.isRecord(answer) && "action" in answer) {
    if (typeof answer.action !== "string" || !ACTIONS.has(answer.action)) return { action: "cancel" }
    const meta = Predicate.isRecord(answer._meta) ? { _meta: answer._meta } : {}
    if (answer.action !== "accept") return { action: answer.action, ...meta }
    return url
      ? { action: "accept", ...meta }
      : { action: "accept", content: withDefaults(answer.content, params.requestedSchema), ...meta }
  }
  // Content alone counts as consent only for forms; for a URL it is no explicit answer.
  return url ? { action: "cancel" } : { action: "accept", content: withDefaults(answer, params.requestedSchema) }
}

/**
 * Serves one input request, or `undefined` when no handler can: the answer is a plain value,
 * and a failing handler fails with its own error (never sent to the server).
 *
 * @since 0.1.0
 * @category serving
 */
export const serve = (
  handlers: Handlers | undefined,
  method: string,
  params: Record<string, unknown>,
  era: "legacy" | "modern" = "modern"
): Effect.Effect<unknown, unknown> | undefined => {
  switch (method) {
    case "elicitation/create": {
      const handler = handlers?.elicitation
      if (handler === undefined) return undefined
      const mode = params.mode === "url" ? "url" : "form"
      if (!(handlers?.elicitationModes ?? ["form"]).includes(mode)) return undefined
      // 2026-07-28 removed elicitationId: a modern server's is dropped, with a warning.
      let request = params
      if (mode === "url" && era === "modern" && "elicitationId" in params) {
        const { elicitationId: _dropped, ...rest } = params
        request = rest
      }
      const warning = request === params ? Effect.void : Effect.logWarning(
        "mcp-effect: dropped the elicitationId of a 2026-07-28 URL elicitation (the revision removed it)"
      )
      return Effect.zipRight(warning, Effect.map(handler(request), (answer) => elicitResult(request, answer)))
    }
    case "sampling/createMessage": {
      const handler = handlers?.sampling
      if (handler === undefined) return undefined
      const problem = samplingProblem(handlers!, params)
      if (problem !== undefined) return Effect.fail(new InvalidInputRequest({ message: problem }))
      const context = params.includeContext
      // Sampling and roots are deprecated by 2026-07-28, not by the revisions before it;
      // includeContext since 2025-11-25.
      return Effect.zipRight(
        Effect.zipRight(
          era === "modern" ? Deprecations.warnOnce("sampling") : Effect.void,
          context === "thisServer" || context === "allServers" ? Deprecations.warnOnce("includeContext") : Effect.void
        ),
        handler(params)
      )
    }
    case "roots/list": {
      const roots = rootsOf(handlers)
      // Empty roots never warn: nothing was used.
      return Effect.as(
        roots.length === 0 || era === "legacy" ? Effect.void : Deprecations.warnOnce("roots"),
        { roots }
      )
    }
    default:
      return undefined
  }
}
