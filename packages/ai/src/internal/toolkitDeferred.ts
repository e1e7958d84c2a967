/**
 * The `@effect/ai` bridge's deferred mode: a toolkit that grows. `toolkit` is read at each
 * `generateText` (an `@effect/ai` toolkit is fixed for one call): the search tool, and the tools
 * earlier searches loaded.
 *
 * @internal
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as McpToolkit from "../McpToolkit.js"
import * as Call from "./call.js"
import * as Deferred from "./deferred.js"
import { tool } from "./mcpToolkit.js"

/** What the model is told of a search. @internal */
export const SearchOutput: Schema.Schema<McpToolkit.SearchOutput> = Schema.Struct({
  tools: Schema.Array(Schema.Struct({
    name: Schema.String,
    server: Schema.String,
    description: Schema.optional(Schema.String)
  })),
  note: Schema.String
})

/** The search tool's parameters; the model is given `Deferred.searchInputSchema`. @internal */
export const SearchParameters: McpToolkit.SearchParameters = Schema.Struct({
  query: Schema.String,
  limit: Schema.optional(Schema.Number)
})

/** The search tool named `name`. @internal */
export const searchTool = (name: string): McpToolkit.SearchTool =>
  Tool.make(name, { description: Deferred.SEARCH_DESCRIPTION, success: SearchOutput })
    .setParameters(SearchParameters.annotations({ jsonSchema: Deferred.searchInputSchema }))

/** @internal */
export const deferred = (options: McpToolkit.DeferredOptions = {}) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const searchName = options.searchToolName ?? Deferred.SEARCH_TOOL
    const search = searchTool(searchName)
    const loaded = new Map<string, McpClient.ServerTool>()

    const searchHandler = (params: { readonly query: string; readonly limit?: number | undefined }) => {
      const limit = Deferred.limitOf(params)
      return Effect.map(
        Effect.all([
          client.listTools({ server: options.server }),
          client.searchTools(params.query, { server: options.server, limit: Deferred.searchLimit(options, limit) })
        ]),
        ([listed, matches]) => Deferred.load(matches, Deferred.named(listed, options), limit, loaded, searchName)
      ).pipe(
        // A server that cannot list its tools leaves the conversation going: the model is told.
        Effect.catchAll((error) => Effect.succeed({ tools: [], note: `The search failed: ${error.message}` }))
      )
    }

    const toolkit = Effect.suspend(() => {
      const entries = [...loaded]
      const made = Toolkit.make(
        search,
        ...entries.map(([name, source]) => tool(source, name))
      ) as unknown as Toolkit.Toolkit<
        McpToolkit.DeferredToolset
      >
      const handlers: Record<string, (params: never) => Effect.Effect<unknown, unknown>> = {
        [searchName]: searchHandler as (params: never) => Effect.Effect<unknown>
      }
      for (const [name, source] of entries) {
        handlers[name] = Call.call(client, source, options) as (params: never) => Effect.Effect<unknown, unknown>
      }
      return Effect.flatMap(
        made.toContext(handlers as unknown as Toolkit.HandlersFrom<McpToolkit.DeferredToolset>),
        (context) => Effect.provide(made, context)
      )
    })

    return { toolkit, loaded: () => [...loaded.keys()] } satisfies McpToolkit.Deferred
  })
