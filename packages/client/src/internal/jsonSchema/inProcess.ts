/**
 * The in-process `JsonSchema` service over the engine.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { CheckOutcome, Options, Outcome, Service, ValidationIssue } from "../../JsonSchema.js"
import * as limits from "./limits.js"

/** @internal */
export { defaultBudgetMs, defaultLimits } from "./limits.js"

// The validator (and its dependencies) loads with the first service that needs it.
const loadEngine = Effect.promise(() => import("./engine.js"))

/** @internal */
export const make = (options?: Options): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.map(loadEngine, (engine) => engine.makeEngine(limits.engineOptions(options))),
      (engine) => Effect.sync(engine.close)
    ),
    (engine): Service => ({
      validate: (schema, instance, validateOptions) =>
        Effect.suspend(() => {
          // A compiled schema validates synchronously: no promise, no fiber hop.
          const outcome = engine.validateCached(schema, instance, validateOptions?.cacheKey)
          return outcome !== undefined
            ? Effect.succeed(outcome)
            : Effect.promise(() => engine.validate(schema, instance, validateOptions?.cacheKey))
        }),
      check: (schema, checkOptions) => Effect.promise(() => engine.check(schema, checkOptions?.cacheKey)),
      dialectOf: engine.dialectOf
    })
  )

const partialNote = (partial: ReadonlyArray<string>): string =>
  partial.length === 0 ? "" : ` (validation is partial: ${partial.join(", ")} only annotate and were not checked)`

/** @internal */
export const describe = (outcome: Outcome | CheckOutcome): string => {
  switch (outcome._tag) {
    case "Valid":
      return `valid${partialNote(outcome.partial)}`
    case "Ready":
      return `schema ready${partialNote(outcome.partial)}`
    case "Invalid": {
      const [first, ...rest] = outcome.errors
      const more = rest.length + outcome.omitted
      const head = first === undefined ? "does not match the schema" : `${first.path || "(root)"}: ${first.message}`
      return `${head}${more > 0 ? ` (and ${more} more)` : ""}${partialNote(outcome.partial)}`
    }
    case "Unusable":
      return `unusable schema: ${outcome.reason}`
    case "UnsupportedDialect":
      return `unsupported JSON Schema dialect ${JSON.stringify(outcome.dialect)} (supported: ${
        outcome.supported.join(", ")
      })`
    case "Timeout":
      return `validation did not finish within ${outcome.budgetMs} ms`
  }
}

/** @internal */
export const refuseInstance = (
  instance: unknown,
  maxDepth = limits.defaultLimits.maxInstanceDepth
): ValidationIssue | undefined => {
  const refused = limits.refuseInstance(instance, maxDepth)
  return refused === undefined ? undefined : { ...refused, keyword: "$instance", schemaPath: "" }
}
