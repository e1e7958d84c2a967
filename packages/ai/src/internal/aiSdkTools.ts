/**
 * @internal
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import { dynamicTool, jsonSchema } from "ai"
import type { JSONSchema7, JSONValue, ToolSet } from "ai"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import * as Runtime from "effect/Runtime"
import type * as AiSdkTools from "../AiSdkTools.js"
import { isMcpToolError, McpToolError } from "../McpToolError.js"
import * as Call from "./call.js"
import * as ToolOutput from "./toolOutput.js"

type CallFn = (
  tool: McpClient.ServerTool,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined
) => Promise<McpSchema.CallToolResult>

/** @internal */
export const toModelOutput = (result: McpSchema.CallToolResult): AiSdkTools.ModelOutput => {
  if (result.structuredContent !== undefined) return { type: "json", value: result.structuredContent as JSONValue }
  if (!result.content.some((block) => block.type === "image" || block.type === "audio")) {
    return { type: "text", value: ToolOutput.text(result) }
  }
  return {
    type: "content",
    value: result.content.map((block) =>
      block.type === "image" || block.type === "audio"
        ? { type: "file", data: { type: "data", data: block.data }, mediaType: block.mimeType }
        : { type: "text", text: ToolOutput.blockText(block) }
    )
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
const abortable = <A>(promise: Promise<A>, signal: AbortSignal | undefined): Promise<A> => {
  if (signal === undefined) return promise
  return new Promise<A>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })
}

/** @internal */
export const fromTools = (
  tools: ReadonlyArray<McpClient.ServerTool>,
  call: CallFn,
  options: AiSdkTools.Options = {}
): ToolSet => {
  const sources = options.filter === undefined ? tools : tools.filter(options.filter)
  const names = ToolOutput.names(sources, options.name ?? ToolOutput.defaultNaming)
  const set: ToolSet = {}
  sources.forEach((source, i) => {
    const description = ToolOutput.description(source)
    set[names[i]!] = dynamicTool({
      ...(description === undefined ? {} : { description }),
      inputSchema: jsonSchema(source.inputSchema as JSONSchema7),
      metadata: { mcpServer: source.server, mcpTool: source.originalName ?? source.name },
      execute: async (input, { abortSignal }) => {
        abortSignal?.throwIfAborted()
        if (!Predicate.isRecord(input)) {
          throw new McpToolError({
            server: source.server,
            tool: source.name,
            message: "the tool's input must be a JSON object"
          })
        }
        let result: McpSchema.CallToolResult
        try {
          result = await abortable(call(source, input, abortSignal), abortSignal)
        } catch (error) {
          if (abortSignal?.aborted === true && error === abortSignal.reason) throw error
          throw isMcpToolError(error) ? error : Call.callError(source, error)
        }
        if (result.isError === true) throw Call.toolError(source, result)
        return result
      },
      toModelOutput: ({ output }) => toModelOutput(output as McpSchema.CallToolResult)
    })
  })
  return set
}

/** @internal */
export const toAiSdkTools = async (
  client: AiSdkTools.PromiseClient,
  options: AiSdkTools.Options = {}
): Promise<ToolSet> => {
  const tools = await client.listTools({ server: options.server })
  return fromTools(
    tools,
    (source, args, signal) => client.callTool(source.name, args, { ...Call.callOptions(source, options), signal }),
    options
  )
}

/** @internal */
export const make = (options: AiSdkTools.Options = {}) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const run = Runtime.runPromiseExit(yield* Effect.runtime<never>())
    const tools = yield* client.listTools({ server: options.server })
    return fromTools(
      tools,
      callsThrough(run, client, options),
      options
    )
  })

/** An `Exit` as a Promise outcome: its value, or the abort's reason, or the failure squashed. @internal */
export const settled = <A>(exit: Exit.Exit<A, unknown>, signal?: AbortSignal): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw signal?.aborted === true ? signal.reason : Cause.squash(exit.cause)
}

/**
 * Tool calls through an Effect client, run on `run`'s runtime. Aborting interrupts the fiber:
 * the client sends `notifications/cancelled`.
 *
 * @internal
 */
export const callsThrough = (
  run: <A, E>(effect: Effect.Effect<A, E>, options?: { readonly signal?: AbortSignal }) => Promise<Exit.Exit<A, E>>,
  client: McpClient.Service,
  options: AiSdkTools.Options
) =>
(...[source, args, signal]: Parameters<CallFn>) =>
  run(
    client.callTool(source.name, args, Call.callOptions(source, options)),
    signal === undefined ? undefined : { signal }
  )
    .then((exit) => settled(exit, signal))
