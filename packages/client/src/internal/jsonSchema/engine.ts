/**
 * The validator behind `JsonSchema`: `@hyperjump/json-schema`, made safe for hostile schemas.
 * This is the only module that knows the library; swapping it means rewriting this file.
 *
 * What the library does on its own, and what we do about it:
 * - it fetches `http(s):` and reads `file:` references: the URI-scheme plugins are removed when
 *   this module loads, so a reference outside the document fails to compile instead;
 * - it keeps one process-wide registry: each schema is registered under a fresh `urn:uuid:` only
 *   while it compiles, and a schema whose `$id` would shadow a registered document is refused;
 * - it validates `format` when asked: it is never asked (`format` only annotates here);
 * - it evaluates without a clock: an evaluation plugin checks the deadline every few dozen
 *   subschemas and aborts (a single regular expression still cannot be stopped).
 *
 * @internal
 */
import { removeUriSchemePlugin } from "@hyperjump/browser"
import * as Predicate from "effect/Predicate"
import "@hyperjump/json-schema/draft-07"
import "@hyperjump/json-schema/draft-2019-09"
import {
  hasSchema,
  InvalidSchemaError,
  type OutputUnit,
  registerSchema,
  type SchemaObject,
  setShouldValidateFormat,
  unregisterSchema,
  validate as validateUri
} from "@hyperjump/json-schema/draft-2020-12"
import {
  BASIC,
  compile,
  type CompiledSchema,
  type EvaluationPlugin,
  getSchema,
  interpret,
  unloadDialect
} from "@hyperjump/json-schema/experimental"
import * as Instance from "@hyperjump/json-schema/instance/experimental"
import type {
  CheckOutcome,
  Dialect,
  DialectOutcome,
  Outcome,
  Timeout,
  UnsupportedDialect,
  Unusable,
  ValidationIssue
} from "../../JsonSchema.js"
import { randomUuid } from "../sha256.js"
import { analyse, type Analysis } from "./analysis.js"
import { dialectUris, knownDialect, unsupported } from "./dialect.js"
import { type EngineOptions, measure, refuseInstance } from "./limits.js"

removeUriSchemePlugin("http")
removeUriSchemePlugin("https")
removeUriSchemePlugin("file")
setShouldValidateFormat(false)

/** @internal */
export interface Engine {
  readonly dialectOf: (schema: unknown) => DialectOutcome
  readonly check: (schema: unknown, cacheKey: string | undefined) => Promise<CheckOutcome>
  readonly validate: (schema: unknown, instance: unknown, cacheKey: string | undefined) => Promise<Outcome>
  /** Whether a schema is cached under this caller's key. */
  readonly isCached: (cacheKey: string) => boolean
  /** Validates synchronously when the schema is compiled already; `undefined` when it is not. */
  readonly validateCached: (schema: unknown, instance: unknown, cacheKey: string | undefined) => Outcome | undefined
  /** Unregisters the remotes. */
  readonly close: () => void
}

interface Ready {
  readonly _tag: "Ready"
  readonly dialect: Dialect
  readonly partial: ReadonlyArray<string>
  readonly compiled: CompiledSchema
  /** The schema as given, for the values of failing keywords. */
  readonly schema: unknown
  /** Prefixes of keyword locations in the root resource, stripped from `schemaPath`. */
  readonly rootBases: ReadonlyArray<string>
  keywordValues?: Map<string, unknown>
}

type Prepared = Ready | Unusable | UnsupportedDialect

const now = (): number => performance.now()

const budgetExceeded = new Error("JSON Schema validation budget exceeded")

// Checked every 32 subschemas: reading the clock costs more than evaluating a small keyword.
const budgetPlugin = (deadline: number): EvaluationPlugin => {
  let steps = 0
  return {
    beforeSchema() {
      if ((++steps & 31) === 0 && now() > deadline) throw budgetExceeded
    }
  }
}

const clip = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

