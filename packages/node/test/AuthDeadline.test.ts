/**
 * Request deadlines leave out the time a transport spends handling an authorization challenge:
 * a person signing in behind the very first request does not use up `discoverTimeout`.
 */
import { assert, describe, it } from "@effect/vitest"
import type { McpAuth } from "@mcp-effect/client/McpAuth"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestClock from "effect/TestClock"

const options: ServerConnection.Options = {
  clientInfo: { name: "test", version: "1" },
  onNotification: () => {},
  discoverTimeout: "5 seconds"
}

/** An auth service whose challenge handling waits until the test lets it finish. */
const slowSignIn = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const auth: McpAuth = {
    headers: () => Effect.succeed({}),
    challenge: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.as(Deferred.await(release), true))
  }
  return { auth, started, release }
})

const methods = (server: FakeHttpServer.FakeHttpServer) =>
  Effect.map(
    server.requests,
    (all) => all.filter((r) => r.method === "POST").map((r) => (r.body as { method?: string } | undefined)?.method)
  )

describe("auth challenges and request deadlines", () => {
  // TestClock: the minute the person takes passes only when the test says so; sockets are real.
  it.scoped("a sign-in behind the first request does not count against discoverTimeout", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual" },
        sessions: false,
        responseMode: "json",
        status4xx: { method: "server/discover", status: 401, times: 1 }
      })
      const signIn = yield* slowSignIn
      const opening = yield* Effect.fork(
        ServerConnection.make(
          StreamableHttp.config({ name: "protected", url: server.mcpUrl, auth: signIn.auth }),
          options
        )
      )
      yield* Deferred.await(signIn.started)
      // The person takes a minute, far past the probe's 5 seconds.
      yield* TestClock.adjust("1 minute")
      yield* Deferred.succeed(signIn.release, undefined)
      const connection = yield* Fiber.join(opening)
      // Without the pause the probe timed out and the client fell back to initialize.
      assert.strictEqual(connection.negotiated()?.era, "modern")
      assert.deepStrictEqual(yield* methods(server), ["server/discover", "server/discover"])
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scoped("the deadline runs again once the challenge is handled", () =>
    Effect.gen(function*() {
      // tools/list is answered with an event stream that never carries the result.
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", faults: [{ method: "tools/list", action: "silence" }] },
        sessions: false
      })
      const signIn = yield* slowSignIn
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "protected", url: server.mcpUrl, auth: signIn.auth }),
        options
      )
      // The first tools/list is refused; the one sent again after the sign-in is never answered.
      yield* server.setFaults({ status4xx: { method: "tools/list", status: 401, times: 1 } })
      const listing = yield* Effect.fork(connection.listTools({ timeout: "10 seconds" }))
      yield* Deferred.await(signIn.started)
      yield* TestClock.adjust("1 minute")
      yield* Deferred.succeed(signIn.release, undefined)
      // The request goes out again only after the challenge was handled (and the pause ended).
      while ((yield* methods(server)).filter((m) => m === "tools/list").length < 2) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      }
      yield* TestClock.adjust("11 seconds")
      const error = yield* Effect.flip(Fiber.join(listing))
      assert.strictEqual(error._tag, "RequestTimeoutError")
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})
