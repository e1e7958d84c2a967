/**
 * The Promise facade for plain async code: `connect(target | targets, options)` returns a
 * client whose methods return Promises and reject with the same error classes as the Effect
 * API, so `instanceof` works.
 *
 * @since 0.1.0
 */
import type { ConnectionState } from "@mcp-effect/client/ConnectionState"
import type * as ConnectionStateModule from "@mcp-effect/client/ConnectionState"
import type * as Handlers from "@mcp-effect/client/Handlers"
import type * as McpClient from "@mcp-effect/client/McpClient"
import type { InputRequiredError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { Negotiated, ProtocolMode } from "@mcp-effect/client/Protocol"
import type { NotificationListener, RequestOptions, ServerConnection } from "@mcp-effect/client/ServerConnection"
import type * as ServerConnectionModule from "@mcp-effect/client/ServerConnection"
import type * as Subscription from "@mcp-effect/client/Subscription"
import type * as Target from "@mcp-effect/client/Target"
import type * as Task from "@mcp-effect/client/Task"
import type * as ToolFormats from "@mcp-effect/client/ToolFormats"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as internalClient from "./internal/facade/client.js"
import * as internalConfigs from "./internal/facade/configs.js"
import * as internalRun from "./internal/facade/run.js"
import * as LazyMcpConfig from "./internal/lazyMcpConfig.js"
import * as NodeMcpClient from "./NodeMcpClient.js"
import type * as NodeOAuth from "./NodeOAuth.js"
import type { NetworkOptions } from "./UndiciHttpClient.js"

/**
 * The options of {@link connect}. `proxy`, `ca` and `proxyEnv` (see
 * `UndiciHttpClient.NetworkOptions`) apply to the HTTP servers and their OAuth requests alike.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConnectOptions extends Omit<Target.TargetOptions, "name">, NetworkOptions {
  readonly readTimeout?: Duration.DurationInput | undefined
  readonly clientInfo?: McpSchema.Implementation | undefined
  /** Forces a transport instead of detecting one from the target. */
  readonly transport?: Target.TargetOptions["transport"]
  /**
   * Server name (single target only; in a list, give `{ name, target }`); defaults to
   * `Target.defaultName`: what the command runs (`server-everything` for
   * `npx -y @modelcontextprotocol/server-everything`), or the URL's host.
   */
  readonly name?: string | undefined
  readonly env?: Record<string, string> | undefined
  readonly cwd?: string | undefined
  /** `auto` (default) probes with `server/discover`, falling back to `initialize`. */
  readonly protocol?: ProtocolMode | undefined
  /** Bound on the `server/discover` probe (default 5 seconds). */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /**
   * Where the era each server spoke is remembered, so that `protocol: "auto"` pays the
   * `server/discover` probe once per server (a legacy server silent on it costs the whole
   * `discoverTimeout`) and detects again when the remembered era fails: a file (default
   * `NodeEraCache.defaultPath()`, beside the OAuth tokens), or `false` to probe on every connect.
   */
  readonly eraCache?: string | false | undefined
  /** Host `_meta` merged into every 2026-07-28 request (a value or a function called per request). */
  readonly requestMeta?: Record<string, unknown> | (() => Record<string, unknown>) | undefined
  /**
   * Answers `elicitation/create`: return `{ action, content? }`, the content alone for a form
   * (sent as accept), or `true` to accept a URL (sync or async).
   */
  readonly elicitationHandler?:
    | ((
      params: Handlers.ElicitRequestParams
    ) =>
      | Handlers.ElicitResult
      | ElicitContent
      | true
      | Promise<Handlers.ElicitResult | ElicitContent | true>)
    | undefined
  /** Which elicitation modes the handler supports (default: form only). */
  readonly elicitationModes?: ReadonlyArray<"form" | "url"> | undefined
  /** Answers `sampling/createMessage` with a `CreateMessageResult` (sync or async). */
  readonly samplingHandler?:
    | ((
      params: Handlers.CreateMessageRequestParams
    ) => Handlers.CreateMessageResult | Promise<Handlers.CreateMessageResult>)
    | undefined
  /** The sampling handler accepts tool-enabled requests (declares `sampling.tools`). */
  readonly samplingSupportsTools?: boolean | undefined
  /**
   * The roots to offer servers: a list, or a function read at every `roots/list`. Without it,
   * `setRoots` declares roots later.
   */
  readonly roots?: ReadonlyArray<Handlers.Root> | (() => ReadonlyArray<Handlers.Root>) | undefined
  /**
   * Receives the client's log lines at `logLevel` and above (default: the console). Server text
   * in them is already escaped.
   */
  readonly logger?: Logger | undefined
  /** A notification listener registered before connecting (sees the very first notifications). */
  readonly onNotification?: NotificationListener | undefined
  /** A state listener registered before connecting (sees each server's first `Connecting`). */
  readonly onStateChange?: StateListener | undefined
  /**
   * Supervised reconnect of every server: re-open in the background after a server died
   * (see `ServerConfig.reconnect`), instead of on the next call.
   */
  readonly reconnect?: ConnectionStateModule.Reconnect | undefined
  /** Extensions to declare, e.g. `["io.modelcontextprotocol/tasks"]`. */
  readonly extensions?: ReadonlyArray<string> | undefined
  /** Output validation: `"warn"` (default) logs a violation, `"strict"` fails with `ValidationError`. */
  readonly validateStructuredContent?: "warn" | "strict" | undefined
  /** Least severe level logged (default `Warning`). */
  readonly logLevel?: "All" | "Debug" | "Info" | "Warning" | "Error" | "None" | undefined
  /**
   * OAuth for the URL targets (stdio has none): `true` runs the browser flow with defaults, or
   * settings such as `clientId`, `scope`, `redirectUri`, `storage` (see `NodeOAuth.Settings`).
   * Tokens go to `NodeOAuth.defaultStoragePath()` unless `storage` says otherwise. Excludes `auth`.
   */
  readonly oauth?: true | NodeOAuth.Settings | undefined
}

