/** @internal */
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Root } from "../../Handlers.js"
import * as JsonSchema from "../../JsonSchema.js"
import type * as McpClient from "../../McpClient.js"
import {
  AmbiguousServerError,
  AmbiguousToolError,
  ConfigError,
  ServerNotFoundError,
  ToolNotFoundError
} from "../../McpError.js"
import type { ConnectError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import * as ServerConnection from "../../ServerConnection.js"
import { Task } from "../../Task.js"

/** @internal */
export const clientInfo: McpSchema.Implementation = { name: "mcp-effect", version: "0.1.0" }

type Feature = "tools" | "prompts" | "resources"

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
    const connectionOptions: ServerConnection.Options = {
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
      onStateChange: options.onStateChange
    }
    const servers = yield* Effect.forEach(
      options.servers,
      (config) => ServerConnection.make(config, connectionOptions),
      { concurrency: "unbounded" }
    )
    const byName = new Map(servers.map((s) => [s.name, s]))
    const names = servers.map((s) => s.name)

    const server = (name: string) => {
      const found = byName.get(name)
      return found === undefined
        ? Effect.fail(new ServerNotFoundError({ server: name, known: names }))
        : Effect.succeed(found)
    }

    /** `selected`, or the only server. */
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

    const aggregate = <A>(
      feature: Feature,
      selected: string | undefined,
      list: (connection: ServerConnection.ServerConnection) => Effect.Effect<ReadonlyArray<A>, ConnectError>
    ): Effect.Effect<ReadonlyArray<A & { readonly server: string }>, ConnectError | ServerNotFoundError> =>
      Effect.flatMap(targets(selected, feature), (connections) =>
        Effect.map(
          Effect.forEach(
            connections,
            (c) => Effect.map(list(c), (items) => items.map((item) => Object.assign({}, item, { server: c.name }))),
            {
              concurrency: "unbounded"
            }
          ),
          (lists) => lists.flat()
        ))

    const listTools: McpClient.Service["listTools"] = (listOptions) =>
      aggregate("tools", listOptions?.server, (c) => c.listTools(listOptions))

    const findTool: McpClient.Service["findTool"] = (name, findOptions) =>
      Effect.flatMap(listTools({ server: findOptions?.server }), (tools): Effect.Effect<
        McpClient.ServerTool,
        ToolNotFoundError | AmbiguousToolError
      > => {
        const matches = tools.filter((t) => t.name === name)
        if (matches.length === 1) return Effect.succeed(matches[0]!)
        if (matches.length === 0) return Effect.fail(new ToolNotFoundError({ name, server: findOptions?.server }))
        return Effect.fail(new AmbiguousToolError({ name, servers: matches.map((t) => t.server) }))
      })

    const toolServer = (name: string, selected: string | undefined) =>
      selected !== undefined
        ? server(selected)
        : servers.length === 1
        ? Effect.succeed(servers[0]!)
        : Effect.flatMap(findTool(name), (tool) => server(tool.server))

    const callTool: McpClient.Service["callTool"] = (name, args, callOptions) =>
      callOptions?.server === undefined && servers.length === 1
        ? servers[0]!.callTool(name, args, callOptions)
        : Effect.flatMap(toolServer(name, callOptions?.server), (c) => c.callTool(name, args, callOptions))

    // Only where the server is known without a lookup: one server, or the one named.
    const unsafeCallTool: McpClient.Service["unsafeCallTool"] = (name, args, callOptions, onDone) => {
      const selected = callOptions?.server
      const connection = selected === undefined
        ? (servers.length === 1 ? servers[0] : undefined)
        : servers.find((s) => s.name === selected)
      return connection?.unsafeCallTool?.(name, args, callOptions, onDone)
    }

    // Task ids are unique only on the server that issued them: a handle names its server, a
    // bare id needs one unless there is only one.
    const taskServer = (
      task: Task | string,
      selected: string | undefined
    ): Effect.Effect<ServerConnection.ServerConnection, ServerNotFoundError | AmbiguousServerError> =>
      task instanceof Task
        ? server(task.server)
        : selected !== undefined
        ? server(selected)
        : servers.length === 1
        ? Effect.succeed(servers[0]!)
        : Effect.fail(new AmbiguousServerError({ subject: `task ${task.slice(0, 200)}`, servers: names }))

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

    const listPrompts: McpClient.Service["listPrompts"] = (listOptions) =>
      aggregate("prompts", listOptions?.server, (c) => c.listPrompts(listOptions))
    const listResources: McpClient.Service["listResources"] = (listOptions) =>
      aggregate("resources", listOptions?.server, (c) => c.listResources(listOptions))

    // A cursor belongs to the server that issued it: pages come from one server.
    const pageOf = <A>(
      selected: string | undefined,
      list: (c: ServerConnection.ServerConnection) => Effect.Effect<ServerConnection.Page<A>, ConnectError>
    ): Effect.Effect<ServerConnection.Page<A & { readonly server: string }>, ConnectError | ServerNotFoundError> =>
      Effect.flatMap(only(selected), (c) =>
        Effect.map(list(c), (page) => ({
          items: page.items.map((item) => Object.assign({}, item, { server: c.name })),
          nextCursor: page.nextCursor
        })))

    const promptServer = (name: string, selected: string | undefined) =>
      locate(selected, Effect.map(listPrompts(), (prompts) => prompts.find((p) => p.name === name)?.server))

    const resourceServer = (uri: string, selected: string | undefined) =>
      locate(selected, Effect.map(listResources(), (resources) => resources.find((r) => r.uri === uri)?.server))

    return {
      servers,
      server,
      listTools,
      findTool,
      callTool,
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
      callToolAsTask: (name, args, callOptions) =>
        Effect.flatMap(toolServer(name, callOptions?.server), (c) => c.callToolAsTask(name, args, callOptions)),
      getTask: (task, callOptions) =>
        Effect.flatMap(taskServer(task, callOptions?.server), (c) => c.getTask(task, callOptions)),
      getTaskResult: (task, callOptions) =>
        Effect.flatMap(taskServer(task, callOptions?.server), (c) => c.getTaskResult(task, callOptions)),
      waitForTask: (task, waitOptions) =>
        Effect.flatMap(taskServer(task, waitOptions?.server), (c) => c.waitForTask(task, waitOptions)),
      cancelTask: (task, callOptions) =>
        Effect.flatMap(taskServer(task, callOptions?.server), (c) => c.cancelTask(task, callOptions)),
      updateTask: (task, inputResponses, callOptions) =>
        Effect.flatMap(taskServer(task, callOptions?.server), (c) => c.updateTask(task, inputResponses, callOptions)),
      listTasks: (listOptions) =>
        listOptions?.server !== undefined
          ? Effect.flatMap(server(listOptions.server), (c) => c.listTasks(listOptions))
          : Effect.map(
            Effect.forEach(
              servers.filter((c) => {
                const tasks = c.negotiated()?.capabilities.tasks
                return typeof tasks === "object" && tasks !== null && "list" in tasks
              }),
              (c) => c.listTasks(listOptions),
              { concurrency: "unbounded" }
            ),
            (lists) => lists.flat()
          ),
      listPrompts,
      listToolsPage: (cursor, listOptions) => pageOf(listOptions?.server, (c) => c.listToolsPage(cursor, listOptions)),
      listPromptsPage: (cursor, listOptions) =>
        pageOf(listOptions?.server, (c) => c.listPromptsPage(cursor, listOptions)),
      listResourcesPage: (cursor, listOptions) =>
        pageOf(listOptions?.server, (c) => c.listResourcesPage(cursor, listOptions)),
      listResourceTemplatesPage: (cursor, listOptions) =>
        pageOf(listOptions?.server, (c) => c.listResourceTemplatesPage(cursor, listOptions)),
      request: (method, params, requestOptions) =>
        Effect.flatMap(only(requestOptions?.server), (c) => c.request(method, params, requestOptions)),
      notify: (method, params, notifyOptions) =>
        Effect.flatMap(only(notifyOptions?.server), (c) => c.notify(method, params)),
      getPrompt: (name, args, callOptions) =>
        Effect.flatMap(promptServer(name, callOptions?.server), (c) => c.getPrompt(name, args, callOptions)),
      listResources,
      listResourceTemplates: (listOptions) =>
        aggregate("resources", listOptions?.server, (c) => c.listResourceTemplates(listOptions)),
      readResource: (uri, callOptions) =>
        Effect.flatMap(resourceServer(uri, callOptions?.server), (c) => c.readResource(uri, callOptions)),
      complete: (request, callOptions) =>
        Effect.flatMap(
          request.ref.type === "ref/prompt"
            ? promptServer(request.ref.name, callOptions?.server)
            : locate(callOptions?.server, Effect.succeed(undefined)),
          (c) => c.complete(request, callOptions)
        ),
      ping: (callOptions) =>
        callOptions?.server !== undefined
          ? Effect.flatMap(server(callOptions.server), (c) => c.ping(callOptions))
          : Effect.asVoid(Effect.forEach(servers, (c) => c.ping(callOptions), { concurrency: "unbounded" })),
      listen: (filter, listenOptions) =>
        Effect.flatMap(only(listenOptions?.server), (c) => c.listen(filter, { ackTimeout: listenOptions?.ackTimeout })),
      resumeInputRequired: (error, inputResponses) =>
        Effect.flatMap(server(error.server), (c) => c.resumeInputRequired(error, inputResponses)),
      setLogLevel: (level, callOptions) =>
        callOptions?.server !== undefined
          ? Effect.flatMap(server(callOptions.server), (c) => c.setLogLevel(level, callOptions))
          : Effect.asVoid(Effect.forEach(
            servers.filter((c) => c.negotiated()?.capabilities.logging !== undefined),
            (c) => c.setLogLevel(level, callOptions),
            { concurrency: "unbounded" }
          )),
      subscribeResource: (uri, callOptions) =>
        Effect.flatMap(resourceServer(uri, callOptions?.server), (c) => c.subscribeResource(uri, callOptions)),
      unsubscribeResource: (uri, callOptions) =>
        Effect.flatMap(resourceServer(uri, callOptions?.server), (c) => c.unsubscribeResource(uri, callOptions)),
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
        Effect.flatMap(only(infoOptions?.server), (c) => c.cacheInfo(kind, infoOptions?.uri)),
      roots: currentRoots,
      onNotification: (listener) =>
        Effect.acquireRelease(
          Effect.sync(() => listeners.add(listener)),
          () => Effect.sync(() => listeners.delete(listener))
        )
    } satisfies McpClient.Service
  })
