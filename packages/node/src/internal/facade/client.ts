/**
 * The facade's client object: every `McpClient` method as a Promise-returning one over a built
 * runtime (the facade's own, or a caller's), plus the listeners, `state` and `close`.
 *
 * @internal
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import { ServerNotFoundError } from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type { NotificationListener, ServerConnection } from "@mcp-effect/client/ServerConnection"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"
import * as Effect from "effect/Effect"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Client, ConnectOptions, StateListener } from "../../Connect.js"
import type * as internalPlatform from "../platform.js"
import { callToolOn } from "./callTool.js"
import { handle } from "./handle.js"
import { stateListeners } from "./listeners.js"
import { closeScope, runnerOn } from "./run.js"
import { attach, build } from "./runtime.js"
import type { FacadeRuntime } from "./runtime.js"
import { iterableOn } from "./stream.js"
import { listenOn } from "./subscription.js"

/** Connects to `servers` and resolves with the client once every one of them is connected. */
export const open = async (
  servers: ReadonlyArray<ServerConfig<internalPlatform.Services>>,
  options: ConnectOptions
): Promise<Client> => {
  const states = stateListeners(options)
  return clientOn(await build(servers, options, states.dispatch), states)
}

/**
 * The client over a caller's runtime that provides `McpClient`. Its state listeners follow
 * each connection's state stream (fibers of its own, stopped by `close`, which leaves the
 * runtime and its connections to the runtime's owner).
 */
export const fromRuntime = async <E>(
  runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, E>
): Promise<Client> => {
  const attached = await attach(runtime)
  const states = stateListeners({})
  const watchers = Effect.runSync(Scope.make())
  for (const connection of attached.service.servers) {
    Effect.runSync(Effect.forkIn(watchState(connection, states.dispatch), watchers))
  }
  return clientOn({ ...attached, dispose: () => closeScope(watchers) }, states)
}

// The stream starts with the state current when it subscribes: passed on unless it is still
// the one seen when the client was made.
const watchState = (connection: ServerConnection, dispatch: StateListener) => {
  const seen = connection.currentState()
  let first = true
  return Stream.runForEach(
    Stream.filter(connection.state.changes, (state) => {
      const already = first && state === seen
      first = false
      return !already
    }),
    (state) => Effect.sync(() => dispatch(connection.name, state))
  )
}

const clientOn = (
  { dispose, fork, service }: FacadeRuntime,
  states: ReturnType<typeof stateListeners>
): Client => {
  const runOn = runnerOn(fork)
  const streamOn = iterableOn(runOn)
  const listenerScope = Effect.runSync(Scope.make())
  const close = async () => {
    await closeScope(listenerScope)
    await dispose()
  }
  return {
    servers: service.servers.map(handle),
    listTools: (o) => runOn(service.listTools(o), o),
    findTool: (name, o) => runOn(service.findTool(name, o), o),
    callTool: callToolOn(service, runOn),
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
    listen: listenOn(service, runOn),
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