const stripHash = (uri: string): string => (uri.endsWith("#") ? uri.slice(0, -1) : uri)

/** @internal */
export const makeEngine = (options: EngineOptions): Engine => {
  const { budgetMs, limits } = options
  const timeout: Timeout = { _tag: "Timeout", budgetMs }

  // Trusted documents; those with a `$vocabulary` may be used as `$schema`.
  const remoteDialects = new Map<string, Dialect>()
  const registered: Array<string> = []
  try {
    for (const remote of options.remotes) {
      registerSchema(remote.schema as SchemaObject, remote.uri, dialectUris[options.defaultDialect])
      registered.push(remote.uri)
      const schema = remote.schema
      if (Predicate.isRecord(schema) && Predicate.isRecord(schema.$vocabulary)) {
        const base = typeof schema.$schema === "string" ? knownDialect(schema.$schema) : options.defaultDialect
        if (base !== undefined) remoteDialects.set(stripHash(remote.uri), base)
      }
    }
  } catch (error) {
    for (const uri of registered) unregisterSchema(uri)
    throw error
  }

  const resolveDialect = (uri: string): { readonly dialect: Dialect; readonly uri: string } | undefined => {
    const known = knownDialect(uri)
    if (known !== undefined) return { dialect: known, uri: dialectUris[known] }
    const remote = remoteDialects.get(stripHash(uri))
    return remote === undefined ? undefined : { dialect: remote, uri }
  }

  const declared = (schema: unknown): { readonly dialect: Dialect; readonly uri: string } | UnsupportedDialect => {
    if (!Predicate.isRecord(schema) || !Object.hasOwn(schema, "$schema")) {
      return { dialect: options.defaultDialect, uri: dialectUris[options.defaultDialect] }
    }
    const value = schema.$schema
    if (typeof value !== "string") return unsupported(clip(String(JSON.stringify(value))))
    return resolveDialect(value) ?? unsupported(clip(value))
  }

  const dialectOf = (schema: unknown): DialectOutcome => {
    const result = declared(schema)
    return "_tag" in result ? result : { _tag: "Supported", dialect: result.dialect }
  }

  const prepare = async (schema: unknown): Promise<Prepared> => {
    const dialect = declared(schema)
    if ("_tag" in dialect) return dialect
    const rootUri = `urn:uuid:${randomUuid()}`
    let analysis: Analysis
    try {
      analysis = analyse(schema, {
        limits,
        rootUri,
        dialect: dialect.dialect,
        dialectOf: (uri) => resolveDialect(uri)?.dialect,
        isRegistered: (uri) => hasSchema(uri) || hasSchema(`${uri}#`)
      })
    } catch (error) {
      return { _tag: "Unusable", reason: clip(`the schema cannot be analysed: ${String(error)}`) }
    }
    if (analysis._tag !== "Analysed") return analysis

    const root = Predicate.isRecord(schema) && Object.hasOwn(schema, "$schema")
      ? { ...schema, $schema: dialect.uri }
      : schema
    const rootBases = [`${rootUri}#`, `${analysis.rootBase}#`]
    try {
      registerSchema(root as SchemaObject, rootUri, dialect.uri)
      const compiled = await compile(await getSchema(rootUri))
      return { _tag: "Ready", dialect: dialect.dialect, partial: analysis.partial, compiled, schema, rootBases }
    } catch (error) {
      return { _tag: "Unusable", reason: await reasonOf(error, root, dialect.uri) }
    } finally {
      unregisterSchema(rootUri)
      for (const uri of analysis.resources) unloadDialect(uri)
    }
  }

  // Least recently used first; a pending compilation is shared by concurrent callers, and a
  // settled one is read synchronously.
  interface Entry {
    readonly pending: Promise<Prepared>
    settled: Prepared | undefined
  }
  const cache = new Map<string, Entry>()
  const byObject = new WeakMap<object, { readonly key: string }>()

  // undefined: the schema is refused before any key is worth computing
  const keyOf = (schema: unknown, cacheKey: string | undefined): string | undefined => {
    if (cacheKey !== undefined) return `k:${cacheKey}`
    if (typeof schema === "object" && schema !== null) {
      const known = byObject.get(schema)
      if (known !== undefined) return known.key
    }
    const measured = measure(schema, limits.maxSchemaDepth, limits.maxSchemaLength)
    if (measured._tag !== "Measured") return undefined
    const key = `j:${JSON.stringify(schema)}`
    if (typeof schema === "object" && schema !== null) byObject.set(schema, { key })
    return key
  }

  const lookup = (schema: unknown, cacheKey: string | undefined): Entry => {
    const key = keyOf(schema, cacheKey)
    if (key === undefined) return { pending: prepare(schema), settled: undefined }
    const hit = cache.get(key)
    if (hit !== undefined) {
      cache.delete(key)
      cache.set(key, hit)
      return hit
    }
    const entry: Entry = { pending: prepare(schema), settled: undefined }
    entry.pending.then((prepared) => {
      entry.settled = prepared
    })
    cache.set(key, entry)
    while (cache.size > options.cacheSize) cache.delete(cache.keys().next().value!)
    return entry
  }

  const ready = (prepared: Prepared, deadline: number): CheckOutcome => {
    if (prepared._tag !== "Ready") return prepared
    if (now() > deadline) return timeout
    return { _tag: "Ready", dialect: prepared.dialect, partial: prepared.partial }
  }

  const check = async (schema: unknown, cacheKey: string | undefined): Promise<CheckOutcome> => {
    const deadline = now() + budgetMs
    const entry = lookup(schema, cacheKey)
    return ready(entry.settled ?? await entry.pending, deadline)
  }

  const evaluate = (prepared: Prepared, instance: unknown, deadline: number): Outcome => {
    if (prepared._tag !== "Ready") return prepared
    const { dialect, partial } = prepared
    const refused = refuseInstance(instance, limits.maxInstanceDepth)
    if (refused !== undefined) {
      return {
        _tag: "Invalid",
        dialect,
        partial,
        errors: [{ path: refused.path, message: refused.message, keyword: "$instance", schemaPath: "" }],
        omitted: 0
      }
    }
    if (now() > deadline) return timeout
    try {
      const node = Instance.fromJs(instance as never)
      const plugins = [budgetPlugin(deadline)]
      if (interpret(prepared.compiled, node, { plugins }).valid) return { _tag: "Valid", dialect, partial }
      const output = interpret(prepared.compiled, node, { outputFormat: BASIC, plugins })
      const units = output.valid ? [] : output.errors ?? []
      const errors = units.slice(0, limits.maxErrors).map((unit) => issue(prepared, unit, instance))
      if (errors.length === 0) {
        errors.push({ path: "", message: "does not match the schema", keyword: "", schemaPath: "" })
      }
      return { _tag: "Invalid", dialect, partial, errors, omitted: Math.max(0, units.length - limits.maxErrors) }
    } catch (error) {
      if (error === budgetExceeded) return timeout
      // Fail closed: whatever stopped the validator, the instance was not shown to match.
      const message = error instanceof RangeError
        ? "could not be validated: the validator ran out of stack"
        : `could not be validated: ${clip(String((error as Error)?.message ?? error))}`
      return {
        _tag: "Invalid",
        dialect,
        partial,
        errors: [{ path: "", message, keyword: "", schemaPath: "" }],
        omitted: 0
      }
    }
  }

  const validate = async (schema: unknown, instance: unknown, cacheKey: string | undefined): Promise<Outcome> => {
    const deadline = now() + budgetMs
    const entry = lookup(schema, cacheKey)
    return evaluate(entry.settled ?? await entry.pending, instance, deadline)
  }

  const validateCached = (schema: unknown, instance: unknown, cacheKey: string | undefined): Outcome | undefined => {
    const deadline = now() + budgetMs
    const entry = lookup(schema, cacheKey)
    return entry.settled === undefined ? undefined : evaluate(entry.settled, instance, deadline)
  }

  const close = () => {
    for (const uri of registered.splice(0)) unregisterSchema(uri)
    cache.clear()
  }

  const isCached = (cacheKey: string) => cache.has(`k:${cacheKey}`)

  return { dialectOf, check, validate, validateCached, isCached, close }
}

