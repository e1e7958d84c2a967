/** @internal */
import type * as McpClient from "@mcp-effect/client/McpClient"
import * as McpSchema from "@mcp-effect/client/McpSchema"
import type { Negotiated } from "@mcp-effect/client/Protocol"
import type { Progress } from "@mcp-effect/client/RpcPeer"
import * as Predicate from "effect/Predicate"

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/**
 * Server text goes to a terminal: control characters (escape sequences included), line
 * separators, bidirectional-text controls and invisible format marks are shown escaped so a
 * server cannot repaint the screen, forge lines or reorder what is shown; newlines and tabs stay.
 *
 * @internal
 */
export const clean = (text: string): string =>
  text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** @internal */
export const indent = (text: string, prefix = "  "): string => text.split("\n").map((line) => prefix + line).join("\n")

/** @internal */
export const json = (value: unknown): string => {
  const compact = JSON.stringify(value) ?? "undefined"
  return compact.length <= 100 ? compact : JSON.stringify(value, null, 2)
}

/** @internal */
export const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`

const typeName = (schema: unknown): string => {
  if (!Predicate.isRecord(schema)) return "any"
  if (typeof schema.type === "string") {
    if (schema.type === "array" && Predicate.isRecord(schema.items) && typeof schema.items.type === "string") {
      return `${schema.items.type}[]`
    }
    return schema.type
  }
  if (Array.isArray(schema.type)) return schema.type.filter((t) => typeof t === "string").join(" | ")
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ")
  return "any"
}

/**
 * `name(a: number, b?: string)` from a tool's input schema.
 *
 * @internal
 */
export const signature = (tool: McpSchema.Tool): string => {
  const properties = Predicate.isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {}
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : []
  const params = Object.entries(properties).map(([name, schema]) =>
    `${name}${required.includes(name) ? "" : "?"}: ${typeName(schema)}`
  )
  return clean(`${tool.name}(${params.join(", ")})`)
}

/**
 * The annotation hints with the spec's defaults applied (`destructive` only means something
 * for tools that are not read-only).
 *
 * @internal
 */
export const hints = (tool: McpSchema.Tool): string => {
  const words: Array<string> = []
  if (McpSchema.isReadOnly(tool)) words.push("read-only")
  else words.push(McpSchema.isDestructive(tool) ? "destructive" : "non-destructive")
  if (McpSchema.isIdempotent(tool)) words.push("idempotent")
  words.push(McpSchema.isOpenWorld(tool) ? "open-world" : "closed-world")
  return words.join(", ")
}

const where = (server: string, showServer: boolean) => (showServer ? ` [${clean(server)}]` : "")

/** @internal */
export const tool = (t: McpClient.ServerTool, showServer: boolean): string => {
  const lines = [`${signature(t)}${where(t.server, showServer)}`]
  const title = t.title ?? t.annotations?.title
  if (title !== undefined) lines.push(`  title: ${clean(title)}`)
  if (t.description !== undefined) lines.push(indent(clean(t.description)))
  lines.push(`  hints: ${hints(t)}`)
  if (t.outputSchema !== undefined) lines.push(`  output: ${json(t.outputSchema)}`)
  return lines.join("\n")
}

/** @internal */
export const prompt = (p: McpClient.ServerPrompt, showServer: boolean): string => {
  const args = (p.arguments ?? []).map((a) => `${a.name}${a.required === true ? "" : "?"}`)
  const lines = [clean(`${p.name}(${args.join(", ")})`) + where(p.server, showServer)]
  if (p.title !== undefined) lines.push(`  title: ${clean(p.title)}`)
  if (p.description !== undefined) lines.push(indent(clean(p.description)))
  for (const a of p.arguments ?? []) {
    if (a.description !== undefined) lines.push(`  ${clean(a.name)}: ${clean(a.description)}`)
  }
  return lines.join("\n")
}

/** @internal */
export const resource = (r: McpClient.ServerResource, showServer: boolean): string => {
  const details = [r.mimeType, r.size === undefined ? undefined : plural(r.size, "byte")].filter((d) => d !== undefined)
  const lines = [
    `${clean(r.uri)} — ${clean(r.title ?? r.name)}${details.length > 0 ? ` (${clean(details.join(", "))})` : ""}${
      where(r.server, showServer)
    }`
  ]
  if (r.description !== undefined) lines.push(indent(clean(r.description)))
  return lines.join("\n")
}

/** @internal */
export const resourceTemplate = (r: McpClient.ServerResourceTemplate, showServer: boolean): string =>
  `${clean(r.uriTemplate)} — ${clean(r.title ?? r.name)}${r.mimeType !== undefined ? ` (${clean(r.mimeType)})` : ""}${
    where(r.server, showServer)
  }`

/** @internal */
export const resourceContents = (contents: McpSchema.ResourceContents): string =>
  "text" in contents
    ? clean(contents.text)
    : `[blob ${clean(contents.mimeType ?? "application/octet-stream")}, ${contents.blob.length} bytes base64]`

/** @internal */
export const content = (block: McpSchema.ContentBlock): string => {
  switch (block.type) {
    case "text":
      return clean(block.text)
    case "image":
    case "audio":
      return `[${block.type} ${clean(block.mimeType)}, ${block.data.length} bytes base64]`
    case "resource":
      return "text" in block.resource
        ? `[resource ${clean(block.resource.uri)}]\n${clean(block.resource.text)}`
        : `[resource ${clean(block.resource.uri)} ${
          clean(block.resource.mimeType ?? "application/octet-stream")
        }, ${block.resource.blob.length} bytes base64]`
    case "resource_link":
      return `[link ${clean(block.uri)}]`
  }
}

/** The same JSON value whatever the order of its keys. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
      : v)

/** Whether a text block is the structured content serialized, as the spec asks tools to add. */
const restates = (block: McpSchema.ContentBlock, structured: unknown): boolean => {
  if (block.type !== "text") return false
  try {
    return canonical(JSON.parse(block.text)) === canonical(structured)
  } catch {
    return false
  }
}

/**
 * A tool result as text: its content blocks, then its structured content unless a text block
 * already says it (a tool returning structured content usually serializes it into one).
 *
 * @internal
 */
export const callResult = (result: McpSchema.CallToolResult): string => {
  const lines = result.content.map(content)
  const structured = result.structuredContent
  if (structured !== undefined && !result.content.some((block) => restates(block, structured))) {
    lines.push(`structuredContent: ${json(structured)}`)
  }
  if (result.isError === true) lines.push("(the tool reported an error: isError)")
  return lines.length === 0 ? "(no content)" : lines.join("\n")
}

/** @internal */
export const promptResult = (result: McpSchema.GetPromptResult): string => {
  const lines: Array<string> = []
  if (result.description !== undefined) lines.push(`description: ${clean(result.description)}`)
  for (const message of result.messages) {
    lines.push(`${message.role}: ${content(message.content)}`)
  }
  return lines.join("\n")
}

/** @internal */
export const progress = (p: Progress): string =>
  `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${
    p.message !== undefined ? `: ${clean(p.message)}` : ""
  }`

/** @internal */
export const negotiated = (name: string, kind: string, n: Negotiated | undefined): string => {
  if (n === undefined) return `server ${clean(name)} (${kind}): not connected`
  const info = n.serverInfo
  const lines = [
    `server ${clean(name)}: ${clean(info.name)} ${clean(info.version)}${
      info.title !== undefined ? ` — ${clean(info.title)}` : ""
    }`,
    `  protocol ${clean(n.protocolVersion)} (${n.era} era), transport ${kind}`,
    `  capabilities: ${Object.keys(n.capabilities).map(clean).join(", ") || "none"}`
  ]
  if (n.instructions !== undefined) lines.push(`  instructions: ${clean(n.instructions)}`)
  return lines.join("\n")
}

/** @internal One notification of a subscription: its method, and its params as JSON. */
export const notification = (n: { readonly method: string; readonly params: Record<string, unknown> | undefined }) => {
  const params = n.params === undefined
    ? {}
    : Object.fromEntries(Object.entries(n.params).filter(([key]) => key !== "_meta"))
  return Object.keys(params).length === 0 ? clean(n.method) : `${clean(n.method)} ${json(params)}`
}
