/**
 * The client's tool lookups under the names it shows (`toolNames.ts`): the tool lists, one
 * tool by name, the server and own name a call by name is sent with, and pages of tools.
 * Without naming, lists are the servers' own and a call whose server is known needs no lookup.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as McpClient from "../../McpClient.js"
import { AmbiguousToolError, ToolNotFoundError } from "../../McpError.js"
import type { ConnectError, ServerNotFoundError, ToolNameCollisionError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type { ServerConnection } from "../../ServerConnection.js"
import * as ProviderName from "../providerName.js"
import type { Call } from "./routes.js"
import * as ToolNames from "./toolNames.js"

/** How a server's tools are read (`listTools()` unless the client call passes its options). @internal */
export type List = (connection: ServerConnection) => Effect.Effect<ReadonlyArray<McpSchema.Tool>, ConnectError>

/** What the lookups use of the router. @internal */
export interface Needs {
  readonly servers: ReadonlyArray<ServerConnection>
  readonly server: (name: string) => Effect.Effect<ServerConnection, ServerNotFoundError>
  /** The tools of `selected` (or every server), tagged with their server, in the servers' order. */
  readonly listed: (
    selected: string | undefined,
    list?: List
  ) => Effect.Effect<ReadonlyArray<McpClient.ServerTool>, ConnectError | ServerNotFoundError>
  readonly page: (
    selected: string | undefined,
    call: Call
  ) => Effect.Effect<{ readonly items: ReadonlyArray<object>; readonly nextCursor: unknown }, unknown>
}

type LookupError = ConnectError | ServerNotFoundError | ToolNameCollisionError

/** A call's server and the tool's name on it. @internal */
export interface Target {
  readonly connection: ServerConnection
  readonly name: string
}

/** @internal */
export const make = (needs: Needs, naming: ToolNames.Settings | undefined) => {
  const { server, servers } = needs

  // Under a collision policy a server's shown names depend on the other servers' tools: the
  // table is then built over every server.
  const tableOf = (selected: string | undefined, list?: List) =>
    Effect.flatMap(
      needs.listed(naming?.collisions === undefined ? selected : undefined, list),
      (tools) => ToolNames.build(tools, naming)
    )

  const listTools = (
    selected: string | undefined,
    list?: List
  ): Effect.Effect<ReadonlyArray<McpClient.ServerTool>, LookupError> =>
    naming === undefined ?
      needs.listed(selected, list) :
      Effect.map(tableOf(selected, list), (table) =>
        selected === undefined ? table.tools : table.tools.filter((tool) => tool.server === selected))

  const findTool: McpClient.Service["findTool"] = (name, findOptions) =>
    Effect.flatMap(tableOf(findOptions?.server), (table): Effect.Effect<
      McpClient.ServerTool,
      ToolNotFoundError | AmbiguousToolError
    > => {
      const matches = table.lookup(name, findOptions?.server)
      if (matches.length === 1) return Effect.succeed(matches[0]!)
      if (matches.length === 0) return Effect.fail(new ToolNotFoundError({ name, server: findOptions?.server }))
      return Effect.fail(new AmbiguousToolError({ name, servers: matches.map((t) => t.server) }))
    })

  const sendAs = (name: string) => (connection: ServerConnection): Target => ({ connection, name })

  // Without naming, a name that cannot be a provider name needs no lookup when the server is known.
  const toolTarget = (
    name: string,
    selected: string | undefined
  ): Effect.Effect<Target, LookupError | ToolNotFoundError | AmbiguousToolError> => {
    if (naming === undefined && !ProviderName.mayBeMapped(name)) {
      if (selected !== undefined) return Effect.map(server(selected), sendAs(name))
      if (servers.length === 1) return Effect.succeed(sendAs(name)(servers[0]!))
    }
    return Effect.flatMap(tableOf(selected), (table): ReturnType<typeof toolTarget> => {
      const matches = table.lookup(name, selected)
      if (matches.length === 1) {
        return Effect.map(server(matches[0]!.server), sendAs(matches[0]!.originalName ?? matches[0]!.name))
      }
      if (matches.length > 1) {
        return Effect.fail(new AmbiguousToolError({ name, servers: matches.map((t) => t.server) }))
      }
      // A name not shown goes as it is to the server named, or the only one (a server may
      // answer for a tool it does not list).
      if (selected !== undefined) return Effect.map(server(selected), sendAs(name))
      if (servers.length === 1) return Effect.succeed(sendAs(name)(servers[0]!))
      return Effect.fail(new ToolNotFoundError({ name }))
    })
  }

  const toolsPage = (selected: string | undefined, call: Call) =>
    naming === undefined ?
      needs.page(selected, call) :
      Effect.flatMap(needs.page(selected, call), ({ items, nextCursor }) =>
        Effect.map(tableOf(selected), (table) => ({
          items: (items as ReadonlyArray<McpClient.ServerTool>).flatMap((tool) => table.shownOf(tool) ?? []),
          nextCursor
        })))

  return { listTools, findTool, toolTarget, toolsPage }
}
