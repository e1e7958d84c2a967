/**
 * The facade's client object, whatever the platform: every `McpClient` method as a
 * Promise-returning one over a built runtime (the facade's own, or a caller's), plus the
 * listeners, `state` and `close`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as McpClient from "../../McpClient.js"
import { ServerNotFoundError } from "../../McpError.js"
import type { ServerConfig } from "../../ServerConfig.js"
import type { NotificationListener, ServerConnection } from "../../ServerConnection.js"
import * as ToolFormats from "../../ToolFormats.js"
import { callToolOn } from "./callTool.js"
import { handle } from "./handle.js"
import { stateListeners } from "./listeners.js"
import { closeScope, runnerOn } from "./run.js"
import type { Runner } from "./run.js"
import { attach, build, clientOptions } from "./runtime.js"
import type { FacadeRuntime } from "./runtime.js"
import { iterableOn } from "./stream.js"
import { listenOn } from "./subscription.js"
import type { Client, FacadeOptions, Hidden, Promised, Reshaped, Signal, StateListener } from "./types.js"

/**
 * Connects to `servers` through the client layer `layerOf` makes of their `McpClient` options,
 * and resolves with the client once every one of them is connected.
 */
export const open = async <R, E>(
  servers: ReadonlyArray<ServerConfig<R>>,
  options: FacadeOptions,
  layerOf: (clientOptions: McpClient.Options<R>) => Layer.Layer<McpClient.McpClient, E>
): Promise<Client> => {
  const states = stateListeners(options)
  const runtime = await build(layerOf(clientOptions(servers, options, states.dispatch)), options.logger)
  return clientOn(runtime, states)
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
    ...promisedOn(service, runOn),
    servers: service.servers.map(handle),
    request: (method, params, o) => runOn(service.request(method, params, o), o),
    callTool: callToolOn(service, runOn),
    callToolStreaming: (name, args, o) => streamOn(service.callToolStreaming(name, args, o), o),
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

// The service's members `promisedOn` leaves out: typed as a record, so the list cannot miss one.
const leftOut: { readonly [K in Hidden | Reshaped]: true } = {
  servers: true,
  server: true,
  unsafeCallTool: true,
  request: true,
  callToolStreaming: true,
  listen: true,
  onNotification: true
}
const hidden: ReadonlySet<string> = new Set(Object.keys(leftOut))

/** The options argument of a call: its last, when that is an object carrying an `AbortSignal`. */
const signalOf = (args: ReadonlyArray<unknown>): Signal | undefined => {
  const last = args[args.length - 1]
  if (typeof last !== "object" || last === null || Array.isArray(last)) return undefined
  const signal: unknown = (last as Signal).signal
  return typeof signal === "object" && signal !== null &&
      typeof (signal as AbortSignal).addEventListener === "function"
    ? last as Signal
    : undefined
}

// Every method of the service, by name, as a Promise-returning one (`Promised`): the service's
// own list of methods is the facade's, so a method added to `McpClient` needs nothing here.
const promisedOn = (
  service: McpClient.Service,
  runOn: Runner<McpClient.McpClient>
): Promised<Omit<McpClient.Service, Hidden | Reshaped>> => {
  const promised: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(service)) {
    if (hidden.has(name)) continue
    promised[name] = typeof member !== "function" ? member : (...args: ReadonlyArray<unknown>) => {
      const result: unknown = member(...args)
      return Effect.isEffect(result)
        ? runOn(result as Effect.Effect<unknown, unknown, McpClient.McpClient>, signalOf(args))
        : result
    }
  }
  return promised as Promised<Omit<McpClient.Service, Hidden | Reshaped>>
}

// Node 20 has `Symbol.asyncDispose`; the registered symbol is what a polyfill would use.
const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ??
  Symbol.for("Symbol.asyncDispose") as typeof Symbol.asyncDispose
