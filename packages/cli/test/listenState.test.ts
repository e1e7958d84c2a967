import { assert, describe, it } from "@effect/vitest"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Cli from "../src/Cli.js"
import { fakeServerBin } from "./utils.js"

/**
 * A stdio server that exits once, 1.5 s after its first start (a marker file remembers): later
 * than the listen's crash-loop bound, so the subscription re-opens it.
 */
const mortalServer = (dir: string) => {
  const script = Path.join(dir, "mortal.mjs")
  Fs.writeFileSync(
    script,
    [
      `import * as fs from "node:fs"`,
      `const marker = ${JSON.stringify(Path.join(dir, "died"))}`,
      `if (!fs.existsSync(marker)) { fs.writeFileSync(marker, ""); setTimeout(() => process.exit(0), 1500) }`,
      `await import(${JSON.stringify(fakeServerBin)})`
    ].join("\n")
  )
  return `node ${script} --era dual`
}

describe("mcp-effect listen", () => {
  it.scopedLive("shows the server's state changes on stderr: it died, was re-opened, is ready", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-listen-"))),
        (d) => Effect.sync(() => Fs.rmSync(d, { recursive: true, force: true }))
      )
      const err: Array<string> = []
      const base = yield* Effect.console
      const console: Console.Console = {
        ...base,
        log: () => Effect.void,
        error: (...args) => Effect.sync(() => err.push(args.map(String).join(" "))),
        unsafe: { ...base.unsafe, error: (...args) => err.push(args.map(String).join(" ")) }
      }
      const fiber = yield* Cli.run(["node", "mcp-effect", "listen", "--tools", "--target", mortalServer(dir)]).pipe(
        Effect.withConsole(console),
        Effect.provide(NodeMcpClient.platform),
        Effect.fork
      )
      // The listen stream re-opens after the process died, which re-opens the connection.
      for (let i = 0; i < 500 && !err.some((line) => line.includes(": ready (")); i++) yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(fiber)
      const states = err.filter((line) => line.startsWith("mortal:"))
      assert.strictEqual(states.length, 3, err.join("\n"))
      assert.match(states[0]!, /^mortal: failed \(ConnectionError: /)
      assert.match(states[1]!, /^mortal: reconnecting \(attempt 1: ConnectionError: /)
      assert.match(states[2]!, /^mortal: ready \(2026-07-28, /)
    }))
})
