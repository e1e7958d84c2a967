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

  it.effect("holds the host's network settings (proxies, CA certificates), not its cloud credentials", () =>
    Effect.gen(function*() {
      const network = {
        HTTPS_PROXY: "http://user:pass@proxy.example:8080",
        http_proxy: "http://proxy.example:8080",
        NO_PROXY: "localhost,127.0.0.1",
        NODE_EXTRA_CA_CERTS: "/etc/ssl/company-ca.pem",
        SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
        SSL_CERT_DIR: "/etc/ssl/certs",
        npm_config_https_proxy: "http://proxy.example:8080"
      }
      const saved = { ...process.env }
      Object.assign(process.env, network, { AWS_SECRET_ACCESS_KEY: "do-not-leak" })
      const env = yield* Effect.ensuring(
        seenByChild({}),
        Effect.sync(() => {
          for (const name of [...Object.keys(network), "AWS_SECRET_ACCESS_KEY"]) {
            if (saved[name] === undefined) delete process.env[name]
            else process.env[name] = saved[name]
          }
        })
      )
      for (const [name, value] of Object.entries(network)) assert.strictEqual(env[name], value, name)
      assert.isUndefined(env["AWS_SECRET_ACCESS_KEY"])
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
