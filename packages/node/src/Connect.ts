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
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import { ConfigError, ServerNotFoundError } from "@mcp-effect/client/McpError"
import type { InputRequiredError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { Negotiated, ProtocolMode } from "@mcp-effect/client/Protocol"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type { NotificationListener, RequestOptions, ServerConnection } from "@mcp-effect/client/ServerConnection"
import type * as ServerConnectionModule from "@mcp-effect/client/ServerConnection"
import type * as Subscription from "@mcp-effect/client/Subscription"
import * as Target from "@mcp-effect/client/Target"
import type * as Task from "@mcp-effect/client/Task"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as EffectLogger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as internalPlatform from "./internal/platform.js"
import * as NodeMcpClient from "./NodeMcpClient.js"
import * as NodeOAuth from "./NodeOAuth.js"
import * as UndiciHttpClient from "./UndiciHttpClient.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ConnectOptions extends Omit<Target.TargetOptions, "name"> {
  readonly readTimeout?: Duration.DurationInput | undefined
  readonly clientInfo?: McpSchema.Implementation | undefined
  /** Forces a transport instead of detecting one from the target. */
  readonly transport?: Target.TargetOptions["transport"]
  /** Server name (single target only); defaults to the command's base name. */
  readonly name?: string | undefined
  readonly env?: Record<string, string> | undefined
  readonly cwd?: string | undefined
  /** `auto` (default) probes with `server/discover`, falling back to `initialize`. */
  readonly protocol?: ProtocolMode | undefined
  /** Bound on the `server/discover` probe (default 5 seconds). */
  readonly discoverTimeout?: Duration.DurationInput | undefined
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
      | ElicitResult["content"]
      | true
      | Promise<Handlers.ElicitResult | ElicitResult["content"] | true>)
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

type ElicitResult = Handlers.ElicitResult

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
  /** Closes every connection (and stops server processes). */
  readonly close: () => Promise<void>
  /** `close`, for `await using client = await connect(...)`. */
  readonly [Symbol.asyncDispose]: () => Promise<void>
}

const handle = (connection: ServerConnection): ServerHandle => ({
  name: connection.name,
  kind: connection.kind,
  get era() {
    return connection.negotiated()?.era
  },
  get protocolVersion() {
    return connection.negotiated()?.protocolVersion
  },
  get serverInfo() {
    return connection.negotiated()?.serverInfo
  },
  get instructions() {
    return connection.negotiated()?.instructions
  },
  get capabilities() {
    return connection.negotiated()?.capabilities
  },
  get isModern() {
    return connection.negotiated()?.era === "modern"
  }
})

/**
 * The server configurations for one target or a list of them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const configsFor = (
  targets: Target.Target | ReadonlyArray<Target.Target>,
  options: ConnectOptions = {}
) => {
  const list: ReadonlyArray<Target.Target> = typeof targets !== "string" && Target.isTargetList(targets)
    ? targets as ReadonlyArray<Target.Target>
    : [targets as Target.Target]
  if (list.length > 1 && options.name !== undefined) {
    return Effect.fail(new ConfigError({ message: "name applies to a single target only" }))
  }
  if (options.protocol === "modern" && list.some((target) => detectsSse(target, options))) {
    return Effect.fail(
      new ConfigError({
        message: "protocol: \"modern\" cannot be used with the HTTP+SSE transport, which is legacy only"
      })
    )
  }
  const taken = new Map<string, number>()
  return Effect.forEach(list, (target) =>
    Effect.map(
      Effect.flatMap(
        authFor(target, options),
        (auth) => Target.toConfig(target, auth === undefined ? options : { ...options, auth })
      ),
      (config) => {
        // Names derived from targets are made unique: `node`, `node-2`, …
        const seen = (taken.get(config.name) ?? 0) + 1
        taken.set(config.name, seen)
        return seen === 1 ? config : { ...config, name: `${config.name}-${seen}` }
      }
    ))
}

/**
 * Connects to one server or several and resolves once every one of them is connected.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = async (
  targets: Target.Target | ReadonlyArray<Target.Target>,
  options: ConnectOptions = {}
): Promise<Client> => open(await run(configsFor(targets, options)), options)

/** The listeners of a facade's state changes: the option's, then the ones added later. */
const stateListeners = (options: { readonly onStateChange?: StateListener | undefined }) => {
  const listeners = new Set<StateListener>()
  if (options.onStateChange !== undefined) listeners.add(options.onStateChange)
  const dispatch: StateListener = (server, state) => {
    for (const listener of listeners) {
      try {
        listener(server, state)
      } catch (error) {
        console.warn(`mcp-effect: a state listener threw: ${String(error)}`)
      }
    }
  }
  return { listeners, dispatch }
}

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
  // Loaded here: `connect` alone never pays for the file system layer.
  const NodeFileSystem = await import("@effect/platform-node/NodeFileSystem")
  return open(
    await run(
      Effect.flatMap(
        path === undefined ? NodeMcpClient.findConfig : Effect.succeed(path),
        (file) => McpConfig.load(file, NodeMcpClient.parseOptions(file))
      ).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, UndiciHttpClient.layerGlobal)))
    ),
    options
  )
}

