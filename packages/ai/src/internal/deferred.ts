/**
 * The deferred mode both bridges share: the model is given one search tool; each search ranks
 * the tools of every server (`McpClient.searchTools`, local scoring) and loads the matches,
 * which the bridge then offers from the model's next step on, under the names the full toolkit
 * would give them.
 *
 * @internal
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import * as ToolOutput from "./toolOutput.js"

/** @internal */
export const SEARCH_TOOL = "search_tools"

/** Matches a search returns unless the model asks for another number. @internal */
export const DEFAULT_LIMIT = 5

/** The most matches one search returns. @internal */
export const MAX_LIMIT = 20

/** @internal */
export const SEARCH_DESCRIPTION =
  "Finds tools by what they do (words of their names and descriptions). The tools found can be " +
  "called from your next step, by the names this search returns. Search again for other tools."

/** The search tool's input, as JSON Schema. @internal */
export const searchInputSchema: Record<string, unknown> = {
  type: "object",
  properties: {
    query: { type: "string", description: "What the tool should do, in a few words" },
    limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: `How many tools (default ${DEFAULT_LIMIT})` }
  },
  required: ["query"],
  additionalProperties: false
}

/** The options that decide which tools a search sees, and their names. @internal */
export interface Selection {
  readonly server?: string | undefined
  readonly filter?: ((tool: McpClient.ServerTool) => boolean) | undefined
  readonly name?: ToolOutput.Naming | undefined
}

/** One tool a search found, as the model is told. @internal */
export interface Found {
  readonly name: string
  readonly server: string
  readonly description?: string | undefined
}

/** What the model is told of a search. @internal */
export interface SearchOutput {
  readonly tools: ReadonlyArray<Found>
  readonly note: string
}

const keyOf = (tool: { readonly server: string; readonly name: string }) => `${tool.server}\u0000${tool.name}`

/** The tools `selection` keeps of `listed`, by model name, the names the full toolkit gives them. @internal */
export const named = (
  listed: ReadonlyArray<McpClient.ServerTool>,
  selection: Selection
): ReadonlyMap<string, McpClient.ServerTool> => {
  const sources = selection.filter === undefined ? listed : listed.filter(selection.filter)
  const names = ToolOutput.names(sources, selection.name ?? ToolOutput.defaultNaming)
  return new Map(sources.map((source, i) => [names[i]!, source]))
}

/** The bounded number of matches the model asked for. @internal */
export const limitOf = (input: Record<string, unknown>): number => {
  const limit = input.limit
  return typeof limit === "number" && Number.isFinite(limit)
    ? Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)))
    : DEFAULT_LIMIT
}

/** The query of the model's input (`""` when it gave none: nothing is found). @internal */
export const queryOf = (input: Record<string, unknown>): string => typeof input.query === "string" ? input.query : ""

/**
 * The matches of a search (best first), among the tools `byName` offers, at most `limit`; each
 * is added to `loaded` under its model name. A tool whose name is the search tool's (`reserved`)
 * is never loaded: the search tool keeps its name.
 *
 * @internal
 */
export const load = (
  matches: ReadonlyArray<McpClient.ServerTool>,
  byName: ReadonlyMap<string, McpClient.ServerTool>,
  limit: number,
  loaded: Map<string, McpClient.ServerTool>,
  reserved: string
): SearchOutput => {
  const nameOf = new Map<string, string>()
  for (const [name, source] of byName) nameOf.set(keyOf(source), name)
  const found: Array<Found> = []
  for (const match of matches) {
    if (found.length >= limit) break
    const name = nameOf.get(keyOf(match))
    if (name === undefined || name === reserved) continue
    loaded.set(name, byName.get(name)!)
    const description = ToolOutput.description(match)
    found.push({ name, server: match.server, ...(description === undefined ? {} : { description }) })
  }
  return {
    tools: found,
    note: found.length === 0
      ? "No tool matches; try other words."
      : "These tools can be called from your next step."
  }
}

/** How many matches to ask the client for, so that a filter still leaves `limit`. @internal */
export const searchLimit = (selection: Selection, limit: number): number =>
  selection.filter === undefined ? limit : Number.MAX_SAFE_INTEGER
