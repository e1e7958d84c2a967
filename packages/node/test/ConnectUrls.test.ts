// `connect` with a string that names a URL the client cannot use: a ConfigError at once, the
// string never run as a program; a command that does not exist fails once, not transient.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "@mcp-effect/client/ChildProcess"
import * as McpError from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Stdio from "@mcp-effect/client/Stdio"
import { connect } from "@mcp-effect/node/Connect"
import type { ConnectOptions } from "@mcp-effect/node/Connect"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * A folder where each refused target, run as a program, would be an executable: `ftp://marker`
 * is the relative path `ftp:/marker`. Each one appends its name to `ran.log` when it runs.
 */
const trapFolder = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-urls-"))
  const log = path.join(dir, "ran.log")
  for (const scheme of ["ftp:", "ws:", "htps:", "http:"]) {
    fs.mkdirSync(path.join(dir, scheme))
    const program = path.join(dir, scheme, "marker")
    fs.writeFileSync(program, `#!/bin/sh\necho ${scheme} >> ${JSON.stringify(log)}\n`)
    fs.chmodSync(program, 0o755)
  }
  return { dir, ran: () => fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [] }
}

/** `connect` in a loop that retries transient errors, as an application would; its attempts. */
const connectRetrying = async (target: string, options: ConnectOptions) => {
  let attempts = 0
  for (;;) {
    attempts++
    try {
      await (await connect(target, options)).close()
      return { attempts, error: undefined }
    } catch (error) {
      if (!McpError.isTransient(error) || attempts === 5) return { attempts, error }
    }
  }
}

describe("connect with a URL it cannot use", () => {
  it("rejects with ConfigError and runs nothing, even with retries and reconnect configured", async () => {
    const trap = trapFolder()
    // The control: run as a command, the same path does run.
    await connect("stdio://./ftp://marker", { cwd: trap.dir }).catch(() => undefined)
    assert.deepStrictEqual(trap.ran(), ["ftp:"])
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["ftp://marker", `"ftp://marker": unsupported URL scheme "ftp:" (only http:// and https://)`],
      [
        "ws://marker",
        `"ws://marker": unsupported URL scheme "ws:" (only http:// and https://); ` +
        "MCP has no WebSocket transport: use the server's http(s) URL"
      ],
      [
        "htps://marker",
        `"htps://marker": unsupported URL scheme "htps:" (only http:// and https://); did you mean https://?`
      ],
      ["http:/marker", `"http:/marker": not a valid http:// or https:// URL`],
      ["https://exa mple.com/mcp", `"https://exa mple.com/mcp": not a valid http:// or https:// URL`]
    ]
    for (const [target, message] of cases) {
      const { attempts, error } = await connectRetrying(target, {
        cwd: trap.dir,
        retries: 5,
        reconnect: { initialDelay: "10 millis" }
      })
      assert.instanceOf(error, McpError.ConfigError, target)
      assert.strictEqual((error as McpError.ConfigError).message, message)
      assert.strictEqual(attempts, 1, target)
    }
    // Also in a list of targets, and with OAuth (refused before any OAuth request).
    const list = await connect(["ftp://marker", "ws://marker"], { cwd: trap.dir }).catch((e: unknown) => e)
    assert.instanceOf(list, McpError.ConfigError)
    const oauth = await connect("htps://marker", { cwd: trap.dir, oauth: true }).catch((e: unknown) => e)
    assert.instanceOf(oauth, McpError.ConfigError)
    assert.deepStrictEqual(trap.ran(), ["ftp:"])
  })

  it("a command that does not exist: a ConnectionError naming ENOENT, not transient, one attempt [not-on-bun: Bun words spawn errors otherwise]", async () => {
    const states: Array<string> = []
    const { attempts, error } = await connectRetrying("not a url", {
      reconnect: { initialDelay: "10 millis" },
      onStateChange: (_server, state) => states.push(state._tag)
    })
    assert.instanceOf(error, McpError.ConnectionError)
    assert.include((error as McpError.ConnectionError).message, "could not start not: spawn not ENOENT")
    assert.isFalse(McpError.isTransient(error))
    assert.strictEqual(attempts, 1)
    // No reconnect attempt: failed, then closed with the client that was never handed out.
    assert.deepStrictEqual(states, ["Connecting", "Failed", "Closed"])
  })

  it.effect("with either spawner, a missing or non-executable command is not transient", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-noexec-"))
      const notExecutable = path.join(dir, "server.sh")
      fs.writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 })
      const spawners = [
        NodeChildProcess.layer,
        ChildProcess.layerCommandExecutor.pipe(Layer.provide(NodeContext.layer))
      ]
      for (const spawner of spawners) {
        for (const command of ["no-such-command-mcp-effect", notExecutable]) {
          const error = yield* Effect.flip(
            Effect.scoped(
              ServerConnection.make(Stdio.config({ command }), {
                clientInfo: { name: "test", version: "1" },
                onNotification: () => {}
              })
            ).pipe(Effect.provide(spawner))
          )
          assert.instanceOf(error, McpError.ConnectionError, command)
          assert.isFalse(McpError.isTransient(error), `${command}: ${error.message}`)
        }
      }
    }))
})
