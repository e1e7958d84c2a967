/**
 * A programmable MCP server for tests and demos: tools with handlers, prompts, resources,
 * templates, completions, pagination, list changes, progress, delays and scripted faults.
 * One definition serves in-memory connections ({@link FakeServer.config}) and, through the
 * `mcp-effect-fake-server` executable, a real stdio process.
 *
 * @since 0.1.0
 */
import * as ChildProcess from "@mcp-effect/client/ChildProcess"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/fakeServer.js"
import * as StdioSpawner from "./internal/stdioSpawner.js"
import type * as Tasks from "./internal/tasks.js"

/**
 * What a tool handler can do besides returning its result.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext {
  /** Sends `notifications/progress` for this call (only when the client asked for progress). */
  readonly progress: (progress: number, total?: number, message?: string) => Effect.Effect<void>
  /** Sends any notification to the client. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Closes the connection as a crashing process would. */
  readonly crash: Effect.Effect<void>
  /** 2026-07-28 multi-round-trip: the `inputResponses` and `requestState` of this retry. */
  readonly inputResponses: Record<string, unknown> | undefined
  readonly requestState: string | undefined
}

/**
 * A handler's answer: a full result, or text that becomes one text block.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolAnswer =
  | string
  | { readonly content: ReadonlyArray<unknown>; readonly [key: string]: unknown }
  | {
    readonly resultType: "input_required"
    readonly inputRequests?: Record<string, unknown> | undefined
    readonly requestState?: string | undefined
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition {
  readonly tool: McpSchema.Tool
  readonly handler: (args: Record<string, unknown>, context: ToolContext) => Effect.Effect<ToolAnswer>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PromptDefinition {
  readonly prompt: McpSchema.Prompt
  readonly render: (args: Record<string, string>) => McpSchema.GetPromptResult
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ResourceDefinition {
  readonly resource: McpSchema.Resource
  readonly contents: ReadonlyArray<McpSchema.ResourceContents>
}

/**
 * A scripted misbehaviour, applied to requests of `method` (`*` for any), at most `times`
 * times (default: always). On a 2026-07-28 `subscriptions/listen`, `silence` never
 * acknowledges it, `error` and `crash` answer instead of acknowledging, `result` acknowledges
 * and then closes it with that result, and `acknowledge` grants exactly what it names.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault =
  & { readonly method: string; readonly times?: number | undefined }
  & (
    | { readonly action: "error"; readonly code: number; readonly message: string; readonly data?: unknown }
    /** Never answers. */
    | { readonly action: "silence" }
    /** Answers with a line that is not JSON first, then answers normally. */
    | { readonly action: "malformed" }
    /** Answers with a response for an id nobody asked for first, then answers normally. */
    | { readonly action: "unsolicited" }
    /** Closes the connection instead of answering (a stdio server exits). */
    | { readonly action: "crash" }
    /** Answers after a delay. */
    | { readonly action: "delay"; readonly millis: number }
    /** Answers with this result instead. */
    | { readonly action: "result"; readonly result: unknown }
    /** Pagination: answers every page with the same `nextCursor`. */
    | { readonly action: "repeat-cursor" }
    /** `subscriptions/listen` only: acknowledges with exactly these `notifications`, then keeps it open. */
    | { readonly action: "acknowledge"; readonly notifications: Record<string, unknown> }
  )

/**
 * A JSON-RPC error a handler answers with.
 *
 * @since 0.1.0
 * @category models
 */
export interface RpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * Serves one method: a vendor extension's the fake does not know, or a scripted answer to one
 * it does (it replaces the built-in one). `context.progress` reports progress when the client
 * asked for it.
 *
 * @since 0.1.0
 * @category models
 */
export type MethodHandler = (
  params: Record<string, unknown>,
  context: Pick<ToolContext, "progress" | "notify">
) => Effect.Effect<unknown, RpcError>