/**
 * Hears a server's state changes (`Connecting`, `Ready`, `Reconnecting`, `Failed`, `Closed`).
 *
 * @since 0.1.0
 * @category models
 */
export type StateListener = (server: string, state: ConnectionState) => void

/**
 * Where the facade's log lines go (`console` has this shape).
 *
 * @since 0.1.0
 * @category models
 */
export interface Logger {
  readonly debug: (message: string) => void
  readonly info: (message: string) => void
  readonly warn: (message: string) => void
  readonly error: (message: string) => void
}

// The content alone, `undefined` values allowed: under plain `strict`, a handler returning
// `{ action: "decline" }` or `{ name }` infers `{ name: string; action?: undefined }` for the latter.
type ElicitContent = Readonly<Record<string, string | number | boolean | ReadonlyArray<string> | undefined>>

/**
 * What every facade method's options may add: aborting the signal interrupts the call, which
 * cancels it on the wire (`notifications/cancelled`), and rejects with the signal's reason.
 *
 * @since 0.1.0
 * @category models
 */
export interface Signal {
  readonly signal?: AbortSignal | undefined
}

/**
 * A connected server as the facade shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerHandle {
  readonly name: string
  readonly kind: string
  readonly era: Negotiated["era"] | undefined
  readonly protocolVersion: string | undefined
  readonly serverInfo: McpSchema.Implementation | undefined
  readonly instructions: string | undefined
  readonly capabilities: McpSchema.ServerCapabilities | undefined
  /** True when the server speaks 2026-07-28. */
  readonly isModern: boolean
}

