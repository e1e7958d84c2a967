/**
 * The failure a model is shown when an MCP tool call did not succeed: the server answered with
 * `isError: true`, or the call itself failed (the server is gone, the tool vanished, a timeout).
 *
 * @since 0.1.0
 */
import * as McpSchema from "@mcp-effect/client/McpSchema"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * A failed tool call. `message` is what the model reads; `result` is the server's `isError`
 * answer, `error` the client's error when there was no answer (absent on the other).
 *
 * @since 0.1.0
 * @category errors
 */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  /** The server that offers the tool. */
  server: Schema.String,
  /** The tool's MCP name (not the name the model saw, when they differ). */
  tool: Schema.String,
  message: Schema.String,
  /** The `isError: true` result the server returned. */
  result: Schema.optional(McpSchema.CallToolResult),
  /** The client's error (`ConnectError`, `ToolNotFoundError`, …) when the call got no result. */
  error: Schema.optional(Schema.Unknown)
}) {}

/**
 * Whether `u` is an {@link McpToolError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isMcpToolError = (u: unknown): u is McpToolError => Predicate.isTagged(u, "McpToolError")