const reasonOf = async (error: unknown, schema: unknown, dialectUri: string): Promise<string> => {
  if (error instanceof InvalidSchemaError) {
    let detail = ""
    try {
      const output = await validateUri(dialectUri, schema as never, BASIC)
      const units = output.valid ? [] : output.errors ?? []
      const leaves = units.filter((unit) => !/\/(allOf|anyOf|\$ref|\$dynamicRef|\$recursiveRef)$/.test(unit.keyword))
      const first = (leaves.length > 0 ? leaves : units).slice(0, 3)
      detail = first.map((unit) => `${pointerOf(unit.instanceLocation) || "the root"} (${keywordName(unit)})`).join(
        ", "
      )
    } catch {
      // keep the generic reason
    }
    return clip(`a keyword has a malformed value${detail === "" ? "" : ` at ${detail}`}`)
  }
  const message = String((error as Error)?.message ?? error)
  const retrieval = /Unable to load resource '([^']*)'/.exec(message)
  if (retrieval !== null) {
    return clip(
      `$ref to ${retrieval[1]} points outside the schema (references resolve only inside it; nothing is fetched)`
    )
  }
  if (error instanceof SyntaxError) return clip(`a pattern is not an ECMA-262 regular expression: ${message}`)
  if (/No such anchor|No schema found|not a schema/.test(message)) return clip(`a $ref points nowhere: ${message}`)
  return clip(`the schema cannot be compiled: ${message}`)
}

