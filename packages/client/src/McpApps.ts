/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): what a host needs to render a tool's
 * app, and nothing of the rendering. A tool names its UI resource in `_meta.ui.resourceUri` (a
 * `ui://` URI; older servers `_meta["ui/resourceUri"]`) and who may see it (`visibility`); the
 * resource is HTML (`text/html;profile=mcp-app`) whose `_meta.ui` asks for CSP domains, sandbox
 * permissions, a dedicated origin and a border. The host builds its iframe's policy from these,
 * so every domain is checked here: one that could break out of a `Content-Security-Policy`
 * header (whitespace, `;`, `,`, quotes, control characters) is refused, never passed on.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as McpClient from "./McpClient.js"
import { InvalidResponseError } from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * The extension's name, for `extensions` (a host that renders apps declares it).
 *
 * @since 0.2.0
 * @category constants
 */
export const EXTENSION = "io.modelcontextprotocol/ui"

/**
 * The MIME type of an app's HTML.
 *
 * @since 0.2.0
 * @category constants
 */
export const MIME_TYPE = "text/html;profile=mcp-app"

/**
 * A tool's app: its UI resource and who may see the tool (`model`: the model may call it; `app`:
 * the app may; both when the server says nothing).
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolUi {
  readonly resourceUri: string
  readonly visibility: ReadonlyArray<"model" | "app">
}

/**
 * The origins an app asks to reach, by CSP directive (checked: see the module's description).
 *
 * @since 0.2.0
 * @category models
 */
export interface Csp {
  readonly connectDomains: ReadonlyArray<string>
  readonly resourceDomains: ReadonlyArray<string>
  readonly frameDomains: ReadonlyArray<string>
  readonly baseUriDomains: ReadonlyArray<string>
}

/**
 * The sandbox permissions an app asks for; the host may refuse them.
 *
 * @since 0.2.0
 * @category models
 */
export interface Permissions {
  readonly camera: boolean
  readonly microphone: boolean
  readonly geolocation: boolean
  readonly clipboardWrite: boolean
}

/**
 * An app's UI resource, as the host needs it to render it.
 *
 * @since 0.2.0
 * @category models
 */
export interface AppResource {
  readonly uri: string
  readonly mimeType: string | undefined
  readonly html: string
  readonly csp: Csp
  readonly permissions: Permissions
  /** A dedicated origin the server asks the app to be served from. */
  readonly domain: string | undefined
  readonly prefersBorder: boolean | undefined
  /** Domains the server asked for that were refused (they could break a CSP header). */
  readonly refusedDomains: number
}

const MAX_DOMAINS = 64
const MAX_DOMAIN_LENGTH = 512
// An origin or host source as CSP writes it: scheme, host (or `*.` wildcard), port, path.
const DOMAIN = /^[A-Za-z0-9*][A-Za-z0-9+.\-*:/[\]_%~@]*$/

const uiOf = (meta: unknown): Record<string, unknown> | undefined =>
  Predicate.isRecord(meta) && Predicate.isRecord(meta.ui) ? meta.ui : undefined

/**
 * The app a tool names, if any: a `ui://` resource URI.
 *
 * @since 0.2.0
 * @category getters
 */
export const toolUi = (tool: McpSchema.Tool): ToolUi | undefined => {
  const ui = uiOf(tool._meta)
  const uri = ui?.resourceUri ?? tool._meta?.["ui/resourceUri"]
  if (typeof uri !== "string" || !uri.startsWith("ui://")) return undefined
  const asked = Array.isArray(ui?.visibility) ? ui.visibility : undefined
  const visibility = asked === undefined
    ? ["model", "app"] as const
    : asked.filter((v): v is "model" | "app" => v === "model" || v === "app")
  return { resourceUri: uri, visibility }
}

/** The domains of one directive that a CSP header can carry as they are, and how many were not. */
const domainsOf = (value: unknown): { readonly kept: ReadonlyArray<string>; readonly refused: number } => {
  if (!Array.isArray(value)) return { kept: [], refused: 0 }
  const kept = value.slice(0, MAX_DOMAINS).filter((d): d is string =>
    typeof d === "string" && d.length <= MAX_DOMAIN_LENGTH && DOMAIN.test(d)
  )
  return { kept, refused: value.length - kept.length }
}

/**
 * An app's resource from a `resources/read` result: its HTML and what its `_meta.ui` asks for
 * (from the content item, else from the result). Fails when no text content has the URI.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromReadResult = (
  server: string,
  uri: string,
  result: McpSchema.ReadResourceResult
): Effect.Effect<AppResource, InvalidResponseError> => {
  const content = result.contents.find((c) => c.uri === uri && "text" in c) as
    | typeof McpSchema.TextResourceContents.Type
    | undefined
  if (content === undefined) {
    return Effect.fail(
      new InvalidResponseError({ server, method: "resources/read", message: `no text content for the app ${uri}` })
    )
  }
  const ui = uiOf(content._meta) ?? uiOf(result._meta) ?? {}
  const csp = Predicate.isRecord(ui.csp) ? ui.csp : {}
  const directives = [csp.connectDomains, csp.resourceDomains, csp.frameDomains, csp.baseUriDomains].map(domainsOf)
  const asked = Predicate.isRecord(ui.permissions) ? ui.permissions : {}
  const domain = typeof ui.domain === "string" ? domainsOf([ui.domain]) : { kept: [], refused: 0 }
  return Effect.succeed({
    uri,
    mimeType: content.mimeType,
    html: content.text,
    csp: {
      connectDomains: directives[0]!.kept,
      resourceDomains: directives[1]!.kept,
      frameDomains: directives[2]!.kept,
      baseUriDomains: directives[3]!.kept
    },
    permissions: {
      camera: asked.camera !== undefined && asked.camera !== false,
      microphone: asked.microphone !== undefined && asked.microphone !== false,
      geolocation: asked.geolocation !== undefined && asked.geolocation !== false,
      clipboardWrite: asked.clipboardWrite !== undefined && asked.clipboardWrite !== false
    },
    domain: domain.kept[0],
    prefersBorder: typeof ui.prefersBorder === "boolean" ? ui.prefersBorder : undefined,
    refusedDomains: directives.reduce((n, d) => n + d.refused, domain.refused)
  })
}

/**
 * Reads an app's resource through the client (`server` as for `readResource`).
 *
 * @since 0.2.0
 * @category requests
 */
export const read = (
  uri: string,
  options?: McpClient.CallOptions
) =>
  Effect.flatMap(McpClient.McpClient, (client) =>
    Effect.flatMap(
      client.readResource(uri, options),
      (result) =>
        fromReadResult(
          options?.server ?? (client.servers.length === 1 ? client.servers[0]!.name : "(routed by URI)"),
          uri,
          result
        )
    ))