/**
 * An open subscription, as the facade shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SubscriptionHandle {
  readonly acknowledged: Subscription.Filter
  readonly unsupported: ReadonlyArray<string>
  readonly isActive: () => boolean
  readonly pendingNotifications: () => number
  readonly droppedNotifications: () => number
  /** Resolves when the subscription ends: gracefully, or rejects with its error. */
  readonly done: Promise<void>
  readonly close: () => Promise<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Client {
  readonly servers: ReadonlyArray<ServerHandle>
  readonly listTools: (options?: McpClient.ListOptions & Signal) => Promise<ReadonlyArray<McpClient.ServerTool>>
  readonly findTool: (name: string, options?: { readonly server?: string } & Signal) => Promise<McpClient.ServerTool>
  readonly callTool: (
    name: string,
    args?: Record<string, unknown>,
    options?: McpClient.CallOptions & Signal
  ) => Promise<McpSchema.CallToolResult>
  readonly callTools: (
    calls: ReadonlyArray<McpClient.ToolCall>,
    options?: RequestOptions & Signal
  ) => Promise<ReadonlyArray<McpSchema.CallToolResult>>
  readonly listPrompts: (options?: McpClient.ListOptions & Signal) => Promise<ReadonlyArray<McpClient.ServerPrompt>>
  /** One page of `tools/list` of `{ server }` (or the only server) from `cursor`, not cached. */
  readonly listToolsPage: (
    cursor?: string,
    options?: McpClient.ListOptions & Signal
  ) => Promise<ServerConnectionModule.Page<McpClient.ServerTool>>
  readonly listPromptsPage: (
    cursor?: string,
    options?: McpClient.ListOptions & Signal
  ) => Promise<ServerConnectionModule.Page<McpClient.ServerPrompt>>
  readonly listResourcesPage: (
    cursor?: string,
    options?: McpClient.ListOptions & Signal
  ) => Promise<ServerConnectionModule.Page<McpClient.ServerResource>>
  readonly listResourceTemplatesPage: (
    cursor?: string,
    options?: McpClient.ListOptions & Signal
  ) => Promise<ServerConnectionModule.Page<McpClient.ServerResourceTemplate>>
  /**
   * A request by method name (e.g. a vendor extension's) to `{ server }` or the only server,
   * through the same path as the wrapped methods; `schema` (an Effect `Schema`) decodes the result.
   */
  readonly request: <A = unknown, I = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: ServerConnectionModule.RawRequestOptions<A, I> & { readonly server?: string } & Signal
  ) => Promise<A>
  /** A notification by method name to `{ server }` or the only server. */
  readonly notify: (
    method: string,
    params?: Record<string, unknown>,
    options?: { readonly server?: string } & Signal
  ) => Promise<void>
  readonly getPrompt: (
    name: string,
    args?: Record<string, string>,
    options?: McpClient.CallOptions & Signal
  ) => Promise<McpSchema.GetPromptResult>
  readonly listResources: (options?: McpClient.ListOptions & Signal) => Promise<ReadonlyArray<McpClient.ServerResource>>
  readonly listResourceTemplates: (
    options?: McpClient.ListOptions & Signal
  ) => Promise<ReadonlyArray<McpClient.ServerResourceTemplate>>
  readonly readResource: (
    uri: string,
    options?: McpClient.CallOptions & Signal
  ) => Promise<McpSchema.ReadResourceResult>
  readonly complete: (
    request: McpSchema.CompleteRequest,
    options?: McpClient.CallOptions & Signal
  ) => Promise<McpSchema.CompleteResult>
  readonly ping: (options?: McpClient.CallOptions & Signal) => Promise<void>
  /** Continues an `input_required` request the client stopped (`InputRequiredError`). */
  readonly resumeInputRequired: (error: InputRequiredError, inputResponses: Record<string, unknown>) => Promise<unknown>
  /**
   * Opens a `subscriptions/listen` stream (2026-07-28). The listener runs on the subscription's
   * own fiber, never on the transport's reader, so it may make requests.
   */
  readonly listen: (
    filter: Subscription.Filter,
    listener: (notification: Subscription.Notification) => void,
    options?: { readonly server?: string; readonly ackTimeout?: Duration.DurationInput | false } & Signal
  ) => Promise<SubscriptionHandle>
  /** Starts a tool as a task and returns its handle at once (see `McpClient.callToolAsTask`). */
  readonly callToolAsTask: (
    name: string,
    args?: Record<string, unknown>,
    options?: ServerConnectionModule.TaskCallOptions & { readonly server?: string } & Signal
  ) => Promise<Task.Task>
  /**
   * Drives a task to its end at the server's pace, answering its input requests through the
   * handlers; resolves with the terminal handle (`result` set when it completed).
   */
  readonly waitForTask: (
    task: Task.Task | string,
    options?: { readonly server?: string; readonly timeout?: Duration.DurationInput } & Signal
  ) => Promise<Task.Task>
  readonly getTask: (task: Task.Task | string, options?: McpClient.CallOptions & Signal) => Promise<Task.Task>
  readonly getTaskResult: (
    task: Task.Task | string,
    options?: McpClient.CallOptions & Signal
  ) => Promise<McpSchema.CallToolResult>
  readonly cancelTask: (task: Task.Task | string, options?: McpClient.CallOptions & Signal) => Promise<Task.Task>
  readonly updateTask: (
    task: Task.Task | string,
    inputResponses: Record<string, unknown>,
    options?: McpClient.CallOptions & Signal
  ) => Promise<void>
  /** 2025-11-25 `tasks/list` (2026-07-28 has none). */
  readonly listTasks: (options?: McpClient.ListOptions & Signal) => Promise<ReadonlyArray<Task.Task>>
  /** Watches a resource: `resources/subscribe` (legacy) or a listen stream (2026-07-28). */
  readonly subscribeResource: (uri: string, options?: McpClient.CallOptions & Signal) => Promise<void>
  readonly unsubscribeResource: (uri: string, options?: McpClient.CallOptions & Signal) => Promise<void>
  /** A tool call as an async iterable: progress chunks, then the result (see `McpClient.callToolStreaming`). */
  readonly callToolStreaming: (
    name: string,
    args?: Record<string, unknown>,
    options?: McpClient.CallOptions & Signal
  ) => AsyncIterable<McpClient.ToolChunk>
  /**
   * Replaces the roots offered to servers; a client connected without roots declares them from
   * now on (see `McpClient.setRoots`).
   */
  readonly setRoots: (roots: ReadonlyArray<Handlers.Root>) => Promise<void>
  /** The roots currently offered. */
  readonly roots: () => ReadonlyArray<Handlers.Root>
  /**
   * Asks servers for `notifications/message` at `level` and above: every server that declares
   * `logging`, or `{ server }` (2026-07-28: the level rides on each request's `_meta`).
   */
  readonly setLogLevel: (level: McpSchema.LoggingLevel, options?: McpClient.CallOptions & Signal) => Promise<void>
  /** What the cache of `{ server }` (or of the only server) holds for a list, a read or the discovery. */
  readonly cacheInfo: (
    kind: Parameters<ServerConnection["cacheInfo"]>[0],
    options?: { readonly server?: string; readonly uri?: string }
  ) => Promise<ServerConnectionModule.CacheInfo | undefined>
  /** Drops the cached results of every server, or of `server`. */
  readonly clearCache: (server?: string) => Promise<void>
  /** Every tool, as OpenAI chat-completions `tools`. */
  readonly toOpenAITools: (options?: McpClient.ListOptions & Signal) => Promise<Array<ToolFormats.OpenAITool>>
  /** Every tool, as Anthropic messages `tools`. */
  readonly toAnthropicTools: (options?: McpClient.ListOptions & Signal) => Promise<Array<ToolFormats.AnthropicTool>>
  /** Every tool, as Gemini `functionDeclarations`. */
  readonly toGoogleTools: (
    options?: McpClient.ListOptions & Signal
  ) => Promise<Array<ToolFormats.GoogleFunctionDeclaration>>
  /** Adds a notification listener; returns a function that removes it. */
  readonly onNotification: (listener: NotificationListener) => () => void
  /** Adds a listener of every server's state changes; returns a function that removes it. */
  readonly onStateChange: (listener: StateListener) => () => void
  /** The current state of `server` (or of the only server); throws `ServerNotFoundError`. */
  readonly state: (server?: string) => ConnectionState
  /** Closes every connection (and stops server processes); a `fromRuntime` client removes its listeners only. */
  readonly close: () => Promise<void>
  /** `close`, for `await using client = await connect(...)`. */
  readonly [Symbol.asyncDispose]: () => Promise<void>
}

