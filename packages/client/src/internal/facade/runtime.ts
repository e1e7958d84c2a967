/**
 * The runtime behind a facade client, whatever the platform: the `McpClient` options read from
 * the shared facade options, a client layer built into a runtime held by a scope of the facade's
 * own (or a caller's runtime that provides the client), and the service read from it.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import type * as Handlers from "../../Handlers.js"
import * as McpClient from "../../McpClient.js"
import type { ServerConfig } from "../../ServerConfig.js"
import { loggerLayer } from "./logger.js"
import { closeScope, run } from "./run.js"
import type { Fork } from "./run.js"
import type { FacadeOptions, Logger, StateListener } from "./types.js"

/** A built facade runtime: its service, a fork of calls on it, and its disposal. */
export interface FacadeRuntime {
  readonly service: McpClient.Service
  readonly fork: Fork<McpClient.McpClient>
  readonly dispose: () => Promise<void>
}

/** The `McpClient` options of `servers` under the facade's options. */
export const clientOptions = <R>(
  servers: ReadonlyArray<ServerConfig<R>>,
  options: FacadeOptions,
  onStateChange: StateListener
): McpClient.Options<R> => ({
  servers: options.reconnect === undefined
    ? servers
    : servers.map((config) => ({ ...config, reconnect: config.reconnect ?? options.reconnect })),
  clientInfo: options.clientInfo,
  onNotification: options.onNotification,
  onStateChange,
  onToolDrift: options.onToolDrift,
  validateStructuredContent: options.validateStructuredContent,
  extensions: options.extensions,
  protocol: options.protocol,
  discoverTimeout: options.discoverTimeout,
  lazy: options.lazy,
  maxResultChars: options.maxResultChars,
  maxResultBytes: options.maxResultBytes,
  overflow: options.overflow,
  maxResultHandles: options.maxResultHandles,
  maxDeclaredResultChars: options.maxDeclaredResultChars,
  maxConcurrentConnects: options.maxConcurrentConnects,
  toolNameSeparator: options.toolNameSeparator,
  toolCollisions: options.toolCollisions,
  requestMeta: requestMetaOf(options.requestMeta),
  handlers: handlersOf(options)
})

/** Builds `clientLayer` (with `logger`, if any); rejects with the layer's error itself when it fails. */
export const build = async <E>(
  clientLayer: Layer.Layer<McpClient.McpClient, E>,
  logger: Logger | undefined
): Promise<FacadeRuntime> => {
  // The layer built into a runtime held by a scope of the facade's own: a `ManagedRuntime`
  // would add its own bookkeeping (about twice the CPU of the build itself per connect).
  const scope = Effect.runSync(Scope.make())
  const dispose = () => closeScope(scope)
  try {
    const runtime = await run(Scope.extend(
      Layer.toRuntime(logger === undefined ? clientLayer : Layer.provideMerge(clientLayer, loggerLayer(logger))),
      scope
    ))
    return { ...onRuntime(runtime), dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}

/**
 * The service of a `ManagedRuntime` that provides the client, and a fork of calls on it; what
 * to release is the caller's to say. Rejects with the layer's error itself.
 */
export const attach = async <E>(
  runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, E>
): Promise<Omit<FacadeRuntime, "dispose">> => {
  try {
    return onRuntime(await runtime.runtime())
  } catch (error) {
    // A layer that fails to build rejects with a FiberFailure: hand out the error itself.
    throw Runtime.isFiberFailure(error) ? Cause.squash(error[Runtime.FiberFailureCauseId]) : error
  }
}

// Calls run on the built runtime directly (no per-call check that the layer is ready), and
// settle their promise from an observer of the fiber's exit: one promise per call, no extra hop.
const onRuntime = (runtime: Runtime.Runtime<McpClient.McpClient>): Omit<FacadeRuntime, "dispose"> => ({
  service: Context.get(runtime.context, McpClient.McpClient),
  fork: Runtime.runFork(runtime)
})

/** A host function, sync or async, as an effect whose failure is the thrown value. */
const lift = <P>(f: (params: P) => unknown) => (params: Record<string, unknown>) =>
  Effect.tryPromise({ try: async () => f(params as P), catch: (error) => error })

const handlersOf = (options: FacadeOptions): Handlers.Handlers | undefined =>
  options.elicitationHandler === undefined && options.samplingHandler === undefined && options.roots === undefined
    ? undefined
    : {
      elicitation: options.elicitationHandler === undefined ? undefined : lift(options.elicitationHandler),
      elicitationModes: options.elicitationModes,
      sampling: options.samplingHandler === undefined ? undefined : lift(options.samplingHandler),
      samplingSupportsTools: options.samplingSupportsTools,
      roots: options.roots
    }

const requestMetaOf = (meta: FacadeOptions["requestMeta"]) => typeof meta === "function" ? Effect.sync(meta) : meta
