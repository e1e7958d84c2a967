/**
 * One MCP tool call as both bridges make it: an `isError` result and a call that failed are
 * both an `McpToolError`.
 *
 * @internal
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type * as ResultLimits from "@mcp-effect/client/ResultLimits"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { McpToolError } from "../McpToolError.js"
import * as ToolOutput from "./toolOutput.js"

/** @internal */
export const toolError = (source: McpClient.ServerTool, result: McpSchema.CallToolResult): McpToolError =>
  new McpToolError({ server: source.server, tool: source.name, message: ToolOutput.errorMessage(result), result })

/** @internal */
export const callError = (source: McpClient.ServerTool, error: unknown): McpToolError =>
  new McpToolError({
    server: source.server,
    tool: source.name,
    message: describeError(error),
    error
  })

const describeError = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const tag = "_tag" in error && typeof error._tag === "string" ? error._tag : undefined
    const message = "message" in error && typeof error.message === "string" ? error.message : undefined
    if (tag !== undefined && message !== undefined) return `${tag}: ${message}`
    if (message !== undefined) return message
  }
  return String(error)
}

/** What a bridge's options say of each call: its bound and its result limits. @internal */
export interface CallOptions extends ResultLimits.ResultLimits {
  readonly timeout?: Duration.DurationInput | undefined
}

/** The options of a call of `source`: its server, the bound and the result limits. @internal */
export const callOptions = (source: McpClient.ServerTool, options: CallOptions): McpClient.CallOptions => ({
  server: source.server,
  timeout: options.timeout,
  maxResultChars: options.maxResultChars,
  maxResultBytes: options.maxResultBytes,
  overflow: options.overflow
})

/** @internal */
export const call = (
  client: McpClient.Service,
  source: McpClient.ServerTool,
  options: CallOptions
) =>
(params: Record<string, unknown>): Effect.Effect<McpSchema.CallToolResult, McpToolError> =>
  client.callTool(source.name, params, callOptions(source, options)).pipe(
    Effect.mapError((error) => callError(source, error)),
    Effect.flatMap((result) =>
      result.isError === true ? Effect.fail(toolError(source, result)) : Effect.succeed(result)
    )
  )
