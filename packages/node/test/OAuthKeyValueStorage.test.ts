/**
 * OAuth storage on `@effect/platform`'s `KeyValueStore`, with the memory and the file-system
 * layers: entries as JSON, removal, and a flow whose tokens a second client resumes.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-kv-oauth-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const fileSystemStore = (dir: string) =>
  KeyValueStore.layerFileSystem(dir).pipe(Layer.provide(NodeContext.layer), Layer.orDie)

const layers = {
  memory: (_dir: string) => KeyValueStore.layerMemory,
  "file system": fileSystemStore
}

describe("OAuth storage on a KeyValueStore", () => {
  for (const [name, layer] of Object.entries(layers)) {
    it.scopedLive(`${name}: gets, sets and removes JSON values under a prefix`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        yield* Effect.gen(function*() {
          const store = yield* KeyValueStore.KeyValueStore
          const storage = yield* OAuth.OAuthStorage
          assert.isUndefined(yield* storage.get("token:https://mcp.example.com/mcp"))
          const token = { accessToken: "at", expiresAt: 1_700_000_000_000, scopes: ["a"] }
          yield* storage.set("token:https://mcp.example.com/mcp", token)
          assert.deepStrictEqual(yield* storage.get("token:https://mcp.example.com/mcp"), token)
          assert.isTrue(yield* store.has("mcp-effect/oauth/token:https://mcp.example.com/mcp"))
          yield* storage.remove("token:https://mcp.example.com/mcp")
          assert.isUndefined(yield* storage.get("token:https://mcp.example.com/mcp"))
          // Removing what is not there is no failure.
          yield* storage.remove("token:https://mcp.example.com/mcp")
          // An entry that is not JSON is a storage error.
          yield* store.set("mcp-effect/oauth/broken", "{")
          const broken = yield* Effect.exit(storage.get("broken"))
          assert.isTrue(Exit.isFailure(broken))
          // Refreshes of one process run one at a time.
          const order: Array<string> = []
          const hold = (id: string) =>
            Effect.zipRight(
              Effect.sync(() => order.push(`${id}+`)),
              Effect.zipRight(Effect.sleep("20 millis"), Effect.sync(() => order.push(`${id}-`)))
            )
          yield* Effect.all([storage.withLock!("refresh:s", hold("a")), storage.withLock!("refresh:s", hold("b"))], {
            concurrency: "unbounded"
          })
          assert.deepStrictEqual(order, ["a+", "a-", "b+", "b-"])
        }).pipe(Effect.provide(OAuth.layerKeyValueStorage().pipe(Layer.provideMerge(layer(dir)))))
      }))
  }

  it.scopedLive("file system: tokens of a flow are resumed by a later client without the browser", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const server = yield* FakeOAuthServer.make
      let browser = 0
      const listOnce = Effect.gen(function*() {
        const storage = yield* OAuth.OAuthStorage
        const auth = yield* OAuth.make({
          serverUrl: server.mcpUrl,
          storage,
          authorize: (url) =>
            Effect.promise(async () => {
              browser++
              const answer = await fetch(url, { redirect: "manual" })
              return new URL(answer.headers.get("location")!)
            })
        })
        const connection = yield* ServerConnection.make(
          StreamableHttp.config({ name: "protected", url: server.mcpUrl, auth }),
          { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
        )
        return yield* connection.listTools()
      }).pipe(Effect.scoped, Effect.provide(OAuth.layerKeyValueStorage().pipe(Layer.provide(fileSystemStore(dir)))))
      yield* listOnce
      yield* listOnce
      assert.strictEqual(browser, 1)
      assert.isTrue(Fs.readdirSync(dir).some((file) => file.startsWith(encodeURIComponent("mcp-effect/oauth/token:"))))
    }).pipe(Effect.provide(UndiciHttpClient.layer)))
})
