/**
 * `JsonSchema` on Node with a hard time budget: validation runs in a `worker_threads` worker, and
 * a validation that passes its deadline ends in `Timeout` on time — even one stuck in a
 * catastrophic regular expression such as `^(a+)+$` — because the worker is terminated (and a
 * fresh one started for the next call). Costs a message round trip per validation; compiled
 * schemas are cached in the worker, by the caller's `cacheKey` or else by schema object, and each
 * schema crosses to the worker once.
 *
 * @example
 * ```ts
 * import * as JsonSchema from "@mcp-effect/client/JsonSchema"
 * import * as NodeJsonSchema from "@mcp-effect/node/NodeJsonSchema"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.flatMap(JsonSchema.JsonSchema, (jsonSchema) => jsonSchema.validate({ type: "string" }, 42))
 * program.pipe(Effect.provide(NodeJsonSchema.layer({ budgetMs: 500 })), Effect.runPromise)
 * ```
 *
 * @since 0.1.0
 */
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/nodeJsonSchema.js"

/**
 * The options of `JsonSchema.make`; `budgetMs` is the hard deadline. The worker itself gives up
 * at 90 % of it, so that a merely slow validation does not cost a new worker.
 *
 * @since 0.1.0
 * @category models
 */
export type Options = JsonSchema.Options

/**
 * Starts the worker in the current scope (closing the scope terminates it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<JsonSchema.Service, never, Scope.Scope> = internal.make

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<JsonSchema.JsonSchema> =>
  Layer.scoped(JsonSchema.JsonSchema, make(options))

/**
 * Like {@link make}, but shared: every scope asking with equal options gets the same service (one
 * worker, one queue), started by the first and stopped `lingerMs` (default 10 s) after the last
 * one closed. Connections opened one after another then reuse a warm worker instead of starting
 * one each (a worker costs tens of milliseconds of CPU to start). Neither the worker nor the
 * linger timer keeps the process alive.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeShared: (
  options?: Options,
  lingerMs?: number
) => Effect.Effect<JsonSchema.Service, never, Scope.Scope> = internal.makeShared

/**
 * The shared service of {@link makeShared}; what `NodeMcpClient` and `connect` use.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerShared = (options?: Options, lingerMs?: number): Layer.Layer<JsonSchema.JsonSchema> =>
  Layer.scoped(JsonSchema.JsonSchema, makeShared(options, lingerMs))
