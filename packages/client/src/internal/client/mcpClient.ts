/** @internal */
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Root } from "../../Handlers.js"
import * as JsonSchema from "../../JsonSchema.js"
import type * as McpClient from "../../McpClient.js"
import { AmbiguousServerError, ConfigError, ServerNotFoundError } from "../../McpError.js"
import type { ConnectError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import { ResultHandleNotFoundError } from "../../ResultLimits.js"
import * as ServerConnection from "../../ServerConnection.js"
import { Task } from "../../Task.js"
import * as Defaults from "../defaults.js"
import * as ProviderName from "../providerName.js"
import * as ResultLimits from "../resultLimits.js"
import { routes } from "./routes.js"
import type { Call, Feature, Kind, Route, Router, Routes } from "./routes.js"
import * as ToolNames from "./toolNames.js"
import * as ToolRouting from "./toolRouting.js"
import * as ToolSearch from "./toolSearch.js"

/** @internal */
export const clientInfo: McpSchema.Implementation = { name: "mcp-effect", version: "0.1.0" }

/** @internal */
export const make = <R>(
  options: McpClient.Options<R>
): Effect.Effect<McpClient.Service, ConnectError | ConfigError, Scope.Scope | R> =>
  Effect.gen(function*() {
    const duplicates = options.servers.map((s) => s.name).filter((name, i, all) => all.indexOf(name) !== i)
    if (duplicates.length > 0) {
      return yield* new ConfigError({
        message: `server names must be unique; repeated: ${[...new Set(duplicates)].join(", ")}`
      })
    }
    // Every unusable configuration, before any server is started.
    const invalid = options.servers.flatMap((s) => s.configError === undefined ? [] : [s.configError.message])
    if (invalid.length > 0) return yield* new ConfigError({ message: invalid.join("\n") })
    const listeners = new Set<ServerConnection.NotificationListener>()
    if (options.onNotification !== undefined) listeners.add(options.onNotification)
    const onNotification: ServerConnection.NotificationListener = (server, method, params) => {
      for (const listener of listeners) {
        try {
          listener(server, method, params)
        } catch (error) {
          Effect.runFork(Effect.logWarning(`notification listener threw on ${method} from ${server}: ${String(error)}`))
        }
      }
    }
    // One roots source for every connection: the host's list or function, read at each
    // roots/list, until setRoots replaces it with a list.
    const initialRoots = options.handlers?.roots
    let roots: ReadonlyArray<Root> | (() => ReadonlyArray<Root>) = initialRoots ?? []
    const currentRoots = (): ReadonlyArray<Root> => typeof roots === "function" ? roots() : roots
    const handlers = options.handlers === undefined
      ? undefined
      : { ...options.handlers, ...(initialRoots === undefined ? {} : { roots: currentRoots }) }
    // The JSON Schema engine: the host's (e.g. the Node worker with a hard deadline), else an
    // in-process one owned by this client.
    const provided = yield* Effect.serviceOption(JsonSchema.JsonSchema)
    const jsonSchema = Option.isSome(provided) ? provided.value : yield* JsonSchema.make()
    // Whole results kept by `overflow: "handle"`: one store for every server, emptied on close.
    const resultStore = ResultLimits.makeStore(options.maxResultHandles ?? ResultLimits.MAX_HANDLES)
    // A finalizer of the scope itself, not `Effect.addFinalizer`, which copies the fiber's refs for it.
    yield* Scope.addFinalizer(yield* Effect.scope, Effect.sync(resultStore.clear))
    const connectionOptions: ServerConnection.Options = {
      resultLimits: options,
      resultStore,
      maxDeclaredResultChars: options.maxDeclaredResultChars,
      jsonSchema,
      validateStructuredContent: options.validateStructuredContent,
      extensions: options.extensions,
      clientInfo: options.clientInfo ?? clientInfo,
      onNotification,
      maxPages: options.maxPages,
      handlers,
      protocol: options.protocol,
      discoverTimeout: options.discoverTimeout,
      requestMeta: options.requestMeta,
      onInputRequiredWait: options.onInputRequiredWait,
      tracing: options.tracing,
      propagateTraceContext: options.propagateTraceContext,
      onStateChange: options.onStateChange,
      onToolDrift: options.onToolDrift,
      lazy: options.lazy
    }
    // Eager servers connect here, all at once unless `maxConcurrentConnects` bounds it. One
    // server needs no concurrent loop: its fibers and bookkeeping are about 1.5 ms of a
    // process's first connect (the first run of that code), and one server no loop at all.
    const servers = options.servers.length === 1
      ? [yield* ServerConnection.make(options.servers[0]!, connectionOptions)]
      : yield* Effect.forEach(
        options.servers,
        (config) => ServerConnection.make(config, connectionOptions),
        {
          concurrency: options.servers.length === 0
            ? undefined
            : options.lazy === true
            ? "unbounded"
            : options.maxConcurrentConnects ?? "unbounded"
        }
      )
    // Lazy servers connect on their first request: one to every server connects them in bounds.
    const naming = ToolNames.settingsOf(options.servers, options)
    const router = routerOf(
      servers,
      options.lazy === true ? options.maxConcurrentConnects ?? Defaults.MAX_CONCURRENT_CONNECTS : "unbounded",
      naming
    )
    const { server } = router
    const methods = routedOn(router)
    const { callTool } = methods
    const unsafeCallTool: McpClient.Service["unsafeCallTool"] = (name, args, callOptions, onDone) => {
      // Only where the server and the tool's own name are known without a lookup: one server,
      // or the one named, and no naming.
      if (naming !== undefined || ProviderName.mayBeMapped(name)) return undefined
      const selected = callOptions?.server
      const connection = selected === undefined
        ? (servers.length === 1 ? servers[0] : undefined)
        : servers.find((s) => s.name === selected)
      return connection?.unsafeCallTool?.(name, args, callOptions, onDone)
    }
    const service: Omit<McpClient.Service, keyof Routes> = {
      servers,
      server,
      findTool: router.findTool,
      searchTools: (query, searchOptions) =>
        Effect.map(
          router.listTools(searchOptions?.server),
          (tools) => ToolSearch.search(tools, query, searchOptions?.limit ?? 10)
        ),
      readResult: (handle, readOptions) =>
        Effect.suspend(() => {
          const slice = resultStore.read(handle, readOptions?.offset, readOptions?.length)
          return slice === undefined ? Effect.fail(new ResultHandleNotFoundError({ handle })) : Effect.succeed(slice)
        }),
      unsafeCallTool,
      callToolStreaming: (name, args, callOptions) =>
        Stream.unwrapScoped(Effect.gen(function*() {
          const mailbox = yield* Mailbox.make<McpClient.ToolChunk, McpClient.CallToolError>()
          yield* callTool(name, args, {
            ...callOptions,
            onProgress: (progress) => {
              mailbox.unsafeOffer({ _tag: "Progress", progress })
              callOptions?.onProgress?.(progress)
            }
          }).pipe(
            Effect.matchEffect({
              onSuccess: (result) => Effect.zipRight(mailbox.offer({ _tag: "Result", result }), mailbox.end),
              onFailure: (error) => mailbox.fail(error)
            }),
            Effect.forkScoped
          )
          return Mailbox.toStream(mailbox)
        })),
      callTools: (calls, requestOptions) =>
        Effect.forEach(
          calls,
          (call) => callTool(call.name, call.arguments, Object.assign({}, requestOptions, { server: call.server })),
          { concurrency: "unbounded" }
        ),
      request: (method, params, requestOptions) =>
        Effect.flatMap(router.only(requestOptions?.server), (c) => c.request(method, params, requestOptions)),
      notify: (method, params, notifyOptions) =>
        Effect.flatMap(router.only(notifyOptions?.server), (c) => c.notify(method, params)),
      setRoots: (next) =>
        Effect.suspend(() => {
          const list = [...next]
          roots = list
          return Effect.forEach(servers, (c) => c.setRoots(list), { discard: true })
        }),
      clearCache: (selected) =>
        selected === undefined
          ? Effect.forEach(servers, (c) => c.clearCache, { discard: true })
          : Effect.flatMap(server(selected), (c) => c.clearCache),
      cacheInfo: (kind, infoOptions) =>
        Effect.flatMap(router.only(infoOptions?.server), (c) => c.cacheInfo(kind, infoOptions?.uri)),
      roots: currentRoots,
      onNotification: (listener) =>
        Effect.acquireRelease(
          Effect.sync(() => listeners.add(listener)),
          () => Effect.sync(() => listeners.delete(listener))
        )
    }
    // One `Object.fromEntries` of every member: the service's assigned onto the routed methods
    // made the client a dictionary (V8 stops adding fast properties by key past a few).
    return Object.fromEntries([...Object.entries(methods), ...Object.entries(service)]) as
      & typeof methods
      & typeof service satisfies McpClient.Service
  })

type Method = (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown, unknown>

/**
 * The rows that are amiss (`never` when none): one naming no method of `ServerConnection`, or
 * reading `server` elsewhere than the types put it (a row's options position must be the one
 * `McpClient.Routed` derives, `OptionsIndex`, or -1 for a method without options).
 *
 * @internal
 */
export type RowsAmiss =
  | Exclude<keyof Routes, keyof ServerConnection.ServerConnection>
  | {
    readonly [K in keyof Routes & keyof ServerConnection.ServerConnection]: ServerConnection.ServerConnection[K] extends
      (...args: infer P) => unknown ?
      [McpClient.OptionsIndex<P>] extends [never] ? Routes[K]["options"] extends -1 ? never : K
      : `${Routes[K]["options"]}` extends McpClient.OptionsIndex<P> ? never
      : K
      : K
  }[keyof Routes & keyof ServerConnection.ServerConnection]

/** Fails to compile, naming the row, when a row is amiss (`RowsAmiss`). @internal */
export const rowsAgree: [RowsAmiss] extends [never] ? true : RowsAmiss = true

/** A routed method: the row's route over `router`, calling the connection's method of the same name. */
const routedMethod = (router: Router, name: string, route: Route<Kind>): Method => (...args) =>
  route.run(
    router,
    (args[route.options] as { readonly server?: string | undefined } | undefined)?.server,
    args,
    (connection, given = args) => (connection[name as keyof ServerConnection.ServerConnection] as Method)(...given)
  )

/** Every routed method, by name, over `router`: the types `McpClient.Routed` derives from the same rows. */
const routedOn = (router: Router): McpClient.Routed<Routes> =>
  Object.fromEntries(
    Object.entries(routes).map(([name, route]) => [name, routedMethod(router, name, route)])
  ) as unknown as McpClient.Routed<Routes>

/**
 * How calls find their server among `servers` (see `routes.ts`), and the tool lookup under the
 * names `naming` gives (`toolNames.ts`); a request to every server connects at most
 * `concurrency` of them at a time.
 */
const routerOf = (
  servers: ReadonlyArray<ServerConnection.ServerConnection>,
  concurrency: number | "unbounded",
  naming: ToolNames.Settings | undefined
) => {
  const byName = new Map(servers.map((s) => [s.name, s]))
  const names = servers.map((s) => s.name)

  // The bound is on connecting: the servers with a session open are asked at once, the others
  // `concurrency` at a time (a thousand lazy servers, connected, list in one round trip). Two
  // bounded loops, not one semaphore: a release wakes every waiter of Effect's semaphore.
  const onEach = <A, E, R>(
    connections: ReadonlyArray<ServerConnection.ServerConnection>,
    f: (connection: ServerConnection.ServerConnection) => Effect.Effect<A, E, R>
  ): Effect.Effect<Array<A>, E, R> =>
    Effect.suspend(() => {
      const isReady = connections.map((c) => c.currentState()._tag === "Ready")
      if (concurrency === "unbounded" || isReady.every(Boolean)) {
        return Effect.forEach(connections, f, { concurrency: "unbounded" })
      }
      const results: Array<A> = new Array(connections.length)
      const indices = (ready: boolean) => isReady.flatMap((r, i) => r === ready ? [i] : [])
      const into = (i: number) => Effect.map(f(connections[i]!), (a) => void (results[i] = a))
      return Effect.as(
        Effect.all([
          Effect.forEach(indices(true), into, { concurrency: "unbounded", discard: true }),
          Effect.forEach(indices(false), into, { concurrency, discard: true })
        ], { concurrency: 2, discard: true }),
        results
      )
    })

  const server = (name: string) => {
    const found = byName.get(name)
    return found === undefined
      ? Effect.fail(new ServerNotFoundError({ server: name, known: names }))
      : Effect.succeed(found)
  }

  const only = (selected: string | undefined) =>
    selected !== undefined
      ? server(selected)
      : servers.length === 1
      ? Effect.succeed(servers[0]!)
      : Effect.fail(new ServerNotFoundError({ server: "(pass { server })", known: names }))

  const offers = (connection: ServerConnection.ServerConnection, feature: Feature) => {
    const negotiated = connection.negotiated()
    return negotiated === undefined || negotiated.capabilities[feature] !== undefined
  }

  const targets = (selected: string | undefined, feature: Feature) =>
    selected === undefined
      ? Effect.succeed(servers.filter((s) => offers(s, feature)))
      : Effect.map(server(selected), (s) => [s])

  const tagged = <A>(items: ReadonlyArray<A>, server: string) =>
    items.map((item) => Object.assign({}, item, { server }))

  const aggregate = <A>(
    feature: Feature,
    selected: string | undefined,
    list: (connection: ServerConnection.ServerConnection) => Effect.Effect<ReadonlyArray<A>, ConnectError>
  ): Effect.Effect<ReadonlyArray<A & { readonly server: string }>, ConnectError | ServerNotFoundError> =>
    Effect.flatMap(targets(selected, feature), (connections) =>
      Effect.map(
        onEach(connections, (c) => Effect.map(list(c), (items) => tagged(items, c.name))),
        (lists) => lists.flat()
      ))

  // A cursor belongs to the server that issued it: pages come from one server.
  const page = (selected: string | undefined, call: Call) =>
    Effect.flatMap(only(selected), (c) =>
      Effect.map(
        call(c) as Effect.Effect<ServerConnection.Page<object>, unknown>,
        (page) => ({ items: tagged(page.items, c.name), nextCursor: page.nextCursor })
      ))

  const tooling = ToolRouting.make({
    servers,
    server,
    page,
    listed: (selected, list = (c) => c.listTools()) => aggregate("tools", selected, list)
  }, naming)
  const { findTool, listTools } = tooling

  // Prompts and resources are routed to the server that lists them, else to the first one,
  // whose own error then says what is wrong.
  const locate = (
    selected: string | undefined,
    find: Effect.Effect<string | undefined, ConnectError | ServerNotFoundError>
  ): Effect.Effect<ServerConnection.ServerConnection, ConnectError | ServerNotFoundError> => {
    if (selected !== undefined) return server(selected)
    if (servers.length === 1) return Effect.succeed(servers[0]!)
    return Effect.flatMap(find, (name) =>
      name !== undefined
        ? server(name)
        : servers.length > 0
        ? Effect.succeed(servers[0]!)
        : Effect.fail(new ServerNotFoundError({ server: "(any)", known: names })))
  }

  const router: Router & {
    readonly findTool: McpClient.Service["findTool"]
    readonly listTools: typeof listTools
  } = {
    servers,
    server,
    only,
    findTool,
    listTools,
    tools: (selected, call) => listTools(selected, call as ToolRouting.List),
    toolsPage: tooling.toolsPage,
    toolTarget: tooling.toolTarget,
    aggregate: (feature, selected, call) =>
      aggregate(
        feature,
        selected,
        call as (c: ServerConnection.ServerConnection) => Effect.Effect<
          ReadonlyArray<object>,
          ConnectError
        >
      ),
    page,
    // Task ids are unique only on the server that issued them: a handle names its server, a
    // bare id needs one unless there is only one.
    taskServer: (task, selected) =>
      task instanceof Task
        ? server(task.server)
        : selected !== undefined
        ? server(selected)
        : servers.length === 1
        ? Effect.succeed(servers[0]!)
        : Effect.fail(new AmbiguousServerError({ subject: `task ${task.slice(0, 200)}`, servers: names })),
    promptServer: (name, selected) =>
      locate(
        selected,
        name === undefined
          ? Effect.succeed(undefined)
          : Effect.map(
            aggregate("prompts", undefined, (c) => c.listPrompts()),
            (prompts) => prompts.find((p) => p.name === name)?.server
          )
      ),
    resourceServer: (uri, selected) =>
      locate(
        selected,
        Effect.map(
          aggregate("resources", undefined, (c) => c.listResources()),
          (resources) => resources.find((r) => r.uri === uri)?.server
        )
      ),
    every: (selected, accepts, call, combine) =>
      selected !== undefined
        ? Effect.flatMap(server(selected), call)
        : Effect.map(onEach(servers.filter(accepts), (c) => call(c)), combine)
  }
  return router
}
