/**
 * `JsonSchema` in a browser with a hard time budget: validation runs in a module Web Worker, and
 * a validation that passes its deadline ends in `Timeout` on time — even one stuck in a
 * catastrophic regular expression such as `^(a+)+$` — because the worker is terminated (and a
 * fresh one started for the next call); the page never freezes. The same outcome, and so the
 * same `ValidationError`, as `NodeJsonSchema` gives on Node.
 *
 * The worker is `jsonSchemaWorker.js`, served beside the client's browser bundle (see
 * docs/browser.md for bundlers that inline the client); `workerUrl` points elsewhere. Where
 * `Worker` does not exist, or the worker cannot be loaded (not served, refused by a Content
 * Security Policy), validation runs in-process, as `JsonSchema.layer` does.
 *
 * @example
 * ```ts
 * import * as BrowserJsonSchema from "@mcp-effect/client/BrowserJsonSchema"
 * import * as JsonSchema from "@mcp-effect/client/JsonSchema"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.flatMap(JsonSchema.JsonSchema, (jsonSchema) => jsonSchema.validate({ type: "string" }, 42))
 * program.pipe(Effect.provide(BrowserJsonSchema.layer({ budgetMs: 500 })), Effect.runPromise)
 * ```
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/jsonSchema/browserWorker.js"
import * as JsonSchema from "./JsonSchema.js"

/**
 * The options of `JsonSchema.make` (`budgetMs` is the hard deadline; the worker itself gives up
 * at 90 % of it, so that a merely slow validation does not cost a new worker), and where the
 * worker module is served.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends JsonSchema.Options {
  /** The worker module's URL; default `jsonSchemaWorker.js` beside the module that starts it. */
  readonly workerUrl?: string | URL | undefined
}

/**
 * The service in the current scope; the worker starts with the first validation and is
 * terminated when the scope closes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<JsonSchema.Service, never, Scope.Scope> = internal.make

/**
 * @since 0.2.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<JsonSchema.JsonSchema> =>
  Layer.scoped(JsonSchema.JsonSchema, make(options))
