/**
 * JSON Schema validation for schemas that come from a server and are therefore hostile input:
 * the dialects 2020-12 (assumed when `$schema` is absent), 2019-09 and draft-07, `$ref`s resolved
 * only inside the document (nothing is ever fetched), every cost bounded before compiling, and
 * the whole validation under a time budget. A timeout fails validation; it never passes.
 *
 * `JsonSchema` is a service so the platform chooses how the budget is enforced:
 *
 * - {@link layer} (here, any platform) validates in-process and checks the budget between
 *   evaluation steps. It cannot stop a single catastrophic regular expression (`^(a+)+$` on a
 *   long near-match): JavaScript regexes cannot be interrupted from the thread running them.
 * - `NodeJsonSchema.layer` (`@mcp-effect/node`) validates in a worker thread with a hard deadline
 *   and replaces the worker when the deadline passes, so even a catastrophic pattern ends in
 *   {@link Timeout} on time.
 *
 * The validator behind both (`@hyperjump/json-schema`, pinned) is an implementation detail of this
 * module and can be swapped without changing its API.
 *
 * @example
 * ```ts
 * import * as JsonSchema from "@mcp-effect/client/JsonSchema"
 * import * as Effect from "effect/Effect"
 *
 * const outputSchema = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] }
 *
 * const program = Effect.gen(function*() {
 *   const jsonSchema = yield* JsonSchema.JsonSchema
 *   // The cache key names the schema: compiled once, reused for every result of the tool.
 *   const outcome = yield* jsonSchema.validate(outputSchema, { sum: "42" }, { cacheKey: "calculator/add" })
 *   if (outcome._tag === "Invalid") console.warn(JsonSchema.describe(outcome))
 * })
 * program.pipe(Effect.provide(JsonSchema.layer()), Effect.runPromise)
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as dialects from "./internal/jsonSchema/dialect.js"
import * as internal from "./internal/jsonSchema/inProcess.js"

/**
 * A JSON Schema dialect this module reads.
 *
 * @since 0.1.0
 * @category models
 */
export type Dialect = "2020-12" | "2019-09" | "draft-07"

/**
 * The dialects this module reads, newest first.
 *
 * @since 0.1.0
 * @category models
 */
export const supportedDialects: ReadonlyArray<Dialect> = dialects.supportedDialects

/**
 * The canonical `$schema` URI of each dialect. The spellings with and without a trailing `#`
 * are both accepted (and `https:` for draft-07).
 *
 * @since 0.1.0
 * @category models
 */
export const dialectUris: { readonly [D in Dialect]: string } = dialects.dialectUris

/**
 * One reason an instance does not match: where (`path`, a JSON Pointer into the instance, `""`
 * for the instance itself), why (`message`, readable, never longer than a few hundred
 * characters), and which keyword said so (`keyword`, at `schemaPath`, a JSON Pointer into the
 * schema, or an absolute URI when the keyword is in an embedded resource).
 *
 * @since 0.1.0
 * @category models
 */
export interface ValidationIssue {
  readonly path: string
  readonly message: string
  readonly keyword: string
  readonly schemaPath: string
}

/**
 * The instance matches. `partial` names the keywords of the schema that only annotate and were
 * not checked (`format`, `contentEncoding`, `contentMediaType`, `contentSchema`): when it is not
 * empty, validation is partial and a host should say so.
 *
 * @since 0.1.0
 * @category models
 */
export interface Valid {
  readonly _tag: "Valid"
  readonly dialect: Dialect
  readonly partial: ReadonlyArray<string>
}

/**
 * The instance does not match. `errors` holds at most {@link Limits.maxErrors} issues; `omitted`
 * counts the ones left out. An instance that is nested deeper than {@link Limits.maxInstanceDepth}
 * or is not JSON is refused this way without being validated (keyword `"$instance"`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly dialect: Dialect
  readonly errors: ReadonlyArray<ValidationIssue>
  readonly omitted: number
  readonly partial: ReadonlyArray<string>
}

/**
 * The schema cannot be used, for a reason other than its dialect: an external `$ref` (nothing
 * is fetched), a malformed keyword value, colliding `$id`s or anchors, or a cost over a
 * {@link Limits limit}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unusable {
  readonly _tag: "Unusable"
  readonly reason: string
}

/**
 * The schema declares a dialect this module does not read (`dialect` is its `$schema` as
 * written).
 *
 * @since 0.1.0
 * @category models
 */
export interface UnsupportedDialect {
  readonly _tag: "UnsupportedDialect"
  readonly dialect: string
  readonly supported: ReadonlyArray<string>
}

/**
 * Compiling and validating took longer than the budget. Validation failed: a timeout never
 * counts as a match.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timeout {
  readonly _tag: "Timeout"
  readonly budgetMs: number
}

/**
 * What {@link Service.validate} concludes.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = Valid | Invalid | Unusable | UnsupportedDialect | Timeout

/**
 * The schema compiled and is ready to validate instances.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ready {
  readonly _tag: "Ready"
  readonly dialect: Dialect
  readonly partial: ReadonlyArray<string>
}

/**
 * What {@link Service.check} concludes about a schema alone.
 *
 * @since 0.1.0
 * @category models
 */
