/**
 * Checks of the results the connection returns. The schemas transform nothing, so a value that
 * passes the (allocation-free) check is its own decoding, unknown fields included; only a
 * failure pays for a full decode to explain itself.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { InvalidResponseError } from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"

/** @internal */
export type Decoder<A> = (server: string, method: string, value: unknown) => Effect.Effect<A, InvalidResponseError>

// `plain` recognises a common shape the schema accepts without walking it.
const decoder = <A, I>(schema: Schema.Schema<A, I>, plain?: (u: unknown) => u is A): Decoder<A> => {
  const is = Schema.is(schema)
  const decode = Schema.decodeUnknownEither(schema, McpSchema.parseOptions)
  return (server, method, value) => {
    if (plain?.(value) || is(value)) return Effect.succeed(value)
    const result = decode(value)
    return Either.isRight(result)
      ? Effect.succeed(result.right)
      : Effect.fail(new InvalidResponseError({ server, method, message: result.left.message.slice(0, 500) }))
  }
}

const isMeta = (u: unknown) => u === undefined || Predicate.isRecord(u)

/**
 * A tool result of text blocks without annotations: a subset of what `CallToolResult` accepts,
 * checked by hand because walking the schema is slow per call while the JIT warms up.
 *
 * @internal
 */
export const isPlainTextResult = (u: unknown): u is McpSchema.CallToolResult => {
  if (!Predicate.isRecord(u) || !Array.isArray(u.content) || !isMeta(u._meta)) return false
  if (u.isError !== undefined && typeof u.isError !== "boolean") return false
  for (const block of u.content) {
    if (
      !Predicate.isRecord(block) || block.type !== "text" || typeof block.text !== "string" ||
      block.annotations !== undefined || !isMeta(block._meta)
    ) return false
  }
  return true
}

/** @internal */
export const tools = decoder(McpSchema.page("tools", McpSchema.Tool))
/** @internal */
export const prompts = decoder(McpSchema.page("prompts", McpSchema.Prompt))
/** @internal */
export const resources = decoder(McpSchema.page("resources", McpSchema.Resource))
/** @internal */
export const templates = decoder(McpSchema.page("resourceTemplates", McpSchema.ResourceTemplate))
/** @internal */
export const callTool = decoder(McpSchema.CallToolResult, isPlainTextResult)
/** @internal */
export const getPrompt = decoder(McpSchema.GetPromptResult)
/** @internal */
export const readResource = decoder(McpSchema.ReadResourceResult)
/** @internal */
export const completeResult = decoder(McpSchema.CompleteResult)
