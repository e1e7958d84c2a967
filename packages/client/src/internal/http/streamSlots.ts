/**
 * The long-lived streams held to each origin by the connections of this JavaScript realm (a page,
 * a worker, a process), bounded so that a browser's 6 HTTP/1.1 connections per origin never all
 * sit in streams while calls wait for one, unseen. A connection holds one slot while it has any
 * long-lived stream open (its GET stream, its shared listen stream and that stream's replacement):
 * one slot per server connection.
 *
 * @internal
 */
import { ConnectionError } from "../../McpError.js"
import * as Defaults from "../defaults.js"
import * as Host from "../host.js"

const held = new Map<string, number>()

/** The limit of a connection: its own setting, else 4 in browsers and none elsewhere. @internal */
export const limitOf = (configured: number | false | undefined): number | undefined =>
  configured === false
    ? undefined
    : configured ?? (Host.runtime() === "browser" ? Defaults.BROWSER_STREAMS_PER_ORIGIN : undefined)

/** The slots taken at `origin` now (for tests and diagnostics). @internal */
export const heldAt = (origin: string): number => held.get(origin) ?? 0

/** The slot holder of one connection. @internal */
export interface Holder {
  readonly open: () => ConnectionError | undefined
  readonly close: () => void
}

/**
 * The slot holder of one connection: `open` for each long-lived stream it starts (`undefined`:
 * go ahead; else the error to fail it with), `close` when that stream ends.
 *
 * @internal
 */
export const holder = (server: string, origin: string, limit: number | undefined): Holder => {
  let open = 0
  return {
    open: (): ConnectionError | undefined => {
      if (open > 0) {
        open++
        return undefined
      }
      const taken = heldAt(origin)
      if (limit !== undefined && taken >= limit) {
        return new ConnectionError({
          server,
          message:
            `${origin} already has ${taken} long-lived streams open from here, the most allowed (maxStreamsPerOrigin: ${limit}); ` +
            "close a subscription or a connection to that origin, raise maxStreamsPerOrigin, or serve it over HTTP/2",
          reason: "stream-limit"
        })
      }
      held.set(origin, taken + 1)
      open = 1
      return undefined
    },
    close: (): void => {
      if (open === 0) return
      open--
      if (open > 0) return
      const taken = heldAt(origin) - 1
      if (taken > 0) held.set(origin, taken)
      else held.delete(origin)
    }
  }
}
