import * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as McpAuth from "@mcp-effect/client/McpAuth"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import { ConfigError } from "@mcp-effect/client/McpError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const fixtures = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "config")
const fixture = (name: string) => Path.join(fixtures, name)

/** A file system of the real files, or of `files` when given (paths → contents). */
const fileSystem = (files?: Record<string, string>) =>
  FileSystem.layerNoop({
    readFileString: (path) =>
      files !== undefined && !(path in files)
        ? Effect.fail(
          new PlatformError.SystemError({ reason: "NotFound", module: "FileSystem", method: "readFile" })
        )
        : Effect.sync(() => files?.[path] ?? Fs.readFileSync(path, "utf8")),
    exists: (path) => Effect.succeed(files === undefined ? Fs.existsSync(path) : path in files)
  })

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** Runs with the fixtures' file system and `env`, recording warnings. */
const run = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make(({ message }) => warnings.push(String(message)))
    const result = yield* effect.pipe(
      withEnv(env),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.provide(fileSystem())
    )
    return { result, warnings }
  })

const failure = (effect: Effect.Effect<unknown, ConfigError, FileSystem.FileSystem>, env?: Record<string, string>) =>
  Effect.map(run(Effect.flip(effect), env), ({ result }) => result.message.split("\n"))

describe("McpConfig host formats", () => {
  it.effect("Claude Desktop: stdio entries, ${VAR} in env, the host's other keys ignored", () =>
    Effect.gen(function*() {
      const path = fixture("claude_desktop_config.json")
      const { result, warnings } = yield* run(McpConfig.loadEntries(path), { GITHUB_TOKEN: "ghp_1" })
      assert.deepStrictEqual(result, [
        {
          name: "filesystem",
          type: "stdio",
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ada/Desktop", "/Users/ada/Downloads"],
          env: undefined,
          cwd: undefined,
          readTimeout: undefined,
          disabled: false
        },
        {
          name: "github",
          type: "stdio",
          command: "docker",
          args: ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_1" },
          cwd: undefined,
          readTimeout: undefined,
          disabled: false
        }
      ])
      assert.deepStrictEqual(warnings, [])
    }))

  it.effect("Cursor: a url-only entry is Streamable HTTP; ${env:VAR}, ${workspaceFolder}, ${userHome}", () =>
    Effect.gen(function*() {
      const path = fixture("cursor-mcp.json")
      const { result } = yield* run(McpConfig.loadEntries(path, { home: "/home/ada" }), { LINEAR_TOKEN: "lin" })
      assert.deepStrictEqual(result.map((e) => [e.name, e.type]), [["linear", "streamable_http"], ["notes", "stdio"]])
      const [linear, notes] = result
      assert.deepStrictEqual(linear?.type !== "stdio" && linear?.headers, { Authorization: "Bearer lin" })
      assert.deepStrictEqual(notes?.type === "stdio" && [notes.args, notes.env], [
        [`${fixtures}/tools/notes-server.js`],
        { NOTES_DIR: "/home/ada/notes" }
      ])
    }))

  it.effect("Windsurf: serverUrl; a disabled entry is listed but not configured", () =>
    Effect.gen(function*() {
      const path = fixture("windsurf-mcp_config.json")
      const { result: entries } = yield* run(McpConfig.loadEntries(path))
      assert.deepStrictEqual(entries.map((e) => [e.name, e.type, e.disabled]), [
        ["figma", "streamable_http", false],
        ["postgres", "stdio", true]
      ])
      const { result: configs } = yield* run(McpConfig.load(path))
      assert.deepStrictEqual(configs.map((c) => c.name), ["figma"])
    }))

  it.effect("Claude Code: \"http\" is Streamable HTTP (falling back to SSE), ${VAR:-default}", () =>
    Effect.gen(function*() {
      const path = fixture("claude-code.mcp.json")
      const { result: entries } = yield* run(McpConfig.loadEntries(path), { SENTRY_ORG: "" })
      assert.deepStrictEqual(entries.map((e) => [e.name, e.type]), [
        ["sentry", "streamable_http"],
        ["asana", "sse"],
        ["airtable", "stdio"]
      ])
      const [sentry, , airtable] = entries
      assert.deepStrictEqual(sentry?.type !== "stdio" && [sentry.url, sentry.headers], [
        "https://mcp.sentry.dev/mcp",
        { "X-Org": "acme" }
      ])
      assert.deepStrictEqual(airtable?.type === "stdio" && airtable.env, { AIRTABLE_API_KEY: "" })
      const { result: configs } = yield* run(McpConfig.load(path), { SENTRY_URL: "https://sentry.internal/mcp" })
      assert.deepStrictEqual(configs.map((c) => [c.kind, c.fallbacks?.map((f) => f.kind)]), [
        ["streamable_http", ["sse"]],
        ["sse", undefined],
        ["stdio", undefined]
      ])
    }))

  it.effect("VS Code mcp.json: servers, comments and trailing commas; inputs ignored with a warning", () =>
    Effect.gen(function*() {
      const path = fixture("vscode-mcp.json")
      const { result, warnings } = yield* run(McpConfig.loadEntries(path), { GITHUB_TOKEN: "gh" })
      assert.deepStrictEqual(result.map((e) => [e.name, e.type]), [["memory", "stdio"], ["github", "streamable_http"]])
      assert.deepStrictEqual(warnings, [
        `${path}: "inputs" (VS Code prompts) are ignored: an entry using \${input:…} fails`
      ])
    }))

  it.effect("VS Code user settings: the servers under \"mcp\"", () =>
    Effect.gen(function*() {
      const { result } = yield* run(McpConfig.loadEntries(fixture("vscode-settings.json")))
      assert.deepStrictEqual(result.map((e) => [e.name, e.type]), [["fetch", "stdio"]])
    }))

  it.effect("every Streamable HTTP spelling, SSE, and plain JSON-RPC HTTP by \"plain_http\" only", () =>
    Effect.gen(function*() {
      const { result } = yield* run(McpConfig.load(fixture("transports.json")))
      assert.deepStrictEqual(result.map((c) => [c.name, c.kind, c.readTimeout]), [
        ["a", "streamable_http", undefined],
        ["b", "streamable_http", undefined],
        ["c", "streamable_http", undefined],
        ["d", "sse", 5000],
        ["e", "http", undefined]
      ])
    }))
})

