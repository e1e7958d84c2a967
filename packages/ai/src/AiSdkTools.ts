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
import type * as ResultLimits from "@mcp-effect/client/ResultLimits"
import type { Tool, ToolSet } from "ai"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as deferredInternal from "./internal/aiSdkDeferred.js"
import * as internal from "./internal/aiSdkTools.js"

/**
 * Which tools, under which names, and how they are called. The result limits
 * (`maxResultChars`, `maxResultBytes`, `overflow`; see `ResultLimits`) are each call's own: they
 * win over the server's and the client's, and a result is cut before the model sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ResultLimits.ResultLimits {
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
    options?: ResultLimits.ResultLimits & {
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

/**
 * Options of the deferred mode: the options of the full tool set, and the search tool's name.
 *
 * @since 0.2.0
 * @category models
 */
export interface DeferredOptions extends Options {
  /** The name of the search tool (default `search_tools`). */
  readonly searchToolName?: string | undefined
}

/**
 * The deferred mode's tools (see {@link deferred}): pass `tools` and `prepareStep` to
 * `generateText` / `streamText`.
 *
 * @since 0.2.0
 * @category models
 */
export interface DeferredTools {
  /** The search tool and every MCP tool; only the active ones are sent to the model. */
  readonly tools: ToolSet
  /** The search tool's name and the names of the tools searches loaded, for `activeTools`. */
  readonly activeTools: () => Array<string>
  /** `prepareStep` for the generation: each step's `activeTools`. */
  readonly prepareStep: () => { readonly activeTools: Array<string> }
  /** The names of the tools searches loaded so far. */
  readonly loaded: () => ReadonlyArray<string>
}

/**
 * A Promise client that can search its tools: the facade `connect()` of `@mcp-effect/node` can.
 *
 * @since 0.2.0
 * @category models
 */
export interface SearchablePromiseClient extends PromiseClient {
  readonly searchTools: (
    query: string,
    options?: { readonly limit?: number | undefined; readonly server?: string | undefined }
  ) => Promise<ReadonlyArray<McpClient.ServerTool>>
}

/**
 * The deferred mode, for hosts with many tools: the model is first given one tool,
 * `search_tools`, which ranks every server's tools against a query (`McpClient.searchTools`,
 * local scoring) and loads the best matches; `prepareStep` then makes them active from the next
 * step on, so the model is sent the definitions of the search tool and of the tools it found,
 * never all of them. Loaded tools stay loaded for the life of the returned object (make one
 * per conversation).
 *
 * ```ts
 * import { generateText, isStepCount } from "ai"
 * import type { LanguageModel } from "ai"
 * import { toAiSdkToolsDeferred } from "@mcp-effect/ai/AiSdkTools"
 * import { connect } from "@mcp-effect/node"
 *
 * declare const model: LanguageModel
 * const client = await connect("npx -y @modelcontextprotocol/server-everything")
 * const { tools, prepareStep } = await toAiSdkToolsDeferred(client)
 * const { text } = await generateText({ model, tools, prepareStep, stopWhen: isStepCount(8), prompt: "Add 2 and 40" })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toAiSdkToolsDeferred: (
  client: SearchablePromiseClient,
  options?: DeferredOptions
) => Promise<DeferredTools> = deferredInternal.toAiSdkToolsDeferred

/**
 * The deferred mode (see {@link toAiSdkToolsDeferred}) over the `McpClient` service.
 *
 * @since 0.2.0
 * @category constructors
 */
export const deferred: (
  options?: DeferredOptions
) => Effect.Effect<DeferredTools, ListError, McpClient.McpClient> = deferredInternal.deferred
