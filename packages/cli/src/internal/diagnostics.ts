/**
 * What a run learns for its error messages that the library's errors do not carry: where each
 * server is (a failure's cause, a crashed server's stderr are on the `ConnectionError` itself).
 *
 * @internal
 */
import type { TransportKind } from "@mcp-effect/client/ServerConfig"
import * as Context from "effect/Context"
import type { Mode } from "./output.js"

/** @internal A configured server, for listings and hints. */
export interface Placed {
  readonly name: string
  readonly kind: TransportKind
  /** The command line, or the URL without query and credentials. */
  readonly where: string
}

/** @internal */
export interface Diagnostics {
  readonly servers: () => ReadonlyArray<Placed>
  readonly setServers: (servers: ReadonlyArray<Placed>) => void
}

/** @internal What a command's handler may use of its run. */
export interface Run {
  readonly mode: Mode
  readonly diagnostics: Diagnostics
}

/** @internal */
export class Session extends Context.Tag("@mcp-effect/cli/Session")<Session, Run>() {}

/**
 * A run's diagnostics.
 *
 * @internal
 */
export const make = (): Diagnostics => {
  let servers: ReadonlyArray<Placed> = []
  return {
    servers: () => servers,
    setServers: (placed) => (servers = placed)
  }
}
