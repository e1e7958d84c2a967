/**
 * What a model is shown of an MCP tool and its result, shared by the `@effect/ai` toolkit and
 * the AI SDK tools.
 *
 * @internal
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import { providerName } from "@mcp-effect/client/ToolFormats"

/** @internal */
export const blockText = (block: McpSchema.ContentBlock): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "resource":
      return "text" in block.resource
        ? block.resource.text
        : `[resource ${block.resource.uri}${mimeOf(block.resource.mimeType)}]`
    case "resource_link":
      return `[resource link ${block.name}: ${block.uri}${mimeOf(block.mimeType)}]`
    case "image":
      return `[image${mimeOf(block.mimeType)}]`
    case "audio":
      return `[audio${mimeOf(block.mimeType)}]`
  }
}

const mimeOf = (mimeType: string | undefined) => mimeType === undefined ? "" : ` (${mimeType})`

/** The text of a result: its blocks one per line, non-text blocks as a short bracketed note. @internal */
export const text = (result: McpSchema.CallToolResult): string => result.content.map(blockText).join("\n")

/**
 * What the model sees of a successful result: the structured content when there is some (the
 * text blocks then only repeat it, by the spec's advice), else the text.
 *
 * @internal
 */
export const forModel = (result: McpSchema.CallToolResult): unknown =>
  result.structuredContent !== undefined ? result.structuredContent : text(result)

/** The message of an `isError` result. @internal */
export const errorMessage = (result: McpSchema.CallToolResult): string => {
  const message = text(result)
  return message === "" ? "the tool reported an error" : message
}

/** The description a model reads: the description, else a title. @internal */
export const description = (tool: McpSchema.Tool): string | undefined =>
  tool.description ?? tool.title ?? tool.annotations?.title

/** A tool's name as the model sees it, given the tools of every server. @internal */
export type Naming = (tool: McpClient.ServerTool, tools: ReadonlyArray<McpClient.ServerTool>) => string

/**
 * The default naming: a tool's own name when one server offers it, `server_name` when several
 * servers offer the same name.
 *
 * @internal
 */
export const defaultNaming: Naming = (tool, tools) =>
  tools.some((other) => other !== tool && other.name === tool.name) ? `${tool.server}_${tool.name}` : tool.name

/**
 * The model-facing names of `tools`, in order, unique and valid for providers (`providerName`:
 * at most 64 characters of `[A-Za-z0-9_-]`, else sanitised with a hash suffix): a name the
 * naming gives twice gets `_2`, `_3`, … on its later tools.
 *
 * @internal
 */
export const names = (tools: ReadonlyArray<McpClient.ServerTool>, naming: Naming): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return tools.map((tool) => {
    const base = providerName(naming(tool, tools))
    let name = base
    for (let n = 2; taken.has(name); n++) name = providerName(`${base}_${n}`)
    taken.add(name)
    return name
  })
}
