/**
 * OAuth against the testing package's fake authorization server: the facade's `oauth` option
 * runs the browser flow (here a headless "browser" that approves at once), registers the client
 * (dynamic registration, deprecated: the client warns), steps up to the scope `tools/call` needs,
 * and keeps the tokens in a file.
 *
 * @since 0.1.0
 */
import { connect } from "@mcp-effect/node/Connect"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const program = Effect.gen(function*() {
  const server = yield* FakeOAuthServer.make
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-oauth-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
  yield* Effect.promise(async () => {
    await using client = await connect(server.mcpUrl, {
      logLevel: "Error",
      oauth: {
        storage: path.join(dir, "tokens.json"),
        printUrl: () => {},
        openBrowser: (url) => {
          console.log(`browser opens ${new URL(url).origin}${new URL(url).pathname}`)
          server.approve(url)
        }
      }
    })
    const result = await client.callTool("echo", { message: "authorized" })
    console.log(`echo → ${(result.content[0] as { text: string }).text}`)
    console.log(`grants: ${server.grants.map((g) => g.grant).join(", ")}`)
  })
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
