/**
 * Tool search: the tools of every server ranked against a query by local scoring, no network.
 * The query's words (lowercased, split on anything not a letter or digit) are scored against a
 * tool's name (a whole word of it 3, a part 2), title (1.5) and description (1); a tool matching
 * none of the words is left out; ties go by name.
 *
 * @internal
 */
import type { ServerTool } from "../../McpClient.js"

const wordsOf = (text: string): ReadonlyArray<string> => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)

const scoreOf = (tool: ServerTool, query: ReadonlyArray<string>): number => {
  const nameWords = new Set(wordsOf(tool.name))
  const name = tool.name.toLowerCase()
  const title = (tool.title ?? "").toLowerCase()
  const description = (tool.description ?? "").toLowerCase()
  let score = 0
  for (const word of query) {
    if (nameWords.has(word)) score += 3
    else if (name.includes(word)) score += 2
    if (title.includes(word)) score += 1.5
    if (description.includes(word)) score += 1
  }
  return score
}

/** @internal */
export const search = (
  tools: ReadonlyArray<ServerTool>,
  query: string,
  limit: number
): ReadonlyArray<ServerTool & { readonly score: number }> => {
  const words = wordsOf(query)
  if (words.length === 0 || limit <= 0) return []
  return tools
    .map((tool) => Object.assign({}, tool, { score: scoreOf(tool, words) }))
    .filter((tool) => tool.score > 0)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit)
}
