import { assert, describe, it } from "@effect/vitest"
import { childEnvironment, ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as Effect from "effect/Effect"

// A server process gets the host's safe default variables plus its own `env`, never the host's
// secrets unless asked (`inheritEnv`).

/** The environment a real child process sees, as it reports it. */
const seenByChild = (options: { readonly env?: Record<string, string>; readonly inheritEnv?: boolean }) =>
  Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner
    const chunks: Array<Uint8Array> = []
    const child = yield* spawner.spawn({
      command: process.execPath,
      args: ["-e", "process.stdout.write(JSON.stringify(process.env))"],
      ...options,
      onStdout: (chunk) => chunks.push(chunk),
      onStderr: () => {}
    })
    yield* child.exited
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, string>
  }).pipe(Effect.scoped, Effect.provide(NodeChildProcess.layer))

describe("the environment of a server process", () => {
  it.effect("holds the safe default set and the entry's env, not the host's other variables", () =>
    Effect.gen(function*() {
      process.env["MCP_EFFECT_TEST_SECRET"] = "sk-do-not-leak"
      const env = yield* seenByChild({ env: { GIVEN: "yes" } })
      assert.isUndefined(env["MCP_EFFECT_TEST_SECRET"])
      assert.strictEqual(env["GIVEN"], "yes")
      assert.strictEqual(env["PATH"], process.env["PATH"])
    }))

  it.effect("holds the host's whole environment with inheritEnv", () =>
    Effect.gen(function*() {
      process.env["MCP_EFFECT_TEST_SECRET"] = "sk-passed-on-purpose"
      const env = yield* seenByChild({ inheritEnv: true })
      assert.strictEqual(env["MCP_EFFECT_TEST_SECRET"], "sk-passed-on-purpose")
    }))

  it("leaves exported shell functions out and lets env override", () => {
    assert.deepStrictEqual(
      childEnvironment({ PATH: "/bin", SHELL: "() { evil; }", HOME: "/h", TOKEN: "t" }, { env: { HOME: "/x" } }),
      { PATH: "/bin", HOME: "/x" }
    )
  })
})
