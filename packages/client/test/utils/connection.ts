import * as InMemory from "@mcp-effect/client/InMemory"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import type { TransportSink } from "@mcp-effect/client/Transport"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"

/** Connection options for tests: a client name and no notification handling, plus `extra`. */
export const options = (extra: Partial<ServerConnection.Options> = {}): ServerConnection.Options => ({
  clientInfo: { name: "test-client", version: "1.0.0" },
  onNotification: () => {},
  ...extra
})

/** A fake server built from `definition` and a connection to it (in memory). */
export const connect = (definition: FakeServer.Definition, extra: Partial<ServerConnection.Options> = {}) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    const connection = yield* ServerConnection.make(server.config({ name: "fake" }), options(extra))
    return { server, connection }
  })

/** The fake behind a wire the test can also write to, as the server (server-initiated requests). */
export const tapped = (server: FakeServer.FakeServer) => {
  const sinks: Array<TransportSink> = []
  const config = InMemory.config({
    name: "fake",
    server: (client) => {
      sinks.push(client)
      return server.serve({
        send: (message) => client.onMessage(message),
        sendRaw: (text) => client.onMessage(text),
        close: (reason) => client.onClose(new ConnectionError({ server: "fake", message: reason }))
      })
    }
  })
  return { config, inject: (message: object) => sinks.at(-1)!.onMessage(message) }
}