/** A logger of the host's as the runtime's only logger. */
const loggerLayer = (logger: Logger) =>
  EffectLogger.replace(
    EffectLogger.defaultLogger,
    EffectLogger.make(({ logLevel, message }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      if (logLevel._tag === "Error" || logLevel._tag === "Fatal") logger.error(text)
      else if (logLevel._tag === "Warning") logger.warn(text)
      else if (logLevel._tag === "Info") logger.info(text)
      else logger.debug(text)
    })
  )

const open = async (
  servers: ReadonlyArray<ServerConfig<internalPlatform.Services>>,
  options: ConnectOptions
): Promise<Client> => {
  const states = stateListeners(options)
  const clientLayer = (
    // Undici's global dispatcher: connections to a server are reused across connect() calls (and
    // one JSON Schema worker serves them all).
    internalPlatform.clientLayer(
      {
        servers: options.reconnect === undefined
          ? servers
          : servers.map((config) => ({ ...config, reconnect: config.reconnect ?? options.reconnect })),
        clientInfo: options.clientInfo,
        onNotification: options.onNotification,
        onStateChange: states.dispatch,
        validateStructuredContent: options.validateStructuredContent,
        extensions: options.extensions,
        protocol: options.protocol,
        discoverTimeout: options.discoverTimeout,
        requestMeta: requestMetaOf(options.requestMeta),
        handlers: handlersOf(options)
      },
      "global",
      LogLevel.fromLiteral(options.logLevel ?? "Warning")
    )
  )
  const runtime = ManagedRuntime.make(
    options.logger === undefined ? clientLayer : Layer.provideMerge(clientLayer, loggerLayer(options.logger))
  )
  let service: McpClient.Service
  let runFork: ReturnType<typeof Runtime.runFork<McpClient.McpClient>>
  try {
    // Calls run on the built runtime directly (no per-call check that the layer is ready), and
    // settle their promise from an observer of the fiber's exit: one promise per call, no extra hop.
    runFork = Runtime.runFork(await runtime.runtime())
    service = await new Promise<McpClient.Service>((resolve, reject) =>
      runFork(McpClient.McpClient).addObserver(settle(resolve, reject))
    )
  } catch (error) {
    await runtime.dispose()
    // A layer that fails to build rejects with a FiberFailure: hand out the error itself.
    throw Runtime.isFiberFailure(error) ? Cause.squash(error[Runtime.FiberFailureCauseId]) : error
  }
  /** A stream as an async iterable whose failures are the errors themselves. */
  const streamOn = <A, E>(stream: Stream.Stream<A, E>, options?: Signal): AsyncIterable<A> => ({
    [Symbol.asyncIterator]: () => {
      const queue: Array<IteratorResult<A>> = []
      let failure: { readonly error: unknown } | undefined
      let wake: (() => void) | undefined
      const push = () => {
        wake?.()
        wake = undefined
      }
      void runOn(
        Stream.runForEach(stream, (value) => Effect.sync(() => (queue.push({ value, done: false }), push()))),
        options
      )
        .then(() => queue.push({ value: undefined, done: true }), (error: unknown) => (failure = { error }))
        .finally(push)
      const next = async (): Promise<IteratorResult<A>> => {
        while (queue.length === 0 && failure === undefined) await new Promise<void>((resolve) => (wake = resolve))
        const item = queue.shift()
        if (item !== undefined) return item
        throw failure!.error
      }
      return { next }
    }
  })
  // Aborting interrupts the call's fiber, which cancels the request on the wire
  // (`notifications/cancelled`); the promise rejects with the signal's reason, as `fetch` does.
  const runOn = <A, E>(effect: Effect.Effect<A, E, McpClient.McpClient>, options?: Signal): Promise<A> => {
    const signal = options?.signal
    if (signal === undefined) {
      return new Promise<A>((resolve, reject) => runFork(effect).addObserver(settle(resolve, reject)))
    }
    if (signal.aborted) return Promise.reject(signal.reason)
    return new Promise<A>((resolve, reject) => {
      const fiber = runFork(effect)
      const abort = () => fiber.unsafeInterruptAsFork(FiberId.none)
      signal.addEventListener("abort", abort, { once: true })
      fiber.addObserver((exit) => {
        signal.removeEventListener("abort", abort)
        if (Exit.isInterrupted(exit) && signal.aborted) reject(signal.reason)
        else settle(resolve, reject)(exit)
      })
    })
  }
  const listenerScope = await Effect.runPromise(Scope.make())
  const close = async () => {
    await Effect.runPromise(Scope.close(listenerScope, Exit.void))
    await runtime.dispose()
  }
  return {
    servers: service.servers.map(handle),
    listTools: (o) => runOn(service.listTools(o), o),
    findTool: (name, o) => runOn(service.findTool(name, o), o),
    callTool: (name, args, o) => runOn(service.callTool(name, args, o), o),
    callTools: (calls, o) => runOn(service.callTools(calls, o), o),
    listPrompts: (o) => runOn(service.listPrompts(o), o),
    listToolsPage: (cursor, o) => runOn(service.listToolsPage(cursor, o), o),
    listPromptsPage: (cursor, o) => runOn(service.listPromptsPage(cursor, o), o),
    listResourcesPage: (cursor, o) => runOn(service.listResourcesPage(cursor, o), o),
    listResourceTemplatesPage: (cursor, o) => runOn(service.listResourceTemplatesPage(cursor, o), o),
    request: (method, params, o) => runOn(service.request(method, params, o), o),
    notify: (method, params, o) => runOn(service.notify(method, params, o), o),
    getPrompt: (name, args, o) => runOn(service.getPrompt(name, args, o), o),
    listResources: (o) => runOn(service.listResources(o), o),
    listResourceTemplates: (o) => runOn(service.listResourceTemplates(o), o),
    readResource: (uri, o) => runOn(service.readResource(uri, o), o),
    complete: (request, o) => runOn(service.complete(request, o), o),
    ping: (o) => runOn(service.ping(o), o),
    resumeInputRequired: (error, inputResponses) => runOn(service.resumeInputRequired(error, inputResponses)),
    subscribeResource: (uri, o) => runOn(service.subscribeResource(uri, o), o),
    unsubscribeResource: (uri, o) => runOn(service.unsubscribeResource(uri, o), o),
    setRoots: (roots) => runOn(service.setRoots(roots)),
    roots: () => service.roots(),
    setLogLevel: (level, o) => runOn(service.setLogLevel(level, o), o),
    cacheInfo: (kind, o) => runOn(service.cacheInfo(kind, o)),
    clearCache: (server) => runOn(service.clearCache(server)),
    callToolStreaming: (name, args, o) => streamOn(service.callToolStreaming(name, args, o), o),
    callToolAsTask: (name, args, o) => runOn(service.callToolAsTask(name, args, o), o),
    waitForTask: (task, o) => runOn(service.waitForTask(task, o), o),
    getTask: (task, o) => runOn(service.getTask(task, o), o),
    getTaskResult: (task, o) => runOn(service.getTaskResult(task, o), o),
    cancelTask: (task, o) => runOn(service.cancelTask(task, o), o),
    updateTask: (task, inputResponses, o) => runOn(service.updateTask(task, inputResponses, o), o),
    listTasks: (o) => runOn(service.listTasks(o), o),
    toOpenAITools: (o) => runOn(service.listTools(o), o).then(ToolFormats.toOpenAI),
    toAnthropicTools: (o) => runOn(service.listTools(o), o).then(ToolFormats.toAnthropic),
    toGoogleTools: (o) => runOn(service.listTools(o), o).then(ToolFormats.toGoogle),
    listen: async (filter, listener, o) => {
      const scope = Effect.runSync(Scope.make())
      const subscription = await runOn(Scope.extend(service.listen(filter, o), scope), o).catch(async (error) => {
        await Effect.runPromise(Scope.close(scope, Exit.void))
        throw error
      })
      const done = runOn(
        Stream.runForEach(subscription.notifications, (notification) =>
          Effect.sync(() => {
            try {
              listener(notification)
            } catch (error) {
              console.warn(`mcp-effect: a subscription listener threw: ${String(error)}`)
            }
          }))
      )
      done.catch(() => {})
      return {
        acknowledged: subscription.acknowledged,
        unsupported: subscription.unsupported,
        isActive: subscription.isActive,
        pendingNotifications: subscription.pendingNotifications,
        droppedNotifications: subscription.droppedNotifications,
        done,
        close: () => Effect.runPromise(Scope.close(scope, Exit.void))
      }
    },
    onNotification: (listener) => {
      let active = true
      const guarded: NotificationListener = (server, method, params) => {
        if (active) listener(server, method, params)
      }
      Effect.runSync(Scope.extend(service.onNotification(guarded), listenerScope))
      return () => {
        active = false
      }
    },
    onStateChange: (listener) => {
      // A wrapper of its own: the same function added twice is removed once per call.
      const added: StateListener = (server, state) => listener(server, state)
      states.listeners.add(added)
      return () => {
        states.listeners.delete(added)
      }
    },
    state: (server) => {
      const connection = server === undefined
        ? (service.servers.length === 1 ? service.servers[0] : undefined)
        : service.servers.find((s) => s.name === server)
      if (connection === undefined) {
        throw new ServerNotFoundError({
          server: server ?? "(pass a server name)",
          known: service.servers.map((s) => s.name)
        })
      }
      return connection.currentState()
    },
    close,
    [asyncDispose]: close
  }
}