const keywordName = (unit: OutputUnit): string => unit.keyword.slice(unit.keyword.lastIndexOf("/") + 1)

const pointerOf = (instanceLocation: string): string => instanceLocation.replace(/^#\*?/, "")

const preview = (value: unknown): string => {
  try {
    return clip(JSON.stringify(value) ?? String(value), 120)
  } catch {
    return "…"
  }
}

const at = (value: unknown, path: string): unknown => {
  if (path === "") return value
  let current = value
  for (const token of path.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(current)) current = current[Number(key)]
    else if (Predicate.isRecord(current) && Object.hasOwn(current, key)) current = current[key]
    else return undefined
  }
  return current
}

const jsonType = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "array"
    : typeof value === "number" && Number.isInteger(value)
    ? "integer"
    : typeof value

const keywordValue = (ready: Ready, location: string, schemaPath: string): unknown => {
  if (schemaPath === "" || schemaPath.startsWith("/")) return at(ready.schema, schemaPath)
  // In an embedded resource: the compiled value, which the library keeps serialised for these two.
  if (ready.keywordValues === undefined) {
    const values = new Map<string, unknown>()
    for (const [url, nodes] of Object.entries(ready.compiled.ast)) {
      if (url === "metaData" || url === "plugins" || !Array.isArray(nodes)) continue
      for (const node of nodes as ReadonlyArray<readonly [string, string, unknown]>) values.set(node[1], node[2])
    }
    ready.keywordValues = values
  }
  const value = ready.keywordValues.get(location)
  const parse = (u: unknown) => {
    try {
      return typeof u === "string" ? JSON.parse(u) : u
    } catch {
      return u
    }
  }
  return /\/(enum|const)$/.test(location) ? (Array.isArray(value) ? value.map(parse) : parse(value)) : value
}

