/**
 * Tokens that survive a restart: a first run signs in through the (headless) browser and keeps
 * the token, the registration and the authorization server's metadata in an encrypted token
 * file; once the access token has expired, a second run with no browser allowed refreshes it
 * silently from the same file.
 *
 * @since 0.1.0
 */
import { connect } from "@mcp-effect/node/Connect"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const program = Effect.gen(function*() {
  // Tokens of the first run live one second; later ones ten minutes.
  let firstRun = true
  const server = yield* FakeOAuthServer.makeWith({ expiresIn: () => firstRun ? 1 : 600 })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-oauth-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
  const storage = path.join(dir, "oauth.json")
  // The host keeps this key (a keychain, a secret manager); or set MCP_EFFECT_OAUTH_KEY.
  const encryptionKey = crypto.randomBytes(32)

  const first = yield* Effect.promise(() =>
    connect(server.mcpUrl, {
      logLevel: "Error",
      oauth: {
        storage,
        encryptionKey,
        refreshSkew: 0,
        printUrl: () => {},
        openBrowser: (url) => {
          console.log("first run: the browser opens")
          server.approve(url)
        }
      }
    })
  )
  yield* Effect.promise(() => first.listTools())
  yield* Effect.promise(() => first.close())
  firstRun = false
  yield* Effect.sleep("1200 millis")
  const before = server.grants.length

  // A restart: no browser allowed (an authorization needed would fail with AuthorizationRequiredError).
  const second = yield* Effect.promise(() =>
    connect(server.mcpUrl, { logLevel: "Error", oauth: { storage, encryptionKey, interactive: false } })
  )
  const tools = yield* Effect.promise(() => second.listTools())
  yield* Effect.promise(() => second.close())
  console.log(`second run: ${tools.length} tools, no browser`)
  console.log(`second run grants: ${server.grants.slice(before).map((g) => g.grant).join(", ")}`)
  console.log(`token file encrypted: ${!fs.readFileSync(storage, "utf8").includes("accessToken")}`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
