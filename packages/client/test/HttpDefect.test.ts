import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Effect from "effect/Effect"
import { options } from "./utils/connection.js"

describe("a defect in an HTTP exchange", () => {
  it.live("fails the request at once with a ConnectionError naming it, not at its timeout", () =>
    Effect.gen(function*() {
      const dying = HttpClient.make(() => Effect.die(new Error("boom in the client")))
      const error = yield* Effect.flip(
        ServerConnection.make(
          {
            ...StreamableHttp.config({ name: "x", url: "http://127.0.0.1:9/mcp", readTimeout: "1 minute" }),
            protocol: "legacy"
          },
          options()
        ).pipe(Effect.provideService(HttpClient.HttpClient, dying), Effect.scoped, Effect.timeout("20 seconds"))
      )
      assert.instanceOf(error, ConnectionError)
      assert.include(error.message, "boom in the client")
    }))
})
