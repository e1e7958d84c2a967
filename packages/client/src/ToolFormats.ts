/**
 * MCP tools in the shapes LLM APIs expect, so a host can hand them to a model directly:
 * OpenAI (chat completions `tools`), Anthropic (messages `tools`) and Google (Gemini
 * `functionDeclarations`).
 *
 * Names are made valid for every provider (at most 64 characters of `[A-Za-z0-9_-]`, a letter
 * or `_` first) by {@link providerName}: a valid name is kept, any other is sanitised and given
 * a short hash of the original, the same in every run. The model answers with that name:
 * `McpClient.callTool` (and the facade's) takes it as it takes the shown name, and
 * {@link providerNames} maps it back to the tool for a host that routes calls itself.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/providerName.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface OpenAITool {
  readonly type: "function"
  readonly function: {
    readonly name: string
    readonly description?: string
    readonly parameters: Record<string, unknown>
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AnthropicTool {
  readonly name: string
  readonly description?: string
  readonly input_schema: Record<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface GoogleFunctionDeclaration {
  readonly name: string
  readonly description?: string
  readonly parameters: Record<string, unknown>
}

const describe = (tool: McpSchema.Tool): { readonly description?: string } => {
  const text = tool.description ?? tool.title ?? tool.annotations?.title
  return text === undefined ? {} : { description: text }
}

/** An object schema with `properties` (LLM APIs reject a bare `{}` or a non-object root). */
const objectSchema = (schema: Record<string, unknown>): Record<string, unknown> =>
  schema.type === "object" ? { properties: {}, ...schema } : { type: "object", properties: {}, ...schema }

/** Keywords Gemini's OpenAPI subset does not accept. */
const GOOGLE_UNSUPPORTED = new Set([
  "$schema",
  "$id",
  "$defs",
  "definitions",
  "additionalProperties",
  "$ref",
  "$comment"
])

const forGoogle = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(forGoogle)
  if (typeof schema !== "object" || schema === null) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (GOOGLE_UNSUPPORTED.has(key)) continue
    out[key] = key === "properties" && typeof value === "object" && value !== null
      ? Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, forGoogle(inner)]))
      : forGoogle(value)
  }
  return out
}

/**
 * A tool name as LLM providers accept it: `name` itself when it is valid (at most 64
 * characters of `[A-Za-z0-9_-]`, a letter or `_` first), else `name` sanitised (other
 * characters become `_`), cut to fit, with `_` and 8 hex digits of a hash of `name`:
 * `"files.read all"` → `"files_read_all_" + hash`. Stable across runs and runtimes. Added in 0.2.0.
 *
 * @since 0.2.0
 * @category names
 */
export const providerName: (name: string) => string = internal.providerName

const namesOf = (tools: ReadonlyArray<McpSchema.Tool>) => internal.uniqueProviderNames(tools.map((tool) => tool.name))

/**
 * The tool behind each name the conversions give `tools` ({@link providerName}, made unique in
 * the list's order): a host routing a model's tool call itself finds the tool (and, for a
 * client's list, its `server` and `originalName`) here. Added in 0.2.0.
 *
 * @since 0.2.0
 * @category names
 */
export const providerNames = <T extends McpSchema.Tool>(tools: ReadonlyArray<T>): ReadonlyMap<string, T> => {
  const names = namesOf(tools)
  return new Map(tools.map((tool, i) => [names[i]!, tool]))
}

/**
 * @since 0.1.0
 * @category conversions
 */
export const toOpenAI = (tools: ReadonlyArray<McpSchema.Tool>): Array<OpenAITool> => {
  const names = namesOf(tools)
  return tools.map((tool, i) => ({
    type: "function",
    function: { name: names[i]!, ...describe(tool), parameters: objectSchema(tool.inputSchema) }
  }))
}

/**
 * @since 0.1.0
 * @category conversions
 */
export const toAnthropic = (tools: ReadonlyArray<McpSchema.Tool>): Array<AnthropicTool> => {
  const names = namesOf(tools)
  return tools.map((tool, i) => ({ name: names[i]!, ...describe(tool), input_schema: objectSchema(tool.inputSchema) }))
}

/**
 * @since 0.1.0
 * @category conversions
 */
export const toGoogle = (tools: ReadonlyArray<McpSchema.Tool>): Array<GoogleFunctionDeclaration> => {
  const names = namesOf(tools)
  return tools.map((tool, i) => ({
    name: names[i]!,
    ...describe(tool),
    parameters: forGoogle(objectSchema(tool.inputSchema)) as Record<string, unknown>
  }))
}