export type CheckOutcome = Ready | Unusable | UnsupportedDialect | Timeout

/**
 * The dialect a schema declares, read without compiling it.
 *
 * @since 0.1.0
 * @category models
 */
export type DialectOutcome = { readonly _tag: "Supported"; readonly dialect: Dialect } | UnsupportedDialect

/**
 * The bounds applied to every schema (before compiling) and every instance (before validating).
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** Size of the schema as JSON text, in characters. */
  readonly maxSchemaLength: number
  /** Nesting depth of the schema as a JSON value. */
  readonly maxSchemaDepth: number
  /** Number of subschemas (schema objects and booleans in schema positions). */
  readonly maxSubschemas: number
  /** Number of subschemas evaluated once every `$ref` is expanded (recursion counted once). */
  readonly maxRefExpansion: number
  /** Length of a `pattern` or `patternProperties` regular expression. */
  readonly maxPatternLength: number
  /** Nesting depth of an instance. */
  readonly maxInstanceDepth: number
  /** Issues reported in {@link Invalid.errors}. */
  readonly maxErrors: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Wall-clock budget for compiling (when not cached) and validating one instance. Default 5000 ms. */
  readonly budgetMs?: number | undefined
  readonly limits?: Partial<Limits> | undefined
  /** The dialect of a schema without `$schema`. Default `"2020-12"`. */
  readonly defaultDialect?: Dialect | undefined
  /** Compiled schemas kept, least recently used evicted first. Default 256. */
  readonly cacheSize?: number | undefined
  /**
   * Trusted documents registered under their URIs for the lifetime of the layer, so `$ref` and
   * `$schema` may point at them (never fetched). A custom meta-schema among them may be used as
   * `$schema`. The registry of the underlying validator is process-wide: two live layers must not
   * register the same URI. Meant for test suites; a server's schemas never need it.
   */
  readonly remotes?: ReadonlyArray<{ readonly uri: string; readonly schema: unknown }> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ValidateOptions {
  /**
   * Identifies the schema in the compiled-validator cache, e.g. server name + tool name + a hash
   * of the schema text. The caller guarantees that one key always means one schema. Without it
   * the schema's JSON text is the key (computed once per schema object: schemas are treated as
   * immutable).
   */
  readonly cacheKey?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Compiles the schema (once per cache key) and validates the instance against it, all within
   * the time budget. Never fails: every way it can end is an {@link Outcome}.
   */
  readonly validate: (schema: unknown, instance: unknown, options?: ValidateOptions) => Effect.Effect<Outcome>
  /** Compiles the schema (once per cache key) without validating anything, e.g. an `inputSchema`. */
  readonly check: (schema: unknown, options?: ValidateOptions) => Effect.Effect<CheckOutcome>
  /** Reads the declared dialect without compiling; cheap enough to run before every call. */
  readonly dialectOf: (schema: unknown) => DialectOutcome
}

/**
 * @since 0.1.0
 * @category tags
 */
export class JsonSchema extends Context.Tag("@mcp-effect/client/JsonSchema")<JsonSchema, Service>() {}

/**
 * The bounds used when {@link Options.limits} leaves one out: 1,000,000 characters, depth 64,
 * 10,000 subschemas, 100,000 subschemas once `$ref`s are expanded, patterns of 10,000 characters,
 * instances nested 256 deep (the validator recurses per level; about 900 overflow a default
 * stack), 20 reported errors.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultLimits: Limits = internal.defaultLimits

/**
 * The default time budget of one validation, in milliseconds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultBudgetMs: number = internal.defaultBudgetMs

/**
 * Reads the dialect a schema declares (`$schema`), `defaultDialect` when there is none.
 *
 * @since 0.1.0
 * @category accessors
 */
export const dialectOf: (schema: unknown, defaultDialect?: Dialect) => DialectOutcome = dialects.dialectOf

/**
 * Why an instance is refused without being validated — nested deeper than `maxDepth` (default
 * {@link Limits.maxInstanceDepth} of {@link defaultLimits}), or not a JSON value — if it is. The
 * walk is iterative, so a 100,000-deep value costs no stack. {@link Service.validate} applies it
 * already; a caller that must copy an instance (to a worker, say) checks first.
 *
 * @since 0.1.0
 * @category accessors
 */
export const refuseInstance: (instance: unknown, maxDepth?: number) => ValidationIssue | undefined =
  internal.refuseInstance

/**
 * One line for a log or an error message, e.g. `/items/0/id: must be integer` or
 * `unsupported JSON Schema dialect "…" (supported: …)`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const describe: (outcome: Outcome | CheckOutcome) => string = internal.describe

/**
 * The in-process validator: runs on any platform, checks the budget between evaluation steps
 * (every few dozen subschemas), and so cannot stop one catastrophic regular expression. Prefer
 * `NodeJsonSchema.make` on Node.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<Service, never, Scope.Scope> = internal.make

/**
 * The in-process validator as a layer (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<JsonSchema> => Layer.scoped(JsonSchema, make(options))
