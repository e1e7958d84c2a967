/**
 * MCP tools in the shapes LLM APIs expect, so a host can hand them to a model directly:
 * OpenAI (chat completions `tools`), Anthropic (messages `tools`) and Google (Gemini
 * `functionDeclarations`).
 *
 * @since 0.1.0
 */
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
 * @since 0.1.0
 * @category conversions
 */
export const toOpenAI = (tools: ReadonlyArray<McpSchema.Tool>): Array<OpenAITool> =>
  tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, ...describe(tool), parameters: objectSchema(tool.inputSchema) }
  }))

/**
 * @since 0.1.0
 * @category conversions
 */
export const toAnthropic = (tools: ReadonlyArray<McpSchema.Tool>): Array<AnthropicTool> =>
  tools.map((tool) => ({ name: tool.name, ...describe(tool), input_schema: objectSchema(tool.inputSchema) }))

/**
 * @since 0.1.0
 * @category conversions
 */
export const toGoogle = (tools: ReadonlyArray<McpSchema.Tool>): Array<GoogleFunctionDeclaration> =>
  tools.map((tool) => ({
    name: tool.name,
    ...describe(tool),
    parameters: forGoogle(objectSchema(tool.inputSchema)) as Record<string, unknown>
  }))
