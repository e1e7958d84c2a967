/**
 * MCP tools as Vercel AI SDK tools: a `ToolSet` of `dynamicTool`s whose input schema is the
 * tool's `inputSchema` (through `jsonSchema`) and whose `execute` calls the MCP tool. This
 * module imports `ai` (an optional peer dependency); the rest of the package never does.
 *
 * ```ts
 * import { generateText, isStepCount } from "ai"
 * import { toAiSdkTools } from "@mcp-effect/ai/AiSdkTools"
 * import { connect } from "@mcp-effect/node"
 *
 * const client = await connect("npx -y @modelcontextprotocol/server-everything")
 * const tools = await toAiSdkTools(client)
 * const { text } = await generateText({ model, tools, stopWhen: isStepCount(5), prompt: "Add 2 and 40" })
 * ```
 *
 * What the model sees of a result: its `structuredContent` as JSON when present, else its text
 * blocks joined, with images and audio as files. An `isError: true` result, or a call that
 * failed, throws an `McpToolError` (`@mcp-effect/ai/McpToolError`): the AI SDK hands its message to the model as a tool
 * error and the loop goes on.
 *
 * The abort signal of a tool execution is honoured: with {@link make} (the Effect client) it
 * interrupts the call, which sends `notifications/cancelled` to the server; with
 * {@link toAiSdkTools} the promise rejects at once and the signal is handed to the client's
 * `callTool` options as `signal`, for a client that can cancel with it.
 *
 * @since 0.1.0
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import type { ConnectError, ServerNotFoundError, ToolNameCollisionError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { Tool, ToolSet } from "ai"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as internal from "./internal/aiSdkTools.js"

/**
 * Which tools, under which names, and how they are called.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Only this server's tools (default: every server's). */
  readonly server?: string | undefined
  /** Keeps the tools for which it returns true. */
  readonly filter?: ((tool: McpClient.ServerTool) => boolean) | undefined
  /**
   * The name the model sees, given the tool and every listed tool. Default: the name the client
   * shows (see `McpClient.Options.toolCollisions`), or `server_name` when several servers offer
   * that name. A name given twice gets `_2`, `_3`, … on its later tools; a name providers would
   * refuse (over 64 characters, or other than `[A-Za-z0-9_-]`) is made valid by
   * `ToolFormats.providerName` (sanitised, with a stable hash suffix).
   */
  readonly name?: ((tool: McpClient.ServerTool, tools: ReadonlyArray<McpClient.ServerTool>) => string) | undefined
  /** Bound on each call (default: the server's read timeout). */
  readonly timeout?: Duration.DurationInput | undefined
}

/**
 * What the tools need of a Promise client: the facade `connect()` of `@mcp-effect/node` has it.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseClient {
  readonly listTools: (
    options?: { readonly server?: string | undefined }
  ) => Promise<ReadonlyArray<McpClient.ServerTool>>
  readonly callTool: (
    name: string,
    args?: Record<string, unknown>,
    options?: {
      readonly server?: string | undefined
      readonly timeout?: Duration.DurationInput | undefined
      readonly signal?: AbortSignal | undefined
    }
  ) => Promise<McpSchema.CallToolResult>
}

/**
 * What listing the tools can fail with.
 *
 * @since 0.1.0
 * @category models
 */
export type ListError = ConnectError | ServerNotFoundError | ToolNameCollisionError

/**
 * The tools of a Promise client (e.g. `connect()` of `@mcp-effect/node`). The list is read
 * once: call it again for each conversation to follow `list_changed` (the client caches the
 * list until the server says it changed). A tool's `execute` rejects with an
 * `McpToolError` (`@mcp-effect/ai/McpToolError`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const toAiSdkTools: (client: PromiseClient, options?: Options) => Promise<ToolSet> = internal.toAiSdkTools

/**
 * The tools of the `McpClient` service; each `execute` runs the call on the current runtime,
 * and its abort signal interrupts it (the server gets `notifications/cancelled`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<ToolSet, ListError, McpClient.McpClient> = internal.make

/**
 * The tools for a given list, each call made by `call` (the building block of
 * {@link toAiSdkTools} and {@link make}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTools: (
  tools: ReadonlyArray<McpClient.ServerTool>,
  call: (
    tool: McpClient.ServerTool,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined
  ) => Promise<McpSchema.CallToolResult>,
  options?: Options
) => ToolSet = internal.fromTools

/**
 * What a tool result becomes for the model (the AI SDK's `ToolResultOutput`).
 *
 * @since 0.1.0
 * @category models
 */
export type ModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>

/**
 * What the model is given of a result: structured content as JSON, else the text, with images
 * and audio as files (the `toModelOutput` of every tool).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toModelOutput: (result: McpSchema.CallToolResult) => ModelOutput = internal.toModelOutput
