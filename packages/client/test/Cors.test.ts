import { assert, describe, it } from "@effect/vitest"
import * as Cors from "../src/internal/http/cors.js"

/** Runs `f` as if in a page at `origin` (`globalThis.location`). */
const inPage = <A>(origin: string, f: () => A): A => {
  Object.defineProperty(globalThis, "location", { value: { origin }, configurable: true })
  try {
    return f()
  } finally {
    Reflect.deleteProperty(globalThis, "location")
  }
}

const refused = new TypeError("Failed to fetch")

describe("Cors.suspectedBy", () => {
  it("outside a page, a failed request is never called CORS", () => {
    assert.isUndefined(Cors.suspectedBy("https://mcp.example.com/mcp", refused))
  })

  it("in a page, a bare TypeError on a request to another origin names the page's origin", () => {
    assert.strictEqual(
      inPage("https://app.example.com", () => Cors.suspectedBy("https://mcp.example.com/mcp", refused)),
      "https://app.example.com"
    )
  })

  it("a same-origin request, a failure with a network code, or another error is not CORS", () => {
    inPage("https://app.example.com", () => {
      assert.isUndefined(Cors.suspectedBy("https://app.example.com/mcp", refused))
      assert.isUndefined(
        Cors.suspectedBy("https://mcp.example.com/mcp", Object.assign(new TypeError("x"), { code: "ECONNREFUSED" }))
      )
      assert.isUndefined(Cors.suspectedBy("https://mcp.example.com/mcp", new Error("Failed to fetch")))
    })
  })
})
