import { assert, describe, it } from "@effect/vitest"
import type { ConnectionState } from "@mcp-effect/client/ConnectionState"
import { connect } from "@mcp-effect/node/Connect"
import { fakeServerBin } from "./paths.js"

const commandLine = `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeServerBin)}`

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
}

const show = (server: string, state: ConnectionState) =>
  state._tag === "Reconnecting" ? `${server} Reconnecting ${state.attempt}` : `${server} ${state._tag}`

describe("connection state through the facade (stdio)", () => {
  it("a server process that dies is restarted in the background; the states arrive in order", async () => {
    const seen: Array<string> = []
    const client = await connect(commandLine, {
      name: "fake",
      reconnect: { initialDelay: "10 millis" },
      onStateChange: (server, state) => seen.push(show(server, state))
    })
    const later: Array<string> = []
    const unsubscribe = client.onStateChange((server, state) => later.push(show(server, state)))
    try {
      assert.strictEqual(client.state()._tag, "Ready")
      // The tool ends the server process instead of answering.
      await client.callTool("crash").catch(() => undefined)
      await until(() => seen.filter((s) => s === "fake Ready").length === 2)
      assert.strictEqual(client.state("fake")._tag, "Ready")
      const result = await client.callTool("echo", { message: "back" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "back" }])
      unsubscribe()
    } finally {
      await client.close()
    }
    assert.deepStrictEqual(seen, ["fake Connecting", "fake Ready", "fake Reconnecting 1", "fake Ready", "fake Closed"])
    assert.deepStrictEqual(later, ["fake Reconnecting 1", "fake Ready"])
    assert.throws(() => client.state("other"), /other/)
  })
})
