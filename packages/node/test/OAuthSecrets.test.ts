/**
 * Secrets stay secret: through a whole OAuth flow (registration with a client secret, PKCE,
 * code, step-up, refreshes, a refused refresh token, a callback nobody waits for, an
 * authorization a host cannot run, a storage it cannot read) no code, verifier, client secret or
 * token shows up in a log line (DEBUG included), an error message or a storage key.
 */
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeOAuth from "@mcp-effect/node/NodeOAuth"
import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Inspectable from "effect/Inspectable"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"

const CLIENT_SECRET = `client-secret-${Crypto.randomBytes(12).toString("hex")}`

describe("OAuth secrets", () => {
  it.scopedLive("no code, verifier, client secret or token in logs, error messages or storage keys", () => {
    const logs: Array<string> = []
    const logger = Logger.make(({ annotations, cause, message }) => {
      logs.push(
        [
          Inspectable.toStringUnknown(message),
          Cause.isEmpty(cause) ? "" : Cause.pretty(cause, { renderErrorCause: true }),
          Inspectable.toStringUnknown([...annotations])
        ].join(" ")
      )
    })
    return Effect.gen(function*() {
      const server = yield* FakeOAuthServer.makeWith({ rotateRefreshTokens: true })
      const messages: Array<string> = []
      const keys = new Set<string>()
      const memory = yield* OAuth.makeMemoryStorage
      const storage: OAuth.OAuthStorage = {
        get: (key) => Effect.zipRight(Effect.sync(() => keys.add(key)), memory.get(key)),
        set: (key, value) => Effect.zipRight(Effect.sync(() => keys.add(key)), memory.set(key, value)),
        remove: memory.remove,
        withLock: (key, effect) => Effect.zipRight(Effect.sync(() => keys.add(key)), memory.withLock!(key, effect))
      }
      /** Runs `effect`, keeping the message of its failure, if any. */
      const noting = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.tap(Effect.exit(effect), (exit) =>
          Exit.isFailure(exit)
            ? Effect.sync(() => messages.push(Cause.pretty(exit.cause, { renderErrorCause: true }), String(exit)))
            : Effect.void)

      const browser = yield* NodeOAuthBrowser.make({ printUrl: () => {}, openBrowser: server.approve })
      const auth = yield* OAuth.make({
        serverUrl: server.mcpUrl,
        redirectUri: browser.redirectUri,
        authorize: browser.authorize,
        preRegistered: {
          clientId: "registered",
          clientSecret: CLIENT_SECRET,
          issuer: server.issuer,
          tokenEndpointAuthMethod: "client_secret_post"
        },
        storage,
        // Every request refreshes first (the fake's tokens live 30 seconds).
        refreshSkew: "1 hour"
      })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "protected", url: server.mcpUrl, auth }),
        { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
      )
      // The code flow, a step-up, refreshes.
      yield* connection.listTools()
      yield* connection.callTool("echo", { message: "hi" })
      yield* connection.listPrompts()
      // A refused refresh token: removed (the access token it came with is used while it lasts),
      // and the next request runs the browser flow again.
      server.revokeRefreshTokens()
      yield* noting(connection.listTools())
      yield* noting(connection.listTools())
      // A callback nobody waits for, with a code in it.
      yield* noting(auth.complete(new URL(`${browser.redirectUri}?code=${[...server.secrets][0]}&state=x`)))
      // A host that cannot run the browser flow.
      const headless = yield* OAuth.make({ serverUrl: server.mcpUrl, storage: yield* OAuth.makeMemoryStorage })
      const refused = yield* ServerConnection.make(
        StreamableHttp.config({ name: "headless", url: server.mcpUrl, auth: headless }),
        { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
      ).pipe(Effect.flatMap((c) => c.listTools()), noting)
      assert.isTrue(Exit.isFailure(refused))
      // A token file this host cannot read (another key).
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-secrets-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const file = Path.join(dir, "oauth.json")
      yield* NodeOAuth.makeFileStorage(file, { encryptionKey: Crypto.randomBytes(32) }).set("token:x", {
        accessToken: [...server.secrets].at(-1)
      })
      const sealed = yield* noting(
        NodeOAuth.makeFileStorage(file, { encryptionKey: Crypto.randomBytes(32) }).get("token:x")
      )
      assert.isTrue(Exit.isFailure(sealed))
      // A plain file that is not JSON: its text is not quoted back.
      Fs.writeFileSync(file, `{"token:x": "${[...server.secrets].at(-1)}"`)
      yield* noting(NodeOAuth.makeFileStorage(file).get("token:x"))

      const kinds = server.grants.map((g) => g.grant)
      assert.includeMembers(kinds, ["authorization_code", "refresh_token"])
      assert.isAbove(kinds.filter((k) => k === "authorization_code").length, 2)
      // The refused refresh is logged (DEBUG), with the server's error and without the token.
      assert.isTrue(logs.some((line) => line.includes("invalid_grant")), logs.join("\n"))
      assert.isAbove(messages.length, 3)
      const secrets = [...server.secrets, CLIENT_SECRET]
      assert.include(secrets.join(" "), "code-")
      for (const secret of secrets) {
        for (const line of logs) assert.notInclude(line, secret, "a log line")
        for (const message of messages) assert.notInclude(message, secret, "an error message")
        for (const key of keys) assert.notInclude(key, secret, "a storage key")
      }
    }).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.All),
      Effect.provide(UndiciHttpClient.layer)
    )
  })
})
