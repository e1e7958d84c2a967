// The built executable with a --target that names a URL it cannot use: a ConfigError, exit 1,
// the string never run as a program.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { cli, tempDir } from "./utils.js"

describe("--target with a URL the client cannot use", () => {
  it.scopedLive("is a ConfigError (with a hint for a typo) and is never run as a program", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // `htps://marker`, run as a program from `dir`, is the executable `htps:/marker`.
      const ran = Path.join(dir, "ran.log")
      Fs.mkdirSync(Path.join(dir, "htps:"))
      Fs.writeFileSync(Path.join(dir, "htps:", "marker"), `#!/bin/sh\necho ran >> ${JSON.stringify(ran)}\n`, {
        mode: 0o755
      })
      const typo = yield* cli(["tools", "--target", "htps://marker"], { cwd: dir })
      assert.deepStrictEqual([typo.code, typo.stdout], [1, ""])
      assert.strictEqual(
        typo.stderr,
        `error: ConfigError: "htps://marker": unsupported URL scheme "htps:" (only http:// and https://); ` +
          "did you mean https://?\n"
      )
      const ftp = yield* cli(["tools", "--target", "ftp://user:secret@example.com/mcp?token=t"], { cwd: dir })
      assert.strictEqual(ftp.code, 1)
      assert.include(ftp.stderr, `error: ConfigError: "ftp://example.com/mcp": unsupported URL scheme "ftp:"`)
      assert.notInclude(ftp.stderr, "secret")
      assert.isFalse(Fs.existsSync(ran))
      // The control: run as a command, the same path does run.
      yield* cli(["tools", "--target", "stdio://./htps://marker"], { cwd: dir })
      assert.isTrue(Fs.existsSync(ran))
    }))
})
