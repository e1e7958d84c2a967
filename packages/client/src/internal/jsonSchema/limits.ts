/**
 * The JSON Schema limits and their defaults, and the walk that checks a document against them
 * (depth, length, JSON-ness). Kept apart from the engine so that reading the limits or refusing an
 * instance never loads the validator.
 *
 * @internal
 */
import type { Dialect, Limits, Options } from "../../JsonSchema.js"

/** @internal */
export interface EngineOptions {
  readonly limits: Limits
  readonly budgetMs: number
  readonly defaultDialect: Dialect
  readonly cacheSize: number
  readonly remotes: ReadonlyArray<{ readonly uri: string; readonly schema: unknown }>
}

/** @internal */
export const defaultLimits: Limits = {
  maxSchemaLength: 1_000_000,
  maxSchemaDepth: 64,
  maxSubschemas: 10_000,
  maxRefExpansion: 100_000,
  maxPatternLength: 10_000,
  maxInstanceDepth: 256,
  maxErrors: 20
}

/** @internal */
export const defaultBudgetMs = 5_000

/** @internal */
export const engineOptions = (options: Options | undefined): EngineOptions => ({
  limits: { ...defaultLimits, ...definedOnly(options?.limits ?? {}) },
  budgetMs: options?.budgetMs ?? defaultBudgetMs,
  defaultDialect: options?.defaultDialect ?? "2020-12",
  cacheSize: options?.cacheSize ?? 256,
  remotes: options?.remotes ?? []
})

const definedOnly = <A extends object>(partial: A): Partial<A> =>
  Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)) as Partial<A>

const isPlainObject = (u: object): boolean => {
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

interface Entry {
  readonly value: unknown
  readonly depth: number
  readonly parent: Entry | undefined
  readonly key: string
}

const pathOf = (entry: Entry): string => {
  const keys: Array<string> = []
  for (let e: Entry | undefined = entry; e !== undefined && e.parent !== undefined; e = e.parent) keys.push(e.key)
  return keys.reverse().map((key) => `/${escape(key)}`).join("")
}

/**
 * Checks that `value` is JSON no deeper than `maxDepth` and, when `maxLength` is given, no longer
 * than `maxLength` characters once serialised (approximately: escapes are not counted). Returns
 * the approximate length, or why not and where (a JSON Pointer).
 *
 * @internal
 */
export const measure = (
  value: unknown,
  maxDepth: number,
  maxLength = Infinity
): { readonly _tag: "Measured"; readonly length: number } | {
  readonly _tag: "TooDeep" | "TooLong" | "NotJson"
  readonly at: string
} => {
  let length = 0
  const stack: Array<Entry> = [{ value, depth: 0, parent: undefined, key: "" }]
  while (stack.length > 0) {
    const entry = stack.pop()!
    const value = entry.value
    switch (typeof value) {
      case "string":
        length += value.length + 2
        break
      case "number":
        if (!Number.isFinite(value)) return { _tag: "NotJson", at: pathOf(entry) }
        length += 8
        break
      case "boolean":
        length += 5
        break
      case "object": {
        if (value === null) {
          length += 4
          break
        }
        if (entry.depth >= maxDepth) return { _tag: "TooDeep", at: pathOf(entry) }
        const depth = entry.depth + 1
        length += 2
        if (Array.isArray(value)) {
          for (let i = value.length - 1; i >= 0; i--) {
            stack.push({ value: value[i], depth, parent: entry, key: String(i) })
          }
          length += value.length
        } else {
          if (!isPlainObject(value)) return { _tag: "NotJson", at: pathOf(entry) }
          for (const key in value) {
            if (!Object.hasOwn(value, key)) continue
            length += key.length + 4
            stack.push({ value: (value as Record<string, unknown>)[key], depth, parent: entry, key })
          }
        }
        break
      }
      default:
        return { _tag: "NotJson", at: pathOf(entry) }
    }
    if (length > maxLength) return { _tag: "TooLong", at: pathOf(entry) }
  }
  return { _tag: "Measured", length }
}

/** @internal */
export const escape = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1")
/**
 * Why an instance is refused before validation, if it is: deeper than `maxDepth`, or not JSON.
 *
 * @internal
 */
export const refuseInstance = (
  instance: unknown,
  maxDepth: number
): { readonly path: string; readonly message: string } | undefined => {
  const measured = measure(instance, maxDepth)
  switch (measured._tag) {
    case "Measured":
    case "TooLong":
      return undefined
    case "TooDeep":
      return { path: measured.at, message: `nested deeper than ${maxDepth} levels; not validated` }
    case "NotJson":
      return { path: measured.at, message: "not a JSON value; not validated" }
  }
}
