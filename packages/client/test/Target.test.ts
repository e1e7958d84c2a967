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

  it.effect("names a stdio server after what it runs and refuses an empty one", () =>
    Effect.gen(function*() {
      const config = yield* Target.toConfig("/usr/bin/python3 weather.py")
      assert.deepStrictEqual([config.name, config.kind], ["weather", "stdio"])
      assert.strictEqual((yield* Target.toConfig("npx -y x", { name: "given" })).name, "given")
      assert.instanceOf(yield* Effect.flip(Target.toConfig("   ")), ConfigError)
    }))

  it("default names: the package, script, module or image behind the launchers", () => {
    const names: ReadonlyArray<readonly [Target.Target, string]> = [
      ["npx -y @modelcontextprotocol/server-everything stdio", "server-everything"],
      ["npx --yes -p @scope/tools@1.2.3 mcp-tools --flag", "mcp-tools"],
      ["npx -- @modelcontextprotocol/server-filesystem@latest /home", "server-filesystem"],
      [["C:\\Program Files\\nodejs\\npx.cmd", "-y", "@scope/server-x"], "server-x"],
      ["cmd /c npx -y @scope/server-y", "server-y"],
      ["npm exec -y -- server-z", "server-z"],
      ["pnpm dlx @scope/server-w", "server-w"],
      ["bunx server-v", "server-v"],
      ["node ./dist/server.js", "server"],
      ["node --import tsx/esm /srv/weather/dist/index.js --port 3", "weather"],
      ["env DEBUG=1 node lib/main.mjs", "main"],
      ["npx tsx src/tools.ts", "tools"],
      ["uvx mcp-server-fetch", "mcp-server-fetch"],
      ["uvx --from mcp-server-git==1.0 mcp-server-git --repo .", "mcp-server-git"],
      ["uvx mcp-server-time[extras]>=2", "mcp-server-time"],
      ["uv run --with httpx --directory /srv/x python -m my_server", "my_server"],
      ["uv tool run mcp-server-sqlite", "mcp-server-sqlite"],
      ["pipx run --spec x weather-mcp", "weather-mcp"],
      ["python3 -u -m mcp_server_git.cli", "mcp_server_git.cli"],
      ["/usr/bin/python3.12 -m mcp_server_time", "mcp_server_time"],
      ["deno run -A npm:@scope/deno-server@2", "deno-server"],
      ["docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server:latest", "github-mcp-server"],
      ["podman run -i -v /a:/b mcp/fetch@sha256:abc", "fetch"],
      ["/usr/local/bin/my-server --stdio", "my-server"],
      [["node", "/opt/with space/dist/index.js"], "with-space"],
      ["npx -y", "npx"],
      ["npm start", "npm"],
      ["node -e 'x'", "node"],
      ["http://localhost:3000/mcp", "localhost:3000"]
    ]
    for (const [target, name] of names) assert.strictEqual(Target.defaultName(target), name, String(target))
  })
})
