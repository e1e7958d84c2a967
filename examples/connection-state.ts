/**
 * Connection state as a stream, and a supervised reconnect: a host follows each server's state
 * (to drive a status display), the server dies, the client re-opens it in the background with
 * backoff, and the states show each attempt. In memory: no process, no network.
 *
 * @since 0.1.0
 */
import * as ConnectionState from "@mcp-effect/client/ConnectionState"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConnectionError } from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make(Scenarios.demo)
  // A server that refuses its first re-opening, as one that is still starting would.
  const base = server.config({ name: "demo" })
  let refusals = 0
  const config: ServerConfig = {
    ...base,
    reconnect: { initialDelay: "50 millis", maxDelay: "1 second", maxAttempts: 10 },
    transport: (sink, name) =>
      refusals > 0
        ? Effect.suspend(() => {
          refusals--
          return Effect.fail(new ConnectionError({ server: name, message: "connection refused" }))
        })
        : base.transport(sink, name)
  }

  const scope = yield* Scope.make()
  const client = yield* McpClient.make({ servers: [config] }).pipe(Scope.extend(scope))
  const connection = yield* client.server("demo")
  // A status display: the current state, then each change, until Closed.
  const display = yield* Stream.runForEach(
    connection.state.changes,
    (state) => Console.log(`demo: ${ConnectionState.describe(state)}`)
  ).pipe(Effect.fork)

  const before = connection.currentState()
  refusals = 1
  yield* server.crash
  // The supervisor re-opens it; the host just waits for the next Ready.
  yield* Stream.runDrain(
    Stream.takeUntil(connection.state.changes, (state) => state._tag === "Ready" && state !== before)
  )
  const result = yield* client.callTool("echo", { message: "back again" })
  yield* Console.log(`echo → ${JSON.stringify(result.content)}`)
  yield* Scope.close(scope, Exit.void)
  yield* display.await
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
