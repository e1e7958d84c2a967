/**
 * What the host provides to answer a server's requests for input — elicitation, sampling and
 * roots — on both eras (server-initiated requests on legacy connections, `inputRequests` of
 * `input_required` results on 2026-07-28). The capabilities the client declares are derived
 * from which handlers exist, never hard-coded.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
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
  /** The roots `roots/list` answers with (served, even empty, once set). */
  readonly roots?: ReadonlyArray<Root> | undefined
}

/**
 * The client capabilities the handlers imply.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const capabilities = (handlers: Handlers | undefined): McpSchema.ClientCapabilities => {
  if (handlers === undefined) return {}
  const modes = handlers.elicitationModes ?? ["form"]
  return {
    ...(handlers.elicitation !== undefined
      ? { elicitation: Object.fromEntries(modes.map((mode) => [mode, {}])) }
      : {}),
    ...(handlers.sampling !== undefined ? { sampling: {} } : {}),
    ...(handlers.roots !== undefined ? { roots: {} } : {})
  }
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const ACTIONS = new Set(["accept", "decline", "cancel"])

/** Defaults of the requested schema fill what an accepted form left out (SEP-1034). */
const withDefaults = (content: unknown, schema: unknown): unknown => {
  if (!isObject(schema) || !isObject(schema.properties)) return content
  const filled: Record<string, unknown> = isObject(content) ? { ...content } : {}
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!(key in filled) && isObject(property) && "default" in property) filled[key] = property.default
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
  if (isObject(answer) && "action" in answer) {
    if (typeof answer.action !== "string" || !ACTIONS.has(answer.action)) return { action: "cancel" }
    const meta = isObject(answer._meta) ? { _meta: answer._meta } : {}
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
  params: Record<string, unknown>
): Effect.Effect<unknown, unknown> | undefined => {
  switch (method) {
    case "elicitation/create": {
      const handler = handlers?.elicitation
      if (handler === undefined) return undefined
      const mode = params.mode === "url" ? "url" : "form"
      if (!(handlers?.elicitationModes ?? ["form"]).includes(mode)) return undefined
      return Effect.map(handler(params), (answer) => elicitResult(params, answer))
    }
    case "sampling/createMessage":
      return handlers?.sampling === undefined ? undefined : handlers.sampling(params)
    case "roots/list":
      return Effect.succeed({ roots: handlers?.roots ?? [] })
    default:
      return undefined
  }
}