/** Keywords whose message only names the keyword's value (`{}` stands for it). */
const VALUE_MESSAGES: Readonly<Record<string, string>> = {
  minLength: "must be at least {} characters long",
  maxLength: "must be at most {} characters long",
  minItems: "must have at least {} items",
  maxItems: "must have at most {} items",
  minProperties: "must have at least {} properties",
  maxProperties: "must have at most {} properties",
  minimum: "must be >= {}",
  maximum: "must be <= {}",
  exclusiveMinimum: "must be > {}",
  exclusiveMaximum: "must be < {}",
  multipleOf: "must be a multiple of {}"
}

/** Keywords whose message is fixed. */
const FIXED_MESSAGES: Readonly<Record<string, string>> = {
  dependentRequired: "is missing a property that another property requires",
  dependencies: "is missing a property that another property requires",
  uniqueItems: "must not contain duplicate items",
  contains: "must contain the required number of matching items",
  minContains: "must contain the required number of matching items",
  maxContains: "must contain the required number of matching items",
  not: "must not match the schema in \"not\"",
  oneOf: "must match exactly one schema in \"oneOf\"",
  anyOf: "must match at least one schema in \"anyOf\""
}

/** What an instance failing keyword `id` (`keyword` as the schema names it, its path ending in `last`) is told. */
const messageFor = (id: string, keyword: string, last: string, value: unknown, actual: unknown): string => {
  const valued = Object.hasOwn(VALUE_MESSAGES, id) ? VALUE_MESSAGES[id] : undefined
  if (valued !== undefined) return valued.replace("{}", String(value))
  const fixed = Object.hasOwn(FIXED_MESSAGES, id) ? FIXED_MESSAGES[id] : undefined
  if (fixed !== undefined) return fixed
  switch (id) {
    case "validate":
      return last === "additionalProperties"
        ? "is not an allowed property"
        : last === "unevaluatedProperties"
        ? "is not an allowed property (not evaluated by any subschema)"
        : last === "unevaluatedItems" || last === "items" || last === "additionalItems"
        ? "is not an allowed item"
        : "is not allowed here (the schema is false)"
    case "type":
      return `must be ${Array.isArray(value) ? value.join(" or ") : String(value)}, not ${jsonType(actual)}`
    case "enum":
      return `must be one of ${preview(value)}`
    case "const":
      return `must be ${preview(value)}`
    case "pattern":
      return `must match the pattern ${preview(value)}`
    case "required": {
      const missing = Array.isArray(value) && Predicate.isRecord(actual)
        ? value.filter((name) => typeof name === "string" && !Object.hasOwn(actual, name))
        : []
      return missing.length > 0
        ? `is missing required ${missing.length === 1 ? "property" : "properties"} ${
          missing.map((name) => JSON.stringify(name)).join(", ")
        }`
        : "is missing required properties"
    }
    default:
      return `fails ${JSON.stringify(keyword)}`
  }
}

const issue = (ready: Ready, unit: OutputUnit, instance: unknown): ValidationIssue => {
  const location = unit.absoluteKeywordLocation
  const base = ready.rootBases.find((prefix) => location.startsWith(prefix))
  const schemaPath = base === undefined ? location : decodeURI(location.slice(base.length))
  const tokens = schemaPath.split("/")
  const last = tokens[tokens.length - 1] ?? ""
  const isName = unit.instanceLocation.startsWith("#*")
  const path = pointerOf(unit.instanceLocation)
  const id = keywordName(unit)
  const keyword = id === "validate"
    ? (/^(additionalProperties|unevaluatedProperties|unevaluatedItems|items|additionalItems)$/.test(last)
      ? last
      : "false")
    : last.replace(/~1/g, "/").replace(/~0/g, "~")
  const value = id === "validate" ? undefined : keywordValue(ready, location, schemaPath)
  const actual = at(instance, path)
  const message = messageFor(id, keyword, last, value, actual)
  return {
    path,
    message: clip(
      isName ? `property name ${JSON.stringify(path.slice(path.lastIndexOf("/") + 1))} ${message}` : message
    ),
    keyword,
    schemaPath: schemaPath.startsWith("/") || schemaPath === "" ? schemaPath : clip(schemaPath, 500)
  }
}
