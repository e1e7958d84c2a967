import { assert, describe, it } from "@effect/vitest"
import * as NodeOAuth from "@mcp-effect/node/NodeOAuth"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

describe("NodeOAuth file storage", () => {
  it.effect("keeps values in a file only its owner can read (0600)", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-oauth-"))
      const file = Path.join(dir, "nested", "tokens.json")
      const storage = NodeOAuth.makeFileStorage(file)
      assert.strictEqual(yield* storage.get("token:a"), undefined)
      yield* storage.set("token:a", { accessToken: "t" })
      yield* storage.set("client:b", { clientId: "c" })
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      const reopened = NodeOAuth.makeFileStorage(file)
      assert.deepStrictEqual(yield* reopened.get("token:a"), { accessToken: "t" })
      yield* reopened.remove("token:a")
      assert.strictEqual(yield* storage.get("token:a"), undefined)
      assert.deepStrictEqual(yield* storage.get("client:b"), { clientId: "c" })
      Fs.rmSync(dir, { recursive: true, force: true })
    }))
})