/**
 * The server configurations for one target or a list of them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const configsFor = internalConfigs.configsFor

/**
 * Connects to one server or several and resolves once every one of them is connected. A list
 * may name its servers (`[{ name: "files", target: "npx -y @modelcontextprotocol/server-filesystem ." }]`);
 * unnamed ones are named by `Target.defaultName`, with a suffix when two are equal
 * (`server-everything`, `server-everything-2`). A target
 * that names a URL of another scheme than http(s) (`ftp://…`, `ws://…`, `htps://…`) or a
 * malformed http(s) URL rejects with `ConfigError` before anything is started or sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = async (
  targets: Target.Target | Target.Named | ReadonlyArray<Target.Target | Target.Named>,
  options: ConnectOptions = {}
): Promise<Client> => internalClient.open(await internalRun.run(configsFor(targets, options)), options)

/**
 * The Promise client over a `ManagedRuntime` of yours that provides `McpClient` (for example
 * `ManagedRuntime.make(NodeMcpClient.layer(...))`): plain async code in an Effect application
 * calls the same connections at the facade's cost — `callTool` without a fiber where the
 * connection can, where `runtime.runPromise(client.callTool(…))` starts one per call. Rejects with
 * the layer's error itself when the runtime fails to build. `close()` removes this client's
 * listeners only: the connections belong to the runtime (`runtime.dispose()` closes them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromRuntime: <E>(
  runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, E>
) => Promise<Client> = internalClient.fromRuntime

/**
 * Connects to the servers of an `mcpServers` / `servers` configuration file, read by the same
 * loader as `NodeMcpClient.McpClientLive` (`McpConfig.load`): `path`, else the file
 * `NodeMcpClient.findConfig` finds (`MCP_CONFIG`, `./.mcp.json`, `./mcp.json`). The target
 * options (`transport`, `env`, `name`, `oauth`, …) do not apply: the file says them per server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectFromConfig = async (
  path?: string,
  options: Omit<ConnectOptions, keyof Target.TargetOptions | "name" | "env" | "cwd" | "oauth" | "transport"> = {}
): Promise<Client> => {
  const network = internalConfigs.networkOf(options)
  // Loaded here: `connect` alone never pays for the file system layer.
  const [NodeFileSystem, UndiciHttpClient] = await Promise.all([
    import("@effect/platform-node/NodeFileSystem"),
    import("./UndiciHttpClient.js")
  ])
  return internalClient.open(
    await internalRun.run(
      Effect.flatMap(
        path === undefined ? NodeMcpClient.findConfig : Effect.succeed(path),
        (file) =>
          Effect.flatMap(LazyMcpConfig.load, (McpConfig) => McpConfig.load(file, NodeMcpClient.parseOptions(file)))
      ).pipe(Effect.provide(
        Layer.merge(NodeFileSystem.layer, UndiciHttpClient.layerWith({ ...network, dispatcher: "global" }))
      ))
    ),
    options
  )
}