describe("McpConfig errors", () => {
  it.effect("one line per problem: file, server, field, what was expected", () =>
    Effect.gen(function*() {
      const path = fixture("broken.json")
      const lines = yield* failure(McpConfig.load(path))
      assert.deepStrictEqual(lines, [
        `${path}: server "nothing": expected "command" (a stdio server) or "url" (an HTTP server)`,
        `${path}: server "both": has both "command" and "url": set "type" to say which`,
        `${path}: server "ftp": type: expected "stdio", "http" (Streamable HTTP), "sse" or "plain_http", got "ftp"`,
        `${path}: server "badargs": args[1]: expected a string, got a number`,
        `${path}: server "badargs": env.PORT: expected a string, got a number`,
        `${path}: server "badurl": url: "localhost:3000/mcp": not a valid http:// or https:// URL`,
        `${path}: server "secret": headers.Authorization: \${API_TOKEN}: API_TOKEN is not set ` +
        "(write ${API_TOKEN:-default} for a default)",
        `${path}: server "oldhttp": endpoint: applies to "type": "plain_http" only ` +
        "(\"http\" means Streamable HTTP, as in every host)",
        `${path}: server "mixed": headers: applies to HTTP entries only`
      ])
    }))

  it.effect("a missing variable is named; a default or a set variable is not an error", () =>
    Effect.gen(function*() {
      const document = { mcpServers: { s: { command: "${BIN}", args: ["--token=${env:TOKEN}"] } } }
      assert.deepStrictEqual(yield* failure(McpConfig.decode(document), { BIN: "node" }), [
        "server \"s\": args[0]: ${env:TOKEN}: TOKEN is not set (write ${TOKEN:-default} for a default)"
      ])
      const { result } = yield* run(McpConfig.decode(document), { BIN: "node", TOKEN: "t" })
      assert.deepStrictEqual(result[0]?.type === "stdio" && [result[0].command, result[0].args], ["node", [
        "--token=t"
      ]])
    }))

  it.effect("includeTools, excludeTools and disabledTools become the server's tool filter", () =>
    Effect.gen(function*() {
      const document = {
        mcpServers: {
          gemini: { command: "gemini-tools", includeTools: ["read_*"], excludeTools: ["read_secret"] },
          cursor: { url: "https://c.example.com/mcp", disabledTools: ["delete_*"] },
          plain: { command: "plain" },
          bad: { command: "x", includeTools: "read_*" }
        }
      }
      assert.deepStrictEqual(yield* failure(McpConfig.decode(document)), [
        "server \"bad\": includeTools: expected an array of strings, got a string"
      ])
      delete (document.mcpServers as Record<string, unknown>).bad
      const { result } = yield* run(McpConfig.decode(document))
      assert.deepStrictEqual(result.map((entry) => entry.tools), [
        { include: ["read_*"], exclude: ["read_secret"] },
        { exclude: ["delete_*"] },
        undefined
      ])
      const configs = yield* McpConfig.parse(document)
      assert.deepStrictEqual(configs.map((config) => config.tools), [
        { include: ["read_*"], exclude: ["read_secret"] },
        { exclude: ["delete_*"] },
        undefined
      ])
    }))

  it.effect("maxResultChars and maxResultBytes become the server's result limits (issue #36, point 3)", () =>
    Effect.gen(function*() {
      const document = {
        mcpServers: {
          big: { command: "big", maxResultChars: 20000 },
          web: { url: "https://w.example.com/mcp", maxResultBytes: 65536 },
          bad: { command: "x", maxResultChars: -1 }
        }
      }
      assert.deepStrictEqual(yield* failure(McpConfig.decode(document)), [
        "server \"bad\": maxResultChars: expected a whole number from 0, got a number"
      ])
      delete (document.mcpServers as Record<string, unknown>).bad
      const configs = yield* McpConfig.parse(document)
      assert.deepStrictEqual(configs.map((c) => [c.maxResultChars, c.maxResultBytes]), [
        [20000, undefined],
        [undefined, 65536]
      ])
    }))

  it.effect("toolPrefix and toolNames become the server's tool naming", () =>
    Effect.gen(function*() {
      const document = {
        mcpServers: {
          github: { command: "gh-mcp", toolPrefix: true, toolNames: { create_issue: "new_issue" } },
          files: { url: "https://f.example.com/mcp", toolPrefix: "fs" },
          plain: { command: "plain", toolPrefix: false },
          bad: { command: "x", toolPrefix: 3, toolNames: { a: 1, b: "" } }
        }
      }
      assert.deepStrictEqual(yield* failure(McpConfig.decode(document)), [
        "server \"bad\": toolPrefix: expected a string, got a number",
        "server \"bad\": toolNames.a: expected a string, got a number",
        "server \"bad\": toolNames.b: expected a name, got an empty string"
      ])
      delete (document.mcpServers as Record<string, unknown>).bad
      const configs = yield* McpConfig.parse(document)
      assert.deepStrictEqual(configs.map((config) => [config.toolPrefix, config.toolNames]), [
        [true, { create_issue: "new_issue" }],
        ["fs", undefined],
        [undefined, undefined]
      ])
    }))

  it.effect("a VS Code ${input:…} reference and a malformed reference are errors", () =>
    Effect.gen(function*() {
      const document = {
        servers: { p: { url: "https://p.example.com/mcp", headers: { Key: "${input:key}", Other: "${not a var}" } } }
      }
      assert.deepStrictEqual(yield* failure(McpConfig.decode(document)), [
        "server \"p\": headers.Key: ${input:key} is a VS Code input prompt, which only VS Code can ask; " +
        "use ${env:NAME} instead",
        "server \"p\": headers.Other: ${not a var} is not a variable (expected ${NAME}, ${env:NAME} or ${NAME:-default})"
      ])
    }))

  it.effect("the document itself: not JSON (with the position), no servers, both keys", () =>
    Effect.gen(function*() {
      const files = { "bad.json": "{\n  \"mcpServers\": {\n    \"a\": { \"command\": node }\n  }\n}" }
      const [syntax] = yield* Effect.flip(McpConfig.load("bad.json")).pipe(
        Effect.map((e) => e.message.split("\n")),
        Effect.provide(fileSystem(files))
      )
      assert.match(syntax!, /^bad\.json: not valid JSON at line 3, column 23: unexpected token/)
      const missing = yield* Effect.flip(McpConfig.load("gone.json")).pipe(Effect.provide(fileSystem(files)))
      assert.strictEqual(missing.message, "gone.json: no such file")
      assert.deepStrictEqual(yield* failure(McpConfig.decode({ servers: [] })), [
        "\"servers\": expected an object of servers by name, got an array"
      ])
      assert.deepStrictEqual(yield* failure(McpConfig.decode({ mcpServers: {}, servers: {} })), [
        "has both \"mcpServers\" and \"servers\": keep one"
      ])
      assert.deepStrictEqual(yield* failure(McpConfig.decode([])), [
        "expected a JSON object with \"mcpServers\" (Claude Desktop, Cursor, Windsurf, Claude Code) or \"servers\" " +
        "(VS Code), got an array"
      ])
      assert.deepStrictEqual((yield* run(McpConfig.parse({ servers: {} }))).result, [])
    }))

  it.effect("unknown fields are warnings, other hosts' fields are ignored", () =>
    Effect.gen(function*() {
      const document = { mcpServers: { s: { command: "node", autoApprove: ["x"], colour: "red", envFile: ".env" } } }
      const { result, warnings } = yield* run(McpConfig.decode(document))
      assert.strictEqual(result.length, 1)
      assert.deepStrictEqual(warnings, [
        "server \"s\": ignoring unknown field \"colour\"",
        "server \"s\": envFile is not supported: its variables are not loaded (use \"env\")"
      ])
    }))

  it.effect("a field close to one the entry reads is named, with the one meant: a problem, not a warning", () =>
    Effect.gen(function*() {
      const document = {
        mcpServers: {
          a: { comand: "node", args: ["server.js"] },
          b: { command: "node", evn: { TOKEN: "t" }, Disabled: true },
          c: { url: "https://x.example.com/mcp", header: { Authorization: "Bearer t" }, read_timeout: 5 },
          d: { uri: "https://x.example.com/mcp" }
        }
      }
      assert.deepStrictEqual(yield* failure(McpConfig.decode(document)), [
        "server \"a\": comand: unknown field (did you mean \"command\"?)",
        "server \"b\": evn: unknown field (did you mean \"env\"?)",
        "server \"b\": Disabled: unknown field (did you mean \"disabled\"?)",
        "server \"c\": header: unknown field (did you mean \"headers\"?)",
        "server \"c\": read_timeout: unknown field (did you mean \"readTimeout\"?)",
        "server \"d\": uri: unknown field (did you mean \"url\"?)"
      ])
      // Far from every field we read (or another host's): a warning naming it, as before.
      const { warnings } = yield* run(McpConfig.decode({ mcpServers: { s: { command: "node", tags: ["x"] } } }))
      assert.deepStrictEqual(warnings, ["server \"s\": ignoring unknown field \"tags\""])
    }))

  it.effect("an empty server list is a warning", () =>
    Effect.gen(function*() {
      const { result, warnings } = yield* run(McpConfig.decode({ mcpServers: {} }))
      assert.deepStrictEqual([result, warnings], [[], ["\"mcpServers\" is empty: there is no server to connect"]])
    }))
})

