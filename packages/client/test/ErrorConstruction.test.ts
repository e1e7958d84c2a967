import { assert, describe, it } from "@effect/vitest"
import * as McpError from "@mcp-effect/client/McpError"
import { OAuthStorageError } from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

// Fields the type checker would refuse, to see whether the constructor checks them at run time.
const unchecked = { server: 42, message: "m" } as unknown as { server: string; message: string }

describe("error construction", () => {
  it("skips the field check by default, and keeps the class's behaviour", () => {
    const error = new McpError.ConnectionError(unchecked)
    assert.strictEqual(error._tag, "ConnectionError")
    assert.instanceOf(error, McpError.ConnectionError)
    assert.instanceOf(error, Error)
    assert.strictEqual(error.message, "m")
    assert.isTrue(McpError.isConnectionProblem(error))
    const caught = Effect.runSync(
      Effect.catchTag(
        Effect.fail(new McpError.ServerError({ server: "s", method: "x", code: 1, message: "no" })),
        "ServerError",
        (e) => Effect.succeed(e.code)
      )
    )
    assert.strictEqual(caught, 1)
  })

  it("checks the fields when asked", () => {
    assert.throws(() => new McpError.ConnectionError(unchecked, { disableValidation: false }))
    assert.throws(() => new OAuthStorageError({ message: 1 } as unknown as { message: string }, false))
    assert.doesNotThrow(() => new McpError.ConnectionError({ server: "s", message: "m" }, false))
  })

  it("still validates when decoded with its schema, and encodes as before", () => {
    const decode = Schema.decodeUnknownEither(McpError.ConnectionError)
    assert.isTrue(Either.isLeft(decode({ _tag: "ConnectionError", server: 42, message: "m" })))
    const decoded = decode({ _tag: "ConnectionError", server: "s", message: "m" })
    assert.isTrue(Either.isRight(decoded) && decoded.right instanceof McpError.ConnectionError)
    assert.deepStrictEqual(
      Schema.encodeSync(McpError.ConnectionError)(new McpError.ConnectionError({ server: "s", message: "m" })),
      { _tag: "ConnectionError", server: "s", message: "m" }
    )
  })
})
