/**
 * A connected server as the facade shows it: live getters over its negotiated session.
 *
 * @internal
 */
import type { Negotiated } from "../../Protocol.js"
import type { ServerConnection } from "../../ServerConnection.js"
import type { ServerHandle } from "./types.js"

const connectionOf = Symbol("connection")

interface Held {
  readonly [connectionOf]: ServerConnection
}

/** An own, enumerable getter (as an object literal's would be) shared by every handle. */
const live = <A>(read: (negotiated: Negotiated | undefined) => A): PropertyDescriptor => ({
  enumerable: true,
  get(this: Held) {
    return read(this[connectionOf].negotiated())
  }
})

// One set of getter functions for every handle: an object literal's getters are new closures
// (and a new hidden class) per handle (docs/performance.md, "Idioms").
const getters: PropertyDescriptorMap = {
  era: live((n) => n?.era),
  protocolVersion: live((n) => n?.protocolVersion),
  serverInfo: live((n) => n?.serverInfo),
  instructions: live((n) => n?.instructions),
  capabilities: live((n) => n?.capabilities),
  isModern: live((n) => n?.era === "modern")
}

export const handle = (connection: ServerConnection): ServerHandle => {
  const target = { name: connection.name, kind: connection.kind }
  Object.defineProperty(target, connectionOf, { value: connection })
  return Object.defineProperties(target, getters) as ServerHandle
}
