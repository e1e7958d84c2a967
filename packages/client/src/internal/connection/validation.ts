/**
 * A tool's schemas against the calls made under it: an input schema in a dialect the client
 * cannot read refuses the call before it is sent, and structured content is checked against
 * the `outputSchema` of the definition the call went out under (`"warn"` or `"strict"`). An output
 * schema that cannot be used (an external `$ref`, a budget passed, the time budget) fails the
 * call in strict mode and is a warning in warn mode.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { ValidationError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type { Options } from "../../ServerConnection.js"

/** @internal */
export interface Validation {
  /** The refusal of a call whose input schema's dialect cannot be read, if so. */
  readonly inputRefusal: (tool: McpSchema.Tool | undefined) => ValidationError | undefined
  /** Whether `checkOutput` checks the results of `tool` (never an error result). */
  readonly checksOutput: (tool: McpSchema.Tool | undefined) => boolean
  readonly checkOutput: (
    tool: McpSchema.Tool | undefined,
    result: McpSchema.CallToolResult,
    era: "legacy" | "modern"
  ) => Effect.Effect<void, ValidationError>
}

/** @internal */
export const make = (server: string, options: Options): Validation => {
  const validation = options.validateStructuredContent ?? "warn"
  const jsonSchema = options.jsonSchema

  const unsupportedDialect = (
    tool: string,
    which: "input" | "output",
    dialect: { readonly dialect: string; readonly supported: ReadonlyArray<string> }
  ) =>
    new ValidationError({
      server,
      tool,
      message: `${tool}: the ${which} schema declares the JSON Schema dialect ${
        JSON.stringify(dialect.dialect)
      }: that dialect is not supported (supported: ${dialect.supported.join(", ")})`
    })

  const inputRefusal = (tool: McpSchema.Tool | undefined): ValidationError | undefined => {
    if (jsonSchema === undefined || tool === undefined) return undefined
    const dialect = jsonSchema.dialectOf(tool.inputSchema)
    return dialect._tag === "Supported" ? undefined : unsupportedDialect(tool.name, "input", dialect)
  }

  const checksOutput = (tool: McpSchema.Tool | undefined) =>
    jsonSchema !== undefined && tool?.outputSchema !== undefined

  const checkOutput = (
    tool: McpSchema.Tool | undefined,
    result: McpSchema.CallToolResult,
    era: "legacy" | "modern"
  ): Effect.Effect<void, ValidationError> => {
    if (jsonSchema === undefined || tool?.outputSchema === undefined || result.isError === true) return Effect.void
    const violation = (message: string, errors?: ReadonlyArray<{ path: string; message: string }>) =>
      validation === "strict"
        ? Effect.fail(new ValidationError({ server, tool: tool.name, message, ...(errors ? { errors } : {}) }))
        : Effect.logWarning(`${server}: ${message}`)
    // Strict fails closed: a result it could not check is not a result it accepts.
    const unusable = (reason: string) =>
      validation === "strict"
        ? Effect.fail(
          new ValidationError({
            server,
            tool: tool.name,
            message:
              `${tool.name}'s outputSchema is unusable (${reason}): strict validation refuses the unchecked result`,
            unusable: reason
          })
        )
        : Effect.logWarning(`${server}: ${tool.name}'s outputSchema is unusable (${reason}); not validated`)
    const structured = result.structuredContent
    // 2026-07-28 allows any JSON value; earlier revisions an object only.
    const present = era === "modern"
      ? "structuredContent" in result
      : typeof structured === "object" && structured !== null && !Array.isArray(structured)
    if (!present) return violation(`${tool.name} declares an outputSchema but returned no structured content`)
    return Effect.flatMap(
      jsonSchema.validate(tool.outputSchema, structured, {
        cacheKey: `${server}\u0000${tool.name}\u0000${JSON.stringify(tool.outputSchema)}`
      }),
      (outcome): Effect.Effect<void, ValidationError> => {
        const partial = "partial" in outcome && outcome.partial.length > 0
          ? Effect.logWarning(
            `${server}: validation of ${tool.name}'s output is partial: ${outcome.partial.join(", ")} only annotate`
          )
          : Effect.void
        switch (outcome._tag) {
          case "Valid":
            return partial
          case "Invalid":
            return Effect.zipRight(
              partial,
              violation(
                `${tool.name} returned structured content that does not match its outputSchema: ${
                  outcome.errors.slice(0, 5).map((e) => `${e.path || "/"} ${e.message}`).join("; ")
                }`,
                outcome.errors.map((e) => ({ path: e.path, message: e.message }))
              )
            )
          case "UnsupportedDialect":
            return Effect.fail(unsupportedDialect(tool.name, "output", outcome))
          case "Timeout":
            return unusable(`validating its output ran past the time budget of ${outcome.budgetMs} ms`)
          case "Unusable":
            return unusable(outcome.reason)
        }
      }
    )
  }

  return { inputRefusal, checksOutput, checkOutput }
}
