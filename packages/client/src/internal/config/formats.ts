/**
 * Which host wrote a document, and its servers in the common shape: TOML is Codex's; JSON is
 * read with comments and trailing commas, then recognised by its keys (`context_servers`:
 * Zed, `mcp` of `local`/`remote` servers: OpenCode, a registry `server.json`) or, for Gemini
 * CLI, whose keys are Claude's, by its path (`.gemini/settings.json`).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Codex from "./codex.js"
import * as Gemini from "./gemini.js"
import * as Jsonc from "./jsonc.js"
import * as OpenCode from "./opencode.js"
import * as Registry from "./registry.js"
import type { Converted } from "./shared.js"
import * as Zed from "./zed.js"

/**
 * Parses a file's text: TOML for `.toml`, else JSON with comments.
 *
 * @internal
 */
export const parse = (path: string, text: string): Either.Either<unknown, string> =>
  /\.toml$/i.test(path)
    ? Codex.parse(text)
    : /\.mcpb$/i.test(path)
    ? Either.left(
      "an MCP bundle (a zip): load it with NodeMcpBundle.load, connectFromConfig, or the CLI's --config FILE.mcpb"
    )
    : Jsonc.parse(text)

const isGeminiPath = (path: string | undefined) => /(^|[\\/])\.gemini[\\/]settings\.json$/.test(path ?? "")

/**
 * A parsed document in the common shape (`mcpServers` or `servers`), whichever host wrote it.
 *
 * @internal
 */
export const normalize = (document: unknown, path?: string | undefined): Converted => {
  if (!Predicate.isRecord(document)) return { document, warnings: [] }
  if (document.mcp_servers !== undefined && document.mcpServers === undefined) return Codex.convert(document)
  if (Zed.recognizes(document)) return Zed.convert(document)
  if (OpenCode.recognizes(document)) return OpenCode.convert(document)
  if (Registry.recognizes(document, path)) return Registry.convert(document)
  if (isGeminiPath(path)) return Gemini.convert(document)
  return { document, warnings: [] }
}