describe("McpConfig lookup", () => {
  it.effect("a missing bare word names the host it is close to", () =>
    Effect.gen(function*() {
      const missing = (value: string) =>
        Effect.map(
          Effect.flip(Effect.flatMap(McpConfig.resolve(value), McpConfig.read).pipe(Effect.provide(fileSystem({})))),
          (error) => error.message
        )
      assert.strictEqual(yield* missing("claud"), "claud: no such file (did you mean claude?)")
      assert.strictEqual(yield* missing("VSCode"), "VSCode: no such file (did you mean vscode?)")
      assert.strictEqual(yield* missing("claude_code"), "claude_code: no such file (did you mean claude-code?)")
      assert.strictEqual(
        yield* missing("servers"),
        "servers: no such file (nor a host: claude, claude-code, cursor, vscode, windsurf, codex, opencode, gemini, zed)"
      )
      assert.strictEqual(yield* missing("./claud.json"), "./claud.json: no such file")
    }))

  const environment = (platform: string): McpConfig.HostEnvironment => ({
    platform,
    home: platform === "win32" ? "C:\\Users\\ada" : platform === "darwin" ? "/Users/ada" : "/home/ada",
    appData: platform === "win32" ? "C:\\Users\\ada\\AppData\\Roaming" : undefined
  })

  it("knows where Claude Desktop, Cursor and VS Code keep their files on macOS, Windows and Linux", () => {
    const paths = (platform: string) =>
      Object.fromEntries(
        McpConfig.hosts.slice(0, 5).map((host) => [host, McpConfig.hostPaths(host, environment(platform))])
      )
    assert.deepStrictEqual(paths("darwin"), {
      claude: ["/Users/ada/Library/Application Support/Claude/claude_desktop_config.json"],
      "claude-code": ["./.mcp.json", "/Users/ada/.claude.json"],
      cursor: ["./.cursor/mcp.json", "/Users/ada/.cursor/mcp.json"],
      vscode: [
        "./.vscode/mcp.json",
        "/Users/ada/Library/Application Support/Code/User/mcp.json",
        "/Users/ada/Library/Application Support/Code/User/settings.json"
      ],
      windsurf: ["/Users/ada/.codeium/windsurf/mcp_config.json"]
    })
    const windows = paths("win32")
    assert.deepStrictEqual(windows.claude, ["C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json"])
    assert.deepStrictEqual(windows.vscode?.[1], "C:\\Users\\ada\\AppData\\Roaming\\Code\\User\\mcp.json")
    const linux = paths("linux")
    assert.deepStrictEqual(linux.claude, ["/home/ada/.config/Claude/claude_desktop_config.json"])
    assert.deepStrictEqual(linux.vscode?.[2], "/home/ada/.config/Code/User/settings.json")
    assert.deepStrictEqual(
      McpConfig.hostPaths("vscode", { ...environment("linux"), xdgConfigHome: "/xdg" })[1],
      "/xdg/Code/User/mcp.json"
    )
  })

  it.effect("find: MCP_CONFIG (a path or a host), else ./.mcp.json, else ./mcp.json, else nothing", () =>
    Effect.gen(function*() {
      const find = (files: Record<string, string>, env: Record<string, string> = {}) =>
        McpConfig.find(environment("linux")).pipe(withEnv(env), Effect.provide(fileSystem(files)))
      assert.deepStrictEqual(yield* find({ ".mcp.json": "", "mcp.json": "" }), Option.some(".mcp.json"))
      assert.deepStrictEqual(yield* find({ "mcp.json": "" }), Option.some("mcp.json"))
      assert.deepStrictEqual(yield* find({}), Option.none())
      assert.deepStrictEqual(
        yield* find({ "mcp.json": "" }, { MCP_CONFIG: "/etc/mcp.json" }),
        Option.some("/etc/mcp.json")
      )
      const cursor = "/home/ada/.cursor/mcp.json"
      assert.deepStrictEqual(yield* find({ [cursor]: "" }, { MCP_CONFIG: "cursor" }), Option.some(cursor))
    }))

  it.effect("findHost: the first existing location, or an error listing where it looked", () =>
    Effect.gen(function*() {
      const files = { "./.vscode/mcp.json": "", "/home/ada/.config/Code/User/mcp.json": "" }
      const found = McpConfig.findHost("vscode", environment("linux")).pipe(Effect.provide(fileSystem(files)))
      assert.strictEqual(yield* found, "./.vscode/mcp.json")
      const missing = yield* Effect.flip(
        McpConfig.findHost("claude", environment("linux")).pipe(Effect.provide(fileSystem({})))
      )
      assert.strictEqual(
        missing.message,
        "no Claude Desktop configuration found (looked in /home/ada/.config/Claude/claude_desktop_config.json)"
      )
    }))

  it.effect("fromHost loads the host's file", () =>
    Effect.gen(function*() {
      const path = "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json"
      const files = { [path]: Fs.readFileSync(fixture("claude_desktop_config.json"), "utf8") }
      const configs = yield* McpConfig.fromHost("claude", { environment: environment("darwin") }).pipe(
        withEnv({ GITHUB_TOKEN: "t" }),
        Effect.provide(fileSystem(files))
      )
      assert.deepStrictEqual(configs.map((c) => [c.name, c.kind]), [["filesystem", "stdio"], ["github", "stdio"]])
    }))
})

