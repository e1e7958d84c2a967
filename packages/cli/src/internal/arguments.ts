/**
 * Tool and prompt arguments from the command line: `--args JSON` and `KEY=VALUE` words.
 *
 * @internal
 */
import * as JsonText from "@mcp-effect/client/internal/jsonText"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { UsageError } from "./errors.js"

/** @internal `--args`: a JSON object. */
export const parseObject = (text: string): Effect.Effect<Record<string, unknown>, UsageError> =>
  Either.match(JsonText.parse(text), {
    onLeft: (mistake): Effect.Effect<unknown, UsageError> =>
      Effect.fail(new UsageError({ message: `--args is ${mistake}` })),
    onRight: (value) => Effect.succeed(value)
  }).pipe(
    Effect.filterOrFail(
      Predicate.isRecord,
      () => new UsageError({ message: "--args must be a JSON object, like {\"message\":\"hi\"}" })
    )
  )

const jsonOrString = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/**
 * `KEY=VALUE` words as an object. Tool values are JSON when they parse (`n=3`, `on=true`,
 * `tags=["a"]`), else strings; prompt values (`asJson: false`) are always strings.
 *
 * @internal
 */
export const keyValues = (
  words: ReadonlyArray<string>,
  asJson: boolean
): Effect.Effect<Record<string, unknown>, UsageError> => {
  const result: Record<string, unknown> = {}
  for (const word of words) {
    const separator = word.indexOf("=")
    if (separator <= 0) {
      return Effect.fail(new UsageError({ message: `expected KEY=VALUE, got "${word}"` }))
    }
    const value = word.slice(separator + 1)
    result[word.slice(0, separator)] = asJson ? jsonOrString(value) : value
  }
  return Effect.succeed(result)
}

/** @internal `--args`, then the `KEY=VALUE` words over it. */
export const merged = (
  json: string,
  words: ReadonlyArray<string>,
  asJson: boolean
): Effect.Effect<Record<string, unknown>, UsageError> =>
  Effect.zipWith(parseObject(json), keyValues(words, asJson), (base, pairs) => ({ ...base, ...pairs }))

/** @internal Prompt arguments are strings on the wire; numbers and booleans are accepted for convenience. */
export const stringArgs = (args: Record<string, unknown>): Effect.Effect<Record<string, string>, UsageError> => {
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string") result[key] = value
    else if (typeof value === "number" || typeof value === "boolean") result[key] = String(value)
    else return Effect.fail(new UsageError({ message: `prompt argument "${key}" must be a string` }))
  }
  return Effect.succeed(result)
}

/** @internal `--env KEY=VALUE` words as the variables they set (values are strings, as is). */
export const environment = (words: ReadonlyArray<string>): Effect.Effect<Record<string, string>, UsageError> => {
  const result: Record<string, string> = {}
  for (const word of words) {
    const separator = word.indexOf("=")
    if (separator <= 0) return Effect.fail(new UsageError({ message: `--env expects KEY=VALUE, got "${word}"` }))
    result[word.slice(0, separator)] = word.slice(separator + 1)
  }
  return Effect.succeed(result)
}
