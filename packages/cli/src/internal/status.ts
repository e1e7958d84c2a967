/**
 * `mcp-effect servers`: each configured server, connected on its own, and how that went.
 *
 * @internal
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpError from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { TransportKind } from "@mcp-effect/client/ServerConfig"
import type * as Target from "@mcp-effect/client/Target"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Diagnostics } from "./diagnostics.js"
import * as errors from "./errors.js"
import * as format from "./format.js"
import type { Server, Servers } from "./servers.js"

/** @internal */
export interface Status {
  readonly name: string
  readonly kind: TransportKind
  readonly where: string
  readonly status: "ok" | "failed" | "disabled"
  readonly serverInfo?: McpSchema.Implementation | undefined
  readonly protocolVersion?: string | undefined
  readonly era?: string | undefined
  readonly error?: errors.Described | undefined
}

const DEFAULT_TIMEOUT = Duration.seconds(15)

const check = (server: Server, timeout: Duration.Duration | undefined, diagnostics: Diagnostics) => {
  const placed = { name: server.name, kind: server.kind, where: server.where }
  if (server.disabled) return Effect.succeed<Status>({ ...placed, status: "disabled" })
  const budget = timeout ?? DEFAULT_TIMEOUT
  return Effect.scoped(
    Effect.map(McpClient.make({ servers: [server.config] }), (client) => client.servers[0]!.negotiated())
  ).pipe(
    Effect.timeoutFail({
      duration: budget,
      onTimeout: () =>
        new McpError.ConnectionError({
          server: server.name,
          message: `no answer within ${Duration.format(budget)}`,
          reason: "timeout"
        })
    }),
    Effect.match({
      onSuccess: (negotiated): Status => ({
        ...placed,
        status: "ok",
        serverInfo: negotiated?.serverInfo,
        protocolVersion: negotiated?.protocolVersion,
        era: negotiated?.era
      }),
      onFailure: (error): Status => ({ ...placed, status: "failed", error: errors.describe(error, diagnostics) })
    })
  )
}

/**
 * Every server's status, checked concurrently.
 *
 * @internal
 */
export const checkAll = (
  servers: ReadonlyArray<Server>,
  timeout: Duration.Duration | undefined,
  diagnostics: Diagnostics
): Effect.Effect<ReadonlyArray<Status>, never, Target.Requirements> =>
  Effect.forEach(servers, (server) => check(server, timeout, diagnostics), { concurrency: "unbounded" })

const outcome = (status: Status): string => {
  if (status.status !== "ok") return status.status
  const info = status.serverInfo
  const name = info === undefined ? "" : ` — ${format.clean(info.name)} ${format.clean(info.version)}`
  const protocol = status.protocolVersion === undefined ? "" : `, protocol ${format.clean(status.protocolVersion)}`
  return `ok${name}${protocol}${status.era === undefined ? "" : ` (${status.era} era)`}`
}

/**
 * The listing: a line per server, then a failed one's error and its details.
 *
 * @internal
 */
export const text = (statuses: ReadonlyArray<Status>, servers: Servers): string => {
  const lines = servers.file === undefined ? [] : [`servers of ${format.clean(servers.file)}:`]
  if (statuses.length === 0) lines.push("no servers")
  for (const status of statuses) {
    lines.push(`${format.clean(status.name)} (${status.kind}: ${format.clean(status.where)}): ${outcome(status)}`)
    if (status.error !== undefined) {
      lines.push(`  ${status.error.tag}: ${status.error.message}`, ...errors.details(status.error))
    }
  }
  return lines.join("\n")
}