describe("McpConfig oauth entries", () => {
  const recording = () => {
    const entries: Array<McpConfig.OAuthEntry> = []
    return {
      entries,
      oauth: (entry: McpConfig.OAuthEntry) =>
        Effect.sync(() => {
          entries.push(entry)
          return McpAuth.fromHeaders({})
        })
    }
  }

  it.effect("passes a stdio entry's inheritEnv on, and refuses one that is not a boolean", () =>
    Effect.gen(function*() {
      const entries = yield* McpConfig.decode({
        mcpServers: { all: { command: "node", inheritEnv: true }, safe: { command: "node" } }
      })
      assert.deepStrictEqual(entries.map((entry) => entry.type === "stdio" && entry.inheritEnv), [true, undefined])
      const refused = yield* Effect.flip(
        McpConfig.decode({ mcpServers: { bad: { command: "node", inheritEnv: "yes" } } })
      )
      assert.include(refused.message, "inheritEnv")
    }))

  it.effect("hands each HTTP entry's oauth to the host; true means defaults, false none", () =>
    Effect.gen(function*() {
      const host = recording()
      const configs = yield* McpConfig.parse({
        mcpServers: {
          interactive: { type: "streamable_http", url: "https://a.example.com/mcp", oauth: true },
          registered: {
            type: "plain_http",
            url: "https://b.example.com/rpc",
            oauth: { clientId: "c", issuer: "https://auth.example.com", scope: "files:read", storage: "t.json" }
          },
          off: { type: "sse", url: "https://c.example.com/sse", oauth: false },
          local: { command: "node", args: ["server.js"] }
        }
      }, host)
      assert.deepStrictEqual(configs.map((c) => c.name), ["interactive", "registered", "off", "local"])
      assert.deepStrictEqual(host.entries, [
        { name: "interactive", url: "https://a.example.com/mcp", settings: {} },
        {
          name: "registered",
          url: "https://b.example.com/rpc",
          settings: { clientId: "c", issuer: "https://auth.example.com", scope: "files:read", storage: "t.json" }
        }
      ])
    }))

  it.effect("refuses oauth it cannot honour, naming the entry", () =>
    Effect.gen(function*() {
      const host = recording()
      const refused = (entry: unknown, options: McpConfig.ParseOptions = host) =>
        Effect.map(Effect.flip(McpConfig.parse({ mcpServers: { bad: entry } }, options)), (e) => e.message)
      const http = { type: "streamable_http", url: "https://a.example.com/mcp" }
      assert.include(yield* refused({ ...http, oauth: true }, {}), "oauth needs a host")
      assert.strictEqual(
        yield* refused({ command: "node", oauth: true }),
        "server \"bad\": oauth: applies to HTTP entries only"
      )
      assert.strictEqual(
        yield* refused({ ...http, oauth: { client_id: "c", timeout: -1 } }),
        "server \"bad\": oauth.client_id: unknown setting (did you mean \"clientId\"?)\n" +
          "server \"bad\": oauth.timeout: expected a positive number, got a number"
      )
      assert.include(
        yield* refused({ ...http, headers: { Authorization: "Bearer t" }, oauth: true }),
        "exclude each other"
      )
      const unbound = yield* refused({ ...http, oauth: { clientId: "c" } })
      assert.include(unbound, "bad")
      assert.include(unbound, "issuer")
      assert.deepStrictEqual(host.entries, [])
    }))

  it.effect("maps settings to OAuth options: issuer-bound pre-registration, client credentials", () =>
    Effect.gen(function*() {
      const url = "https://a.example.com/mcp"
      const pre = yield* McpConfig.oauthOptions(url, { clientId: "c", clientSecret: "s", issuer: "https://as" })
      assert.deepStrictEqual(pre.preRegistered, {
        clientId: "c",
        clientSecret: "s",
        issuer: "https://as",
        tokenEndpointAuthMethod: undefined
      })
      const m2m = yield* McpConfig.oauthOptions(url, {
        grant: "client_credentials",
        clientId: "m",
        clientSecret: "s",
        scope: "a b"
      })
      assert.deepStrictEqual(m2m.grant, {
        _tag: "ClientCredentials",
        clientId: "m",
        clientSecret: "s",
        tokenEndpointAuthMethod: undefined,
        issuer: undefined,
        scope: "a b"
      })
      const unbound = yield* Effect.flip(McpConfig.oauthOptions(url, { clientId: "c" }))
      assert.instanceOf(unbound, ConfigError)
      assert.include(unbound.message, "issuer")
    }))
})
