import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const fixtures = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "config")
const fixture = (...parts: ReadonlyArray<string>) => Path.join(fixtures, ...parts)

const fileSystem = FileSystem.layerNoop({
  readFileString: (path) => Effect.sync(() => Fs.readFileSync(path, "utf8")),
  exists: (path) => Effect.succeed(Fs.existsSync(path))
})

/** Loads a fixture's entries with `env`, recording warnings. */
const load = (path: string, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make(({ message }) => warnings.push(String(message)))
    const result = yield* McpConfig.loadEntries(path).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.provide(fileSystem),
      Effect.either
    )
    return { result, warnings: warnings.map((w) => w.replace(`${path}: `, "")) }
  })

const entries = (path: string, env: Record<string, string> = {}) =>
  Effect.map(load(path, env), ({ result, warnings }) => {
    if (result._tag === "Left") throw new Error(result.left.message)
    return { entries: result.right, warnings }
  })

const byName = (list: ReadonlyArray<McpConfig.Entry>) => Object.fromEntries(list.map((entry) => [entry.name, entry]))

describe("McpConfig: the other hosts' formats", () => {
  it.effect("Codex: [mcp_servers.*] in TOML, env_vars, bearer_token_env_var, env_http_headers, enabled", () =>
    Effect.gen(function*() {
      const path = fixture("codex-config.toml")
      const { entries: list, warnings } = yield* entries(path, {
        DOCS_TOKEN: "d",
        FIGMA_OAUTH_TOKEN: "f",
        FIGMA_ORG: "acme"
      })
      const servers = byName(list)
      assert.deepStrictEqual(Object.keys(servers), ["docs", "figma", "old"])
      assert.deepInclude(servers.docs, {
        type: "stdio",
        command: "npx",
        args: ["-y", "@acme/docs-mcp"],
        env: { DOCS_TOKEN: "d", DOCS_LANG: "en" },
        readTimeout: 60,
        disabled: false
      })
      assert.deepInclude(servers.figma, {
        type: "streamable_http",
        url: "https://mcp.figma.com/mcp",
        headers: { "X-Figma-Region": "us-east-1", "X-Org": "acme", Authorization: "Bearer f" }
      })
      assert.deepInclude(servers.old, { command: "old-server", disabled: true })
      assert.deepStrictEqual(warnings, ["server \"docs\": startup_timeout_sec is Codex's own: ignored"])
      const missing = yield* load(path, { DOCS_TOKEN: "d", FIGMA_ORG: "acme" })
      assert.isTrue(missing.result._tag === "Left")
      if (missing.result._tag === "Left") {
        assert.include(missing.result.left.message, "FIGMA_OAUTH_TOKEN is not set")
      }
    }))

  it.effect("Codex: a TOML mistake says where", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(fixtures, "..", "tmp-"))
      const path = Path.join(dir, "config.toml")
      Fs.writeFileSync(path, "[mcp_servers.a]\ncommand = \"x\"\nargs = [\n")
      const { result } = yield* load(path)
      Fs.rmSync(dir, { recursive: true })
      assert.isTrue(result._tag === "Left")
      if (result._tag === "Left") {
        assert.match(result.left.message, /config\.toml: not valid TOML at line \d+, column \d+: /)
      }
    }))

  it.effect("OpenCode: local command arrays, remote URLs, {env:NAME}, enabled, timeout in milliseconds", () =>
    Effect.gen(function*() {
      const { entries: list, warnings } = yield* entries(fixture("opencode.jsonc"), {
        DOCS_TOKEN: "d",
        SENTRY_TOKEN: "s"
      })
      const servers = byName(list)
      assert.deepInclude(servers.docs, {
        type: "stdio",
        command: "npx",
        args: ["-y", "@acme/docs-mcp"],
        env: { DOCS_TOKEN: "d" },
        disabled: false
      })
      assert.deepInclude(servers.sentry, {
        type: "streamable_http",
        url: "https://mcp.sentry.dev/mcp",
        headers: { Authorization: "Bearer s" },
        readTimeout: 10,
        oauth: undefined
      })
      assert.deepInclude(servers.off, { disabled: true })
      assert.deepStrictEqual(warnings, [])
    }))

  it.effect("Gemini CLI: url is HTTP+SSE, httpUrl Streamable HTTP, $NAME in env, timeout in milliseconds", () =>
    Effect.gen(function*() {
      const { entries: list, warnings } = yield* entries(fixture("gemini", ".gemini", "settings.json"), {
        DB_CONNECTION_STRING: "postgres://db",
        EXTERNAL_API_KEY: "k",
        API_TOKEN: "t"
      })
      const servers = byName(list)
      assert.deepInclude(servers.python, {
        type: "stdio",
        command: "python",
        args: ["-m", "my_mcp_server", "--port", "8080"],
        env: { DATABASE_URL: "postgres://db", API_KEY: "k" },
        cwd: "./mcp-servers/python",
        readTimeout: 15
      })
      assert.deepInclude(servers.events, { type: "sse", url: "http://localhost:8080/sse" })
      assert.deepInclude(servers.api, {
        type: "streamable_http",
        url: "https://api.example.com/mcp",
        headers: { Authorization: "Bearer t" }
      })
      assert.deepStrictEqual(warnings, [])
    }))

  it.effect("Zed: context_servers, custom and legacy commands, remote URLs; extensions' servers left out", () =>
    Effect.gen(function*() {
      const { entries: list, warnings } = yield* entries(fixture("zed-settings.json"), { ZED_TOKEN: "z" })
      const servers = byName(list)
      assert.deepStrictEqual(Object.keys(servers), ["docs", "legacy", "remote"])
      assert.deepInclude(servers.docs, { command: "npx", args: ["-y", "@acme/docs-mcp"], env: { DOCS_LANG: "en" } })
      assert.deepInclude(servers.legacy, { command: "/usr/local/bin/legacy-mcp", args: ["--stdio"] })
      assert.deepInclude(servers.remote, {
        type: "streamable_http",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer z" }
      })
      assert.deepStrictEqual(warnings, [
        "server \"postgres\": provided by a Zed extension, which only Zed can run: left out"
      ])
    }))

  it.effect("registry server.json: an npm package launched with npx, its declared variables from the environment", () =>
    Effect.gen(function*() {
      const path = fixture("registry", "server.json")
      const { entries: list } = yield* entries(path, { WEATHER_API_KEY: "w" })
      assert.deepStrictEqual(list.length, 1)
      assert.deepInclude(list[0], {
        name: "weather",
        type: "stdio",
        command: "npx",
        args: ["-y", "@acme/weather-mcp@1.0.2", "--units", "metric"],
        env: { WEATHER_API_KEY: "w", WEATHER_REGION: "eu" }
      })
      const { result } = yield* load(path)
      assert.isTrue(result._tag === "Left")
      if (result._tag === "Left") {
        assert.include(result.left.message, "server \"weather\": env.WEATHER_API_KEY: ${WEATHER_API_KEY}")
        assert.include(result.left.message, "WEATHER_API_KEY is not set")
      }
    }))

  it.effect("registry server.json: a remote with URL template variables and a required header", () =>
    Effect.gen(function*() {
      const path = fixture("registry", "remote-server.json")
      const { entries: list, warnings } = yield* entries(path, { TENANT_ID: "blue", X_API_KEY: "key" })
      assert.deepInclude(list[0], {
        name: "tenant-api",
        type: "streamable_http",
        url: "https://blue.api.acme.com/mcp",
        headers: { "X-API-Key": "key" }
      })
      assert.lengthOf(warnings, 1)
      assert.include(warnings[0], "registry type \"mcpb\" cannot be launched here")
      const { result } = yield* load(path, { X_API_KEY: "key" })
      assert.isTrue(result._tag === "Left")
      if (result._tag === "Left") assert.include(result.left.message, "TENANT_ID is not set")
    }))

  it.effect("registry server.json: pypi with uvx, oci with docker run (runtime arguments before the image)", () =>
    Effect.gen(function*() {
      const decode = (packages: ReadonlyArray<unknown>, env: Record<string, string> = {}) =>
        McpConfig.decode({ name: "io.github.acme/tool", packages }, { source: "server.json" }).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
        )
      const [pypi] = yield* decode([{ registryType: "pypi", identifier: "acme-tool", version: "0.3.0" }])
      assert.deepInclude(pypi, { name: "tool", command: "uvx", args: ["acme-tool==0.3.0"] })
      const [oci] = yield* decode([{
        registryType: "oci",
        identifier: "ghcr.io/acme/tool:1",
        runtimeArguments: [{
          type: "named",
          name: "-e",
          value: "TOKEN={token}",
          variables: { token: { isRequired: true } }
        }],
        packageArguments: [{ type: "positional", value: "serve" }]
      }], { TOKEN: "t" })
      assert.deepInclude(oci, {
        command: "docker",
        args: ["run", "-i", "--rm", "-e", "TOKEN=t", "ghcr.io/acme/tool:1", "serve"]
      })
    }))

  it("the new hosts' locations on macOS, Windows and Linux", () => {
    const env = (platform: string): McpConfig.HostEnvironment => ({
      platform,
      home: platform === "win32" ? "C:\\Users\\ada" : platform === "darwin" ? "/Users/ada" : "/home/ada",
      appData: platform === "win32" ? "C:\\Users\\ada\\AppData\\Roaming" : undefined
    })
    assert.deepStrictEqual(McpConfig.hostPaths("codex", env("darwin")), [
      "./.codex/config.toml",
      "/Users/ada/.codex/config.toml"
    ])
    assert.deepStrictEqual(
      McpConfig.hostPaths("codex", { ...env("linux"), codexHome: "/opt/codex" })[1],
      "/opt/codex/config.toml"
    )
    assert.deepStrictEqual(McpConfig.hostPaths("opencode", env("linux")), [
      "./opencode.jsonc",
      "./opencode.json",
      "/home/ada/.config/opencode/opencode.jsonc",
      "/home/ada/.config/opencode/opencode.json"
    ])
    assert.deepStrictEqual(McpConfig.hostPaths("gemini", env("win32")), [
      ".\\.gemini\\settings.json",
      "C:\\Users\\ada\\.gemini\\settings.json"
    ])
    assert.deepStrictEqual(McpConfig.hostPaths("zed", env("darwin"))[1], "/Users/ada/.config/zed/settings.json")
    assert.deepStrictEqual(
      McpConfig.hostPaths("zed", env("win32"))[1],
      "C:\\Users\\ada\\AppData\\Roaming\\Zed\\settings.json"
    )
  })
})
