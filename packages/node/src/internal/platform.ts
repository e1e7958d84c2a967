/**
 * What a client needs from Node, built as one layer: process spawning, the undici `HttpClient`
 * (loaded with the first HTTP request)
 * and the shared JSON Schema worker. (Composing their three layers costs several times as much
 * per connect as building them in one effect.)
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { HttpClient as HttpClientTag } from "@effect/platform/HttpClient"
import * as CacheStore from "@mcp-effect/client/CacheStore"
import { ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import * as EraCache from "@mcp-effect/client/EraCache"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as McpClient from "@mcp-effect/client/McpClient"
import type { ConfigError, ConnectError } from "@mcp-effect/client/McpError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as NodeChildProcess from "../NodeChildProcess.js"
import type { NetworkOptions } from "../UndiciHttpClient.js"
import * as LazyHttpClient from "./lazyHttpClient.js"
import * as Network from "./network.js"
import * as nodeJsonSchema from "./nodeJsonSchema.js"

// The spawner is a constant service: taken out of its layer once.
const spawner = Effect.runSync(Effect.provide(ChildProcessSpawner, NodeChildProcess.layer))

/**
 * `dispatcher`: `"scoped"` for an undici `Agent` of the layer's own (destroyed with it),
 * `"global"` for undici's global dispatcher (connections reused across layers). The network
 * settings (`network`, the proxy environment) are read here.
 *
 * @internal
 */
export const context = (
  dispatcher: "scoped" | "global",
  network?: NetworkOptions
): Effect.Effect<Context.Context<Services>, ConfigError, Scope.Scope> =>
  // One acquisition for everything the services hold: the dispatcher (when scoped) and a use of
  // the shared JSON Schema worker (output schemas are validated in a worker with a hard
  // deadline, so a hostile pattern cannot hang the host; one worker serves every client). Its
  // release is a finalizer of the scope itself, not `acquireRelease`'s, which copies the fiber's
  // refs for it (twice) per client built.
  Effect.uninterruptible(Effect.flatMap(Effect.scope, (scope) =>
    Effect.suspend(() => {
      const settings = Network.settings(network)
      if (Either.isLeft(settings)) return Effect.fail(settings.left)
      const http = LazyHttpClient.make(dispatcher, settings.right)
      const jsonSchema = nodeJsonSchema.acquireShared(undefined, nodeJsonSchema.defaultLingerMs)!
      return Effect.as(
        Scope.addFinalizer(
          scope,
          Effect.suspend(() => {
            nodeJsonSchema.releaseShared(jsonSchema)
            return Effect.promise(http.release)
          })
        ),
        Context.make(HttpClientTag, http.client).pipe(
          Context.add(ChildProcessSpawner, spawner),
          Context.add(JsonSchema.JsonSchema, jsonSchema.service)
        )
      )
    })))

/** @internal */
export type Services = ChildProcessSpawner | HttpClient.HttpClient | JsonSchema.JsonSchema

/** @internal */
export const layer = (dispatcher: "scoped" | "global"): Layer.Layer<Services, ConfigError> =>
  Layer.scopedContext(context(dispatcher))

/**
 * The client of `options` on these services, as one layer (providing a layer of the services to
 * `McpClient.layer` costs a second layer build per connect), with the runtime's minimum log level
 * when given (set here rather than by providing `Logger.minimumLogLevel`, a third layer).
 *
 * @internal
 */
export const clientLayer = (
  options: McpClient.Options<Services>,
  dispatcher: "scoped" | "global",
  minimumLogLevel?: LogLevel.LogLevel,
  network?: NetworkOptions,
  eraCache?: EraCache.Service,
  cacheStore?: CacheStore.Service
): Layer.Layer<McpClient.McpClient, ConnectError | ConfigError> =>
  Layer.scoped(
    McpClient.McpClient,
    withMinimumLogLevel(
      minimumLogLevel,
      Effect.flatMap(context(dispatcher, network), (services) =>
        Effect.provide(
          McpClient.make(options),
          withOptional(withOptional(services, EraCache.EraCache, eraCache), CacheStore.CacheStore, cacheStore)
        ))
    )
  )

// Set for the rest of the build (what the layer hands on; only the facade passes a level):
// `Effect.locallyScoped` would restore it on the fiber that closes the client (the facade's own,
// which then ends), and keep a copy of the fiber's refs per client to do so.
const withMinimumLogLevel = <A, E, R>(level: LogLevel.LogLevel | undefined, effect: Effect.Effect<A, E, R>) =>
  level === undefined ? effect : Effect.zipRight(FiberRef.set(FiberRef.currentMinimumLogLevel, level), effect)

const withOptional = <S, I, A>(services: Context.Context<S>, tag: Context.Tag<I, A>, value: A | undefined) =>
  value === undefined ? services : Context.add(services, tag, value)
