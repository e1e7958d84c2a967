/**
 * The facade's client object: every `McpClient` method as a Promise-returning one over a built
 * runtime, plus the listeners, `state` and `close`.
 *
 * @internal
 */
import { ServerNotFoundError } from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type { NotificationListener } from "@mcp-effect/client/ServerConnection"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { Client, ConnectOptions, StateListener } from "../../Connect.js"
import type * as internalPlatform from "../platform.js"
import { callToolOn } from "./callTool.js"
import { handle } from "./handle.js"
import { stateListeners } from "./listeners.js"
import { closeScope, runnerOn } from "./run.js"
import { build } from "./runtime.js"
import { iterableOn } from "./stream.js"
import { listenOn } from "./subscription.js"

/** Connects to `servers` and resolves with the client once every one of them is connected. */
export const open = async (
  servers: ReadonlyArray<ServerConfig<internalPlatform.Services>>,
  options: ConnectOptions
): Promise<Client> => {
  const states = stateListeners(options)
  const { dispose, fork, service } = await build(servers, options, states.dispatch)
  const runOn = runnerOn(fork)
  const streamOn = iterableOn(runOn)
  const listenerScope = await Effect.runPromise(Scope.make())
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
