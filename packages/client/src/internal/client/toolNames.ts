/**
 * The names the client shows tools under: each server's `toolPrefix` and `toolNames` (a rename
 * map), then the client's `toolCollisions` policy across servers. A table built from the
 * servers' lists keeps, for every shown name, the server and the tool's own name, so a call by
 * the shown name (or by its provider-safe form, see `providerName.ts`) reaches the right
 * server with the original name.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as McpClient from "../../McpClient.js"
import { ToolNameCollisionError } from "../../McpError.js"
import type { ServerConfig } from "../../ServerConfig.js"
import * as Defaults from "../defaults.js"
import { uniqueProviderNames } from "../providerName.js"

/** @internal */
export type Collisions = "error" | "first" | "prefix"

interface ServerNaming {
  readonly prefix: string | undefined
  readonly rename: Readonly<Record<string, string>> | undefined
}

/** What naming the client does; `undefined` (see `settingsOf`) when it does none. @internal */
export interface Settings {
  readonly separator: string
  readonly collisions: Collisions | undefined
  readonly servers: ReadonlyMap<string, ServerNaming>
}

/** The client's naming, or `undefined` when no server renames and no policy is set (no cost per call). @internal */
export const settingsOf = (
  servers: ReadonlyArray<Pick<ServerConfig<unknown>, "name" | "toolPrefix" | "toolNames">>,
  options: { readonly toolNameSeparator?: string | undefined; readonly toolCollisions?: Collisions | undefined }
): Settings | undefined => {
  const named = new Map<string, ServerNaming>()
  for (const server of servers) {
    const prefix = server.toolPrefix === true ? server.name : server.toolPrefix
    if (prefix !== undefined || server.toolNames !== undefined) {
      named.set(server.name, { prefix, rename: server.toolNames })
    }
  }
  if (named.size === 0 && options.toolCollisions === undefined) return undefined
  return {
    separator: options.toolNameSeparator ?? Defaults.TOOL_NAME_SEPARATOR,
    collisions: options.toolCollisions,
    servers: named
  }
}

/** A shown tool: `name` the shown name, `originalName` the server's when they differ. */
type Shown = McpClient.ServerTool

/** @internal */
export interface Table {
  /** The shown tools, in the servers' order. */
  readonly tools: ReadonlyArray<Shown>
  /** The tools shown as `name` (of `server` only, when given); else those whose provider-safe name it is. */
  readonly lookup: (name: string, server: string | undefined) => ReadonlyArray<Shown>
  /** The shown form of a server's tool, `undefined` when the policy hides it (`first`). */
  readonly shownOf: (tool: Shown) => Shown | undefined
}

const renamed = (tool: Shown, name: string): Shown =>
  name === tool.name ? tool : Object.assign({}, tool, { name, originalName: tool.name })

const ownName = (settings: Settings, tool: Shown): string => {
  const naming = settings.servers.get(tool.server)
  if (naming === undefined) return tool.name
  const base = naming.rename !== undefined && Object.hasOwn(naming.rename, tool.name)
    ? naming.rename[tool.name]!
    : tool.name
  return naming.prefix === undefined ? base : `${naming.prefix}${settings.separator}${base}`
}

/** The first shown name given twice, with the servers of both tools. */
const firstRepeat = (tools: ReadonlyArray<Shown>): ToolNameCollisionError | undefined => {
  const seen = new Map<string, Shown>()
  for (const tool of tools) {
    const earlier = seen.get(tool.name)
    if (earlier !== undefined) {
      return new ToolNameCollisionError({ name: tool.name, servers: [earlier.server, tool.server] })
    }
    seen.set(tool.name, tool)
  }
  return undefined
}

/** Keeps the first tool of each shown name. */
const firstOfEach = (tools: ReadonlyArray<Shown>): ReadonlyArray<Shown> => {
  const seen = new Set<string>()
  return tools.filter((tool) => {
    if (seen.has(tool.name)) return false
    seen.add(tool.name)
    return true
  })
}

/** Prefixes the names given by more than one server with their server's name. */
const prefixRepeats = (tools: ReadonlyArray<Shown>, separator: string): ReadonlyArray<Shown> => {
  const servers = new Map<string, Set<string>>()
  for (const tool of tools) servers.set(tool.name, (servers.get(tool.name) ?? new Set()).add(tool.server))
  return tools.map((tool) =>
    servers.get(tool.name)!.size > 1
      ? Object.assign({}, tool, {
        name: `${tool.server}${separator}${tool.name}`,
        originalName: tool.originalName ?? tool.name
      })
      : tool
  )
}

const keyOf = (server: string, name: string) => `${server}\u0000${name}`

/**
 * The table of `listed` (the servers' own tools, tagged with their server, in the servers'
 * order); with `settings` undefined the names are the servers' own. Fails with
 * `ToolNameCollisionError` under the `error` policy.
 *
 * @internal
 */
export const build = (
  listed: ReadonlyArray<Shown>,
  settings: Settings | undefined
): Either.Either<Table, ToolNameCollisionError> => {
  let tools: ReadonlyArray<Shown> = settings === undefined
    ? listed
    : listed.map((t) => renamed(t, ownName(settings, t)))
  switch (settings?.collisions) {
    case "error": {
      const repeat = firstRepeat(tools)
      if (repeat !== undefined) return Either.left(repeat)
      break
    }
    case "first":
      tools = firstOfEach(tools)
      break
    case "prefix":
      // A prefixed name may still meet another (a server's own `a__x`): the first one keeps it.
      tools = firstOfEach(prefixRepeats(tools, settings.separator))
      break
  }
  // Both maps are made on first use: a call by a shown name needs neither.
  let byOrigin: ReadonlyMap<string, Shown> | undefined
  let byProviderName: ReadonlyMap<string, Shown> | undefined
  const providerNamed = () => {
    if (byProviderName === undefined) {
      const names = uniqueProviderNames(tools.map((tool) => tool.name))
      byProviderName = new Map(tools.map((tool, i) => [names[i]!, tool]))
    }
    return byProviderName
  }
  const ofServer = (server: string | undefined) => (tool: Shown) => server === undefined || tool.server === server
  return Either.right({
    tools,
    lookup: (name, server) => {
      const shown = tools.filter((tool) => tool.name === name && ofServer(server)(tool))
      if (shown.length > 0) return shown
      const safe = providerNamed().get(name)
      return safe !== undefined && ofServer(server)(safe) ? [safe] : []
    },
    shownOf: (tool) => {
      byOrigin ??= new Map(tools.map((shown) => [keyOf(shown.server, shown.originalName ?? shown.name), shown]))
      const known = byOrigin.get(keyOf(tool.server, tool.name))
      if (known !== undefined) return known
      // Not in the lists the table was built from (listed since): its own naming, unless hidden.
      if (settings === undefined) return tool
      const name = ownName(settings, tool)
      return tools.some((other) => other.name === name) ? undefined : renamed(tool, name)
    }
  })
}
