/**
 * The AI SDK bridge's deferred mode: every MCP tool is in the `ToolSet`, but `prepareStep`
 * makes only the search tool and the tools searches loaded active, so the model is sent those
 * definitions alone.
 *
 * @internal
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import { dynamicTool, jsonSchema } from "ai"
import type { JSONSchema7, ToolSet } from "ai"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Runtime from "effect/Runtime"
import type * as AiSdkTools from "../AiSdkTools.js"
import * as Internal from "./aiSdkTools.js"
import * as Call from "./call.js"
import * as Deferred from "./deferred.js"

type Search = (query: string, limit: number) => Promise<ReadonlyArray<McpClient.ServerTool>>

const deferredOf = (
  listed: ReadonlyArray<McpClient.ServerTool>,
  search: Search,
  call: Parameters<typeof Internal.fromTools>[1],
  options: AiSdkTools.DeferredOptions
): AiSdkTools.DeferredTools => {
  const searchName = options.searchToolName ?? Deferred.SEARCH_TOOL
  const byName = Deferred.named(listed, options)
  const loaded = new Map<string, McpClient.ServerTool>()
  const searchTool = dynamicTool({
    description: Deferred.SEARCH_DESCRIPTION,
    inputSchema: jsonSchema(Deferred.searchInputSchema as JSONSchema7),
    execute: async (input) => {
      const record = Predicate.isRecord(input) ? input : {}
      const limit = Deferred.limitOf(record)
      const matches = await search(Deferred.queryOf(record), Deferred.searchLimit(options, limit))
      return Deferred.load(matches, byName, limit, loaded, searchName)
    }
  })
  // The search tool first (as the model is shown the tools), and never shadowed by an MCP tool.
  const tools: ToolSet = Object.assign({ [searchName]: searchTool }, Internal.fromTools(listed, call, options), {
    [searchName]: searchTool
  })
  const activeTools = () => [searchName, ...loaded.keys()]
  return {
    tools,
    activeTools,
    prepareStep: () => ({ activeTools: activeTools() }),
    loaded: () => [...loaded.keys()]
  }
}

/** @internal */
export const toAiSdkToolsDeferred = async (
  client: AiSdkTools.SearchablePromiseClient,
  options: AiSdkTools.DeferredOptions = {}
): Promise<AiSdkTools.DeferredTools> => {
  const listed = await client.listTools({ server: options.server })
  return deferredOf(
    listed,
    (query, limit) => client.searchTools(query, { server: options.server, limit }),
    (source, args, signal) => client.callTool(source.name, args, { ...Call.callOptions(source, options), signal }),
    options
  )
}

/** @internal */
export const deferred = (options: AiSdkTools.DeferredOptions = {}) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const run = Runtime.runPromiseExit(yield* Effect.runtime<never>())
    const listed = yield* client.listTools({ server: options.server })
    return deferredOf(
      listed,
      (query, limit) =>
        run(client.searchTools(query, { server: options.server, limit })).then((exit) => Internal.settled(exit)),
      Internal.callsThrough(run, client, options),
      options
    )
  })
