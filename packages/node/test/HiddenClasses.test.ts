import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"

const program = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "programs/hiddenClasses.mjs")

describe("hidden classes", () => {
  // V8's own view (natives syntax, in a process of its own): connections are neither
  // dictionaries nor a class each, and listed items of one shape share one class on every Node
  // (on Node 20 a literal that opens with a spread gives each object a class of its own).
  it("connections and listed items share V8 hidden classes; `kind` stays an own enumerable property [not-on-bun: V8's --allow-natives-syntax (Bun is JavaScriptCore)]", async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--allow-natives-syntax", program, fakeServerBin],
        { timeout: 60_000 },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
      )
    )
    assert.deepStrictEqual(output.trim().split("\n"), [
      "client fast=true",
      "connections fast=true shared=true",
      "kind=stdio enumerable=true",
      "listed tools fast=true shared=true"
    ])
  })
})
