/**
 * MCP tools as an `@effect/ai` toolkit: every tool of one server (or of all servers) of the
 * `McpClient` becomes a `Tool` whose parameters are the tool's own `inputSchema` (passed to the
 * provider as JSON Schema, unchanged) and whose handler calls the tool through the client.
 *
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import * as McpToolkit from "@mcp-effect/ai/McpToolkit"
 *
 * // The toolkit is an effect: each generateText reads the tool list again (cached by the
 * // client until the server says `notifications/tools/list_changed`).
 * const response = yield* LanguageModel.generateText({ prompt, toolkit: McpToolkit.make() })
 * ```
 *
 * What the model sees of a result: its `structuredContent` when present, else its text blocks
 * joined. An `isError: true` result, or a call that failed, is a tool failure
 * (`failureMode: "return"`): the model is told the message and the conversation goes on; the
 * host finds the {@link McpToolError} in the response's tool results.
 *
 * @since 0.1.0
 */
import type * as Tool from "@effect/ai/Tool"
import type * as Toolkit from "@effect/ai/Toolkit"
import type * as McpClient from "@mcp-effect/client/McpClient"
import type { ConnectError, ServerNotFoundError, ToolNameCollisionError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type * as ResultLimits from "@mcp-effect/client/ResultLimits"
import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as internal from "./internal/mcpToolkit.js"
import * as deferredInternal from "./internal/toolkitDeferred.js"
import type { McpToolError } from "./McpToolError.js"

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
 * The parameters of every MCP tool: any JSON object, validated by the server. The model is
 * given the tool's `inputSchema` through the schema's `jsonSchema` annotation.
 *
 * @since 0.1.0
 * @category models
 */
export type Parameters = Schema.TypeLiteral<
  Record<never, never>,
  readonly [Schema.Record$<typeof Schema.String, typeof Schema.Unknown>]
>

/**
 * A successful call: the whole `CallToolResult` for the host, encoded for the model as its
 * structured content or its text.
 *
 * @since 0.1.0
 * @category models
 */
export type Success = Schema.Schema<McpSchema.CallToolResult, unknown>

/**
 * A failed call: an {@link McpToolError} for the host, its message for the model.
 *
 * @since 0.1.0
 * @category models
 */
export type Failure = Schema.Schema<McpToolError, unknown>

/**
 * One MCP tool as an `@effect/ai` tool.
 *
 * @since 0.1.0
 * @category models
 */
export type McpTool = Tool.Tool<string, {
  readonly parameters: Parameters
  readonly success: Success
  readonly failure: Failure
  readonly failureMode: "return"
}>

/**
 * The tools of a toolkit, by the name the model sees.
 *
 * @since 0.1.0
 * @category models
 */
export type Tools = { readonly [name: string]: McpTool }

/**
 * A toolkit and its handlers, apart: for merging with other toolkits
 * (`Toolkit.merge(mine, built.toolkit)`, then provide both handler contexts).
 *
 * @since 0.1.0
 * @category models
 */
export interface Built {
  readonly toolkit: Toolkit.Toolkit<Tools>
  readonly handlers: Context.Context<Tool.Handler<string>>
  /** The MCP tool behind each name the model sees. */
  readonly sources: ReadonlyMap<string, McpClient.ServerTool>
}

/**
 * What listing the tools can fail with.
 *
 * @since 0.1.0
 * @category models
 */
export type ListError = ConnectError | ServerNotFoundError | ToolNameCollisionError

/**
 * The tools, with their handlers, ready for `LanguageModel.generateText({ toolkit })`. Pass the
 * effect itself as `toolkit` to re-read the list on every call, or run it once for a snapshot.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<Toolkit.WithHandler<Tools>, ListError, McpClient.McpClient> =
  internal.make

/**
 * The toolkit and its handlers apart (see {@link Built}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const build: (options?: Options) => Effect.Effect<Built, ListError, McpClient.McpClient> = internal.build

/**
 * The toolkit of the tools listed now, then a new one after each `list_changed` of the
 * servers concerned (bursts coalesced). On 2026-07-28 servers, which announce changes only to
 * subscribers, the stream opens a `subscriptions/listen` for tool changes while it runs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const changes: (
  options?: Options
) => Stream.Stream<Toolkit.WithHandler<Tools>, ListError, McpClient.McpClient> = internal.changes

/**
 * One MCP tool as an `@effect/ai` tool named `name` (without its handler).
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool: (source: McpSchema.Tool, name?: string) => McpTool = internal.tool

/**
 * The search tool of the deferred mode: a query (and how many tools), answered with the tools
 * found (their names, servers and descriptions) and a note for the model.
 *
 * @since 0.2.0
 * @category models
 */
export type SearchTool = Tool.Tool<string, {
  readonly parameters: SearchParameters
  readonly success: Schema.Schema<SearchOutput>
  readonly failure: typeof Schema.Never
  readonly failureMode: "error"
}>

/**
 * The search tool's parameters: what to look for, and how many tools (1 to 20, default 5).
 *
 * @since 0.2.0
 * @category models
 */
export type SearchParameters = Schema.Struct<{
  query: typeof Schema.String
  limit: Schema.optional<typeof Schema.Number>
}>

/**
 * What the model is told of a search: the tools found (callable from its next turn) and a note.
 *
 * @since 0.2.0
 * @category models
 */
export interface SearchOutput {
  readonly tools: ReadonlyArray<
    { readonly name: string; readonly server: string; readonly description?: string | undefined }
  >
  readonly note: string
}

/**
 * The tools of a deferred toolkit: the search tool and the MCP tools searches loaded.
 *
 * @since 0.2.0
 * @category models
 */
export type DeferredToolset = { readonly [name: string]: McpTool | SearchTool }

/**
 * Options of the deferred mode: the options of the full toolkit, and the search tool's name.
 *
 * @since 0.2.0
 * @category models
 */
export interface DeferredOptions extends Options {
  /** The name of the search tool (default `search_tools`). */
  readonly searchToolName?: string | undefined
}

/**
 * A deferred toolkit (see {@link deferred}).
 *
 * @since 0.2.0
 * @category models
 */
export interface Deferred {
  /**
   * The search tool and the tools searches loaded so far, with their handlers: pass the effect
   * itself as `toolkit`, so that each `generateText` reads the tools loaded until then.
   */
  readonly toolkit: Effect.Effect<Toolkit.WithHandler<DeferredToolset>>
  /** The names of the tools searches loaded so far. */
  readonly loaded: () => ReadonlyArray<string>
}

/**
 * The deferred mode, for hosts with many tools: the toolkit first holds one tool,
 * `search_tools`, which ranks every server's tools against a query (`McpClient.searchTools`,
 * local scoring, no request but the cached lists) and loads the best matches; from the next
 * `generateText` on, the toolkit holds them too (an `@effect/ai` toolkit is fixed for one call,
 * so it grows between calls). The model is sent the definitions of the search tool and of the
 * tools it found, never all of them. Loaded tools stay for the life of the returned object
 * (make one per conversation).
 *
 * ```ts
 * import { Chat } from "@effect/ai"
 * import * as McpToolkit from "@mcp-effect/ai/McpToolkit"
 * import * as Effect from "effect/Effect"
 *
 * export const conversation = Effect.gen(function*() {
 *   const { toolkit } = yield* McpToolkit.deferred()
 *   const chat = yield* Chat.empty
 *   let response = yield* chat.generateText({ prompt: "Open an issue about the crash", toolkit })
 *   // The host's tool loop: a search's matches are callable on the next turn.
 *   for (let turn = 0; turn < 5 && response.toolCalls.length > 0; turn++) {
 *     response = yield* chat.generateText({ prompt: [], toolkit })
 *   }
 *   return response.text
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const deferred: (options?: DeferredOptions) => Effect.Effect<Deferred, never, McpClient.McpClient> =
  deferredInternal.deferred
