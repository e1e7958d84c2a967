/**
 * A connected server as the facade shows it: live getters over its negotiated session.
 *
 * @internal
 */
import type { ServerConnection } from "@mcp-effect/client/ServerConnection"
import type { ServerHandle } from "../../Connect.js"

export const handle = (connection: ServerConnection): ServerHandle => ({
  name: connection.name,
  kind: connection.kind,
  get era() {
    return connection.negotiated()?.era
  },
  get protocolVersion() {
    return connection.negotiated()?.protocolVersion
  },
  get serverInfo() {
    return connection.negotiated()?.serverInfo
  },
  get instructions() {
    return connection.negotiated()?.instructions
  },
  get capabilities() {
    return connection.negotiated()?.capabilities
  },
  get isModern() {
    return connection.negotiated()?.era === "modern"
  }
})
