import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@mcp-effect/client/McpError"
import * as Target from "@mcp-effect/client/Target"
import * as Effect from "effect/Effect"

describe("Target", () => {
  it("applies the detection table", () => {
    assert.deepStrictEqual(Target.detect("http://localhost:8000/sse"), {
      transport: "sse",
      url: "http://localhost:8000/sse"
    })
    assert.deepStrictEqual(Target.detect("https://example.com/mcp/"), {
      transport: "streamable_http",
      url: "https://example.com/mcp/"
    })
    assert.deepStrictEqual(Target.detect("http://example.com/api"), {
      transport: "auto",
      url: "http://example.com/api"
    })
    assert.deepStrictEqual(Target.detect("stdio://node server.js --flag"), {
      transport: "stdio",
      argv: ["node", "server.js", "--flag"]
    })
    assert.deepStrictEqual(Target.detect("npx -y @modelcontextprotocol/server-filesystem /home"), {
      transport: "stdio",
      argv: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/home"]
    })
    assert.deepStrictEqual(Target.detect(["python", "server.py"]), {
      transport: "stdio",
      argv: ["python", "server.py"]
    })
  })

  it("splits command lines with quotes and escapes", () => {
    assert.deepStrictEqual(Target.splitCommandLine(`node "my server.js" 'a b' c\\ d ""`), [
      "node",
      "my server.js",
      "a b",
      "c d",
      ""
    ])
  })

  it("tells a list of targets from one argv array", () => {
    assert.isFalse(Target.isTargetList(["node", "server.js"]))
    assert.isTrue(Target.isTargetList(["http://a/mcp", "http://b/mcp"]))
    assert.isTrue(Target.isTargetList(["node a.js", "node b.js"]))
    assert.isTrue(Target.isTargetList([["node", "a.js"], ["node", "b.js"]]))
  })

  it.effect("names a stdio server after its command and refuses an empty one", () =>
    Effect.gen(function*() {
      const config = yield* Target.toConfig("/usr/bin/python3 server.py")
      assert.deepStrictEqual([config.name, config.kind], ["python3", "stdio"])
      assert.instanceOf(yield* Effect.flip(Target.toConfig("   ")), ConfigError)
    }))
})