/**
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  readonly serverInfo?: McpSchema.Implementation | undefined
  readonly instructions?: string | undefined
  /** Replaces the capabilities derived from what the definition serves. */
  readonly capabilities?: Record<string, unknown> | undefined
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
  readonly prompts?: ReadonlyArray<PromptDefinition> | undefined
  readonly resources?: ReadonlyArray<ResourceDefinition> | undefined
  readonly resourceTemplates?: ReadonlyArray<McpSchema.ResourceTemplate> | undefined
  readonly completions?:
    | ((ref: McpSchema.CompletionReference, argument: { name: string; value: string }) => ReadonlyArray<string>)
    | undefined
  /** Declares `logging` and serves `logging/setLevel`. */
  readonly logging?: boolean | undefined
  /** Declares `resources.subscribe` and serves `resources/subscribe` / `unsubscribe`. */
  readonly subscriptions?: boolean | undefined
  /** Items per page of every list (default: everything on one page). */
  readonly pageSize?: number | undefined
  readonly faults?: ReadonlyArray<Fault> | undefined
  /** Methods served by the host's own handlers, by name (checked before the built-in ones). */
  readonly methods?: Record<string, MethodHandler> | undefined
  /**
   * Which eras it speaks: `legacy` (default: `server/discover` is unknown), `modern`
   * (2026-07-28 only: `initialize` is refused with -32022) or `dual`.
   */
  readonly era?: "legacy" | "modern" | "dual" | undefined
  /** `ttlMs` of every cacheable 2026-07-28 result (default 0). */
  readonly ttlMs?: number | undefined
  /** `cacheScope` of every cacheable 2026-07-28 result (default public). */
  readonly cacheScope?: "public" | "private" | undefined
  /**
   * Serves tasks: a tool whose `execution.taskSupport` is `optional` or `required` runs as a
   * task when the call asks for one (2025-11-25 `task` parameter; 2026-07-28 when the request
   * declares the `io.modelcontextprotocol/tasks` extension). An `input_required` answer of the
   * tool puts a 2026-07-28 task in `input_required` until `tasks/update` brings the answers.
   */
  readonly tasks?: Tasks.TaskOptions | undefined
}

/**
 * Where one connection's output goes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Wire {
  readonly send: (message: object) => void
  /** Sends text that is not a JSON-RPC message (a malformed line on stdio). */
  readonly sendRaw: (text: string) => void
  readonly close: (reason: string) => void
}

/**
 * A message the server received, as it arrived.
 *
 * @since 0.1.0
 * @category models
 */
export interface Received {
  readonly method: string | undefined
  readonly id: string | number | undefined
  readonly params: Record<string, unknown> | undefined
  readonly message: Record<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FakeServer {
  /** A server configuration whose every connection is served by this fake, in memory. */
  readonly config: (options?: {
    readonly name?: string | undefined
    readonly readTimeout?: Duration.DurationInput | undefined
  }) => ServerConfig
  /** Serves one connection over `wire`; hand what the client sends to `receive`. */
  readonly serve: (wire: Wire) => Effect.Effect<{ readonly receive: (message: unknown) => void }, never, Scope.Scope>
  /** Every message received, across connections, oldest first. */
  readonly received: Effect.Effect<ReadonlyArray<Received>>
  /** Received requests of one method. */
  readonly requests: (method: string) => Effect.Effect<ReadonlyArray<Received>>
  /** How many connections were opened so far. */
  readonly connections: Effect.Effect<number>
  /** Replaces the tool list and announces `notifications/tools/list_changed`. */
  readonly setTools: (tools: ReadonlyArray<ToolDefinition>) => Effect.Effect<void>
  /** Sends a notification on every open connection. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Closes every open connection as a crash would. */
  readonly crash: Effect.Effect<void>
  /** Sends a notification on every 2026-07-28 subscription whose filter asked for it. */
  readonly publish: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Ends every subscription gracefully (a complete result to each listen request). */
  readonly endListens: Effect.Effect<void>
  /** Tears every subscription down from the server's side: `notifications/cancelled` naming each listen request. */
  readonly cancelListens: Effect.Effect<void>
}

/**
 * Builds a fake server from a definition.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (definition: Definition): Effect.Effect<FakeServer> => internal.make(definition)

/**
 * A process spawner whose every process is a stdio connection to `server`, in memory: a
 * `Stdio.config` server then runs through the stdio transport (line framing, synchronous
 * writes, process exits) without a process.
 *
 * @example
 * ```ts
 * import * as ServerConnection from "@mcp-effect/client/ServerConnection"
 * import * as Stdio from "@mcp-effect/client/Stdio"
 * import * as FakeServer from "@mcp-effect/testing/FakeServer"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.gen(function*() {
 *   const server = yield* FakeServer.make({ tools: [FakeServer.tool("echo", () => Effect.succeed("hi"))] })
 *   const connection = yield* ServerConnection.make(Stdio.config({ name: "fake", command: "fake-server" }), {
 *     clientInfo: { name: "test", version: "1.0.0" },
 *     onNotification: () => {}
 *   }).pipe(Effect.provide(FakeServer.layerSpawner(server)))
 *   return yield* connection.callTool("echo")
 * })
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSpawner = (server: FakeServer): Layer.Layer<ChildProcess.ChildProcessSpawner> =>
  Layer.succeed(ChildProcess.ChildProcessSpawner, StdioSpawner.make(server))

/**
 * A tool definition from a name, an input schema and a handler.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = (
  name: string,
  handler: ToolDefinition["handler"],
  extra?: Partial<McpSchema.Tool>
): ToolDefinition => ({
  tool: { name, inputSchema: { type: "object" }, ...extra },
  handler
})
