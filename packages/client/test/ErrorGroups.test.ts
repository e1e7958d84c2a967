import { assert, describe, it } from "@effect/vitest"
import * as McpError from "@mcp-effect/client/McpError"
import * as Effect from "effect/Effect"

type Group = keyof typeof McpError.groups

// Every error class, placed: a new class fails this test until it is classified here (and in
// docs/errors.md, see ErrorsDoc.test.ts).
const expected: Record<string, ReadonlyArray<Group>> = {
  ConnectionError: ["transient", "connection"],
  RequestTimeoutError: ["transient", "connection"],
  ResponseTooLargeError: ["connection"],
  TransientServerError: ["transient", "serverRejected"],
  SessionExpiredError: ["transient", "connection"],
  ResponseStreamClosedError: ["transient", "connection"],
  MissingResponseError: ["connection"],
  ServerError: ["serverRejected"],
  InvalidResponseError: ["validation"],
  UnsupportedProtocolVersionError: ["connection"],
  ValidationError: ["validation"],
  HeaderMismatchError: ["serverRejected"],
  MissingRequiredClientCapabilityError: ["serverRejected"],
  InputRequiredError: [],
  TaskReplacedError: [],
  AuthError: ["auth"],
  InsufficientScopeError: ["auth"],
  AuthorizationRequiredError: ["auth"],
  CapabilityError: [],
  ToolNotFoundError: [],
  ToolPinMismatchError: [],
  AmbiguousToolError: [],
  ToolNameCollisionError: [],
  AmbiguousServerError: [],
  ServerNotFoundError: [],
  ConfigError: []
}

const guards: Record<Group, (u: unknown) => boolean> = {
  transient: McpError.isTransient,
  serverRejected: McpError.isServerRejected,
  connection: McpError.isConnectionProblem,
  auth: McpError.isAuthProblem,
  validation: McpError.isValidationProblem
}

describe("error groups", () => {
  it("place every error class, and each guard agrees with its group's tags", () => {
    const exported = Object.entries(McpError)
      .filter(([name, value]) => typeof value === "function" && /^[A-Z]\w*Error$/.test(name))
      .map(([name]) => name)
      .sort()
    assert.deepStrictEqual(Object.keys(expected).sort(), exported)
    for (const [tag, groups] of Object.entries(expected)) {
      for (const group of Object.keys(guards) as Array<Group>) {
        const member = groups.includes(group)
        assert.strictEqual(guards[group]({ _tag: tag }), member, `${tag} in ${group}`)
        assert.strictEqual(
          (McpError.groups[group] as ReadonlyArray<string>).includes(tag),
          member,
          `${tag} in ${group}`
        )
      }
    }
    assert.isFalse(McpError.isTransient(new Error("ConnectionError")))
    assert.isFalse(McpError.isTransient(undefined))
  })

  it.effect("catchGroup recovers from a group and keeps the other errors", () =>
    Effect.gen(function*() {
      const transient = new McpError.TransientServerError({ server: "s", method: "tools/list", status: 503 })
      const rejected = new McpError.ServerError({ server: "s", method: "m", code: -32602, message: "bad" })
      const fails = (error: McpError.TransientServerError | McpError.ServerError) =>
        Effect.fail(error) as Effect.Effect<string, McpError.TransientServerError | McpError.ServerError>
      const recovered = yield* fails(transient).pipe(
        McpError.catchGroup(McpError.isTransient, (e) => Effect.succeed(`retry later: ${e._tag}`))
      )
      assert.strictEqual(recovered, "retry later: TransientServerError")
      // What is left in the error channel: only ServerError.
      const kept: McpError.ServerError = yield* Effect.flip(
        McpError.catchGroup(fails(rejected), McpError.isTransient, () => Effect.succeed("no"))
      )
      assert.strictEqual(kept, rejected)
      // The guards also work with Effect.catchIf and Effect.retry.
      const viaCatchIf = yield* Effect.catchIf(fails(transient), McpError.isServerRejected, (e) =>
        Effect.succeed(e.server))
      assert.strictEqual(viaCatchIf, "s")
    }))
  it.effect("catchTag(\"ServerError\") leaves an HTTP 5xx; catchGroup(isServerRejected) takes both", () =>
    Effect.gen(function*() {
      // Decision 120: a 5xx keeps its own tag (the client retries it, never a JSON-RPC error);
      // "the server refused" is the serverRejected group.
      const transient = new McpError.TransientServerError({ server: "s", method: "tools/list", status: 503 })
      const refused = new McpError.ServerError({ server: "s", method: "m", code: -32602, message: "bad" })
      const fails = (error: McpError.TransientServerError | McpError.ServerError) =>
        Effect.fail(error) as Effect.Effect<string, McpError.TransientServerError | McpError.ServerError>
      const left: McpError.TransientServerError = yield* Effect.flip(
        Effect.catchTag(fails(transient), "ServerError", () => Effect.succeed("caught"))
      )
      assert.strictEqual(left, transient)
      for (const error of [transient, refused]) {
        const caught = yield* McpError.catchGroup(
          fails(error),
          McpError.isServerRejected,
          (e) => Effect.succeed(e._tag)
        )
        assert.strictEqual(caught, error._tag)
        const byTags = yield* Effect.catchTags(fails(error), {
          ServerError: (e) => Effect.succeed(`${e.code}`),
          TransientServerError: (e) => Effect.succeed(`${e.status}`)
        })
        assert.strictEqual(byTags, error._tag === "ServerError" ? "-32602" : "503")
      }
    }))
})