// Node 20 has `Symbol.asyncDispose`; the registered symbol is what a polyfill would use.
const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ??
  Symbol.for("Symbol.asyncDispose") as typeof Symbol.asyncDispose

/** The OAuth of a URL target when `oauth` is set. */
const authFor = (target: Target.Target, options: ConnectOptions) => {
  if (options.oauth === undefined) return Effect.succeed(undefined)
  if (options.auth !== undefined) return Effect.fail(new ConfigError({ message: "oauth and auth exclude each other" }))
  const detected = Target.detect(target)
  return detected.transport === "stdio"
    ? Effect.succeed(undefined)
    : NodeOAuth.fromSettingsGlobal(detected.url, options.oauth)
}

const detectsSse = (target: Target.Target, options: ConnectOptions) =>
  options.transport === "sse" || (options.transport === undefined && Target.detect(target).transport === "sse")

/** A host function, sync or async, as an effect whose failure is the thrown value. */
const lift = <P>(f: (params: P) => unknown) => (params: Record<string, unknown>) =>
  Effect.tryPromise({ try: async () => f(params as P), catch: (error) => error })

const handlersOf = (options: ConnectOptions): Handlers.Handlers | undefined =>
  options.elicitationHandler === undefined && options.samplingHandler === undefined && options.roots === undefined
    ? undefined
    : {
      elicitation: options.elicitationHandler === undefined ? undefined : lift(options.elicitationHandler),
      elicitationModes: options.elicitationModes,
      sampling: options.samplingHandler === undefined ? undefined : lift(options.samplingHandler),
      samplingSupportsTools: options.samplingSupportsTools,
      roots: options.roots
    }

const requestMetaOf = (meta: ConnectOptions["requestMeta"]) => typeof meta === "function" ? Effect.sync(meta) : meta

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromiseExit(effect).then(unwrap)

/** Settles a promise from an exit: the failure is the error itself, so `instanceof` works. */
const settle = <A, E>(resolve: (value: A) => void, reject: (error: unknown) => void) => (exit: Exit.Exit<A, E>) =>
  Exit.isSuccess(exit) ? resolve(exit.value) : reject(Cause.squash(exit.cause))

/** Rejects with the error itself (not a wrapper), so `instanceof` works for callers. */
const unwrap = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}
