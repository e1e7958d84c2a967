/**
 * An in-memory transport: the server is a function in the same process. Messages cross as
 * JSON text, as they would on a wire, so neither side can see the other's objects.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { ConnectionError } from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import type { Transport, TransportSink } from "./Transport.js"

/**
 * The server side of an in-memory connection: what the client sends is handed to `receive`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerEndpoint {
  readonly receive: (message: unknown) => void
}

/**
 * Starts a server for one connection: it gets a sink to push messages to the client (and to
 * close the connection with an error, as a crashing process would).
 *
 * @since 0.1.0
 * @category models
 */
export type ServerFactory = (client: TransportSink) => Effect.Effect<ServerEndpoint, never, Scope.Scope>

/**
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: {
  readonly name: string
  readonly server: ServerFactory
  readonly readTimeout?: Duration.DurationInput | undefined
}): ServerConfig => ({
  name: options.name,
  kind: "memory",
  readTimeout: options.readTimeout,
  transport: (sink, server) =>
    Effect.gen(function*() {
      let connected = true
      const clientSink: TransportSink = {
        onMessage: (message) => {
          if (connected) sink.onMessage(JSON.parse(JSON.stringify(message)))
        },
        onClose: (error) => {
          if (!connected) return
          connected = false
          sink.onClose(error)
        },
        onRequestFailed: (id, error) => {
          if (connected) sink.onRequestFailed(id, error)
        }
      }
      const endpoint = yield* options.server(clientSink)
      yield* Effect.addFinalizer(() => Effect.sync(() => (connected = false)))
      const closed = new ConnectionError({ server, message: "in-memory connection is closed", reason: "closed" })
      return {
        description: `memory:${server}`,
        send: (message) =>
          Effect.suspend(() => {
            if (!connected) return Effect.fail(closed)
            endpoint.receive(JSON.parse(JSON.stringify(message)))
            return Effect.void
          })
      } satisfies Transport
    })
})
