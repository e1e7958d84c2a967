/**
 * Schemas of the MCP entities the client reads from servers (revisions 2024-11-05 … 2026-07-28).
 *
 * Every schema keeps what it does not know: decoding uses `onExcessProperty: "preserve"`, so
 * unknown fields and `_meta` pass through untouched. Absent optional fields stay absent; the
 * accessors at the end of this module apply the spec's defaults.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Protocol revisions the client speaks with the `initialize` handshake, newest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type LegacyProtocolVersion = typeof LEGACY_PROTOCOL_VERSIONS[number]

/**
 * Open-ended JSON object (`_meta`, arguments, schemas).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * @since 0.1.0
 * @category models
 */
export type JsonObject = typeof JsonObject.Type

/**
 * A JSON-RPC id: strings and numbers are kept exactly as the peer sent them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestId = Schema.Union(Schema.String, Schema.Number)

/**
 * @since 0.1.0
 * @category models
 */
export type RequestId = typeof RequestId.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Icon = Schema.Struct({
  src: Schema.String,
  mimeType: Schema.optional(Schema.String),
  sizes: Schema.optional(Schema.Array(Schema.String)),
  theme: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Icon = typeof Icon.Type

/**
 * Name and version of a client or server, with the optional display fields of 2025-11-25.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Implementation = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  websiteUrl: Schema.optional(Schema.String),
  icons: Schema.optional(Schema.Array(Icon))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Implementation = typeof Implementation.Type

/**
 * What a server declares it can do. Every capability is an open object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerCapabilities = Schema.Struct({
  experimental: Schema.optional(JsonObject),
  logging: Schema.optional(JsonObject),
  completions: Schema.optional(JsonObject),
  prompts: Schema.optional(Schema.Struct({ listChanged: Schema.optional(Schema.Boolean) })),
  resources: Schema.optional(Schema.Struct({
    subscribe: Schema.optional(Schema.Boolean),
    listChanged: Schema.optional(Schema.Boolean)
  })),
  tools: Schema.optional(Schema.Struct({ listChanged: Schema.optional(Schema.Boolean) })),
  tasks: Schema.optional(JsonObject),
  extensions: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ServerCapabilities = typeof ServerCapabilities.Type

/**
 * What the client declares; derived from the handlers the host provided.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCapabilities {
  readonly experimental?: JsonObject | undefined
  readonly roots?: { readonly listChanged?: boolean | undefined } | undefined
  readonly sampling?: JsonObject | undefined
  readonly elicitation?: JsonObject | undefined
  readonly extensions?: JsonObject | undefined
}

/**
 * @since 0.1.0
 * @category schemas
 */
export const InitializeResult = Schema.Struct({
  protocolVersion: Schema.String,
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: Schema.optional(Schema.String),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type InitializeResult = typeof InitializeResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ToolAnnotations = Schema.Struct({
  title: Schema.optional(Schema.String),
  readOnlyHint: Schema.optional(Schema.Boolean),
  destructiveHint: Schema.optional(Schema.Boolean),
  idempotentHint: Schema.optional(Schema.Boolean),
  openWorldHint: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Tool = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: JsonObject,
  outputSchema: Schema.optional(JsonObject),
  annotations: Schema.optional(ToolAnnotations),
  icons: Schema.optional(Schema.Array(Icon)),
  execution: Schema.optional(JsonObject),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Tool = typeof Tool.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptArgument = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  required: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const Prompt = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  arguments: Schema.optional(Schema.Array(PromptArgument)),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Prompt = typeof Prompt.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Annotations = Schema.Struct({
  audience: Schema.optional(Schema.Array(Schema.String)),
  priority: Schema.optional(Schema.Number),
  lastModified: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const Resource = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  size: Schema.optional(Schema.Number),
  annotations: Schema.optional(Annotations),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Resource = typeof Resource.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTemplate = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  annotations: Schema.optional(Annotations),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  text: Schema.String,
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const BlobResourceContents = Schema.Struct({
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  blob: Schema.String,
  _meta: Schema.optional(JsonObject)
})

/**
 * Contents of a resource: `text` or base64 `blob`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceContents = Schema.Union(TextResourceContents, BlobResourceContents)

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  annotations: Schema.optional(Annotations),
  _meta: Schema.optional(JsonObject)
})

/**
 * A link to a resource inside tool results and prompt messages.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  size: Schema.optional(Schema.Number),
  annotations: Schema.optional(Annotations),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Schema.optional(JsonObject)
})

/**
 * Every content block of tool results and prompt messages.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union(TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink)

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = typeof ContentBlock.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult = Schema.Struct({
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optional(Schema.Unknown),
  isError: Schema.optional(Schema.Boolean),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptMessage = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: ContentBlock
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptResult = Schema.Struct({
  description: Schema.optional(Schema.String),
  messages: Schema.Array(PromptMessage),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceResult = Schema.Struct({
  contents: Schema.Array(ResourceContents),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CompleteResult = Schema.Struct({
  completion: Schema.Struct({
    values: Schema.Array(Schema.String),
    total: Schema.optional(Schema.Number),
    hasMore: Schema.optional(Schema.Boolean)
  }),
  _meta: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type CompleteResult = typeof CompleteResult.Type

/**
 * The reference a completion request is about: a prompt or a resource template.
 *
 * @since 0.1.0
 * @category models
 */
export type CompletionReference =
  | { readonly type: "ref/prompt"; readonly name: string }
  | { readonly type: "ref/resource"; readonly uri: string }

/**
 * @since 0.1.0
 * @category models
 */
export interface CompleteRequest {
  readonly ref: CompletionReference
  readonly argument: { readonly name: string; readonly value: string }
  readonly context?: { readonly arguments?: Record<string, string> | undefined } | undefined
}

/**
 * Severity levels of `notifications/message` (RFC 5424), least severe first.
 *
 * @since 0.1.0
 * @category constants
 */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type LoggingLevel = typeof LOGGING_LEVELS[number]

/**
 * A page of a paginated list: the items under `key` and an optional `nextCursor`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const page = <K extends string, S extends Schema.Schema.Any>(key: K, item: S) =>
  Schema.Struct(
    {
      [key]: Schema.Array(item),
      nextCursor: Schema.optional(Schema.String)
    } as { [P in K]: Schema.Array$<S> } & { nextCursor: Schema.optional<typeof Schema.String> }
  )

/**
 * Parse options used for every server payload: keep unknown fields.
 *
 * @since 0.1.0
 * @category constants
 */
export const parseOptions = { onExcessProperty: "preserve", errors: "first" } as const

/**
 * `readOnlyHint` with the spec default (`false`) applied.
 *
 * @since 0.1.0
 * @category accessors
 */
export const isReadOnly = (tool: Tool): boolean => tool.annotations?.readOnlyHint ?? false

/**
 * `destructiveHint` with the spec default (`true`) applied.
 *
 * @since 0.1.0
 * @category accessors
 */
export const isDestructive = (tool: Tool): boolean => tool.annotations?.destructiveHint ?? true

/**
 * `idempotentHint` with the spec default (`false`) applied.
 *
 * @since 0.1.0
 * @category accessors
 */
export const isIdempotent = (tool: Tool): boolean => tool.annotations?.idempotentHint ?? false

/**
 * `openWorldHint` with the spec default (`true`) applied.
 *
 * @since 0.1.0
 * @category accessors
 */
export const isOpenWorld = (tool: Tool): boolean => tool.annotations?.openWorldHint ?? true
