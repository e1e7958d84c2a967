// The built executable, spawned: servers from files, output modes, exit statuses and errors.
import { assert, describe, it } from "@effect/vitest"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { ANSI, cli, fakeEntry, interrupted, onTerminal, tempDir, terminalAvailable, writeJson } from "./utils.js"

const demoNote = "using the embedded demo server"

describe("configuration files", () => {
  it.scopedLive("--config FILE: the file's servers, no demo server", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = writeJson(dir, "servers.json", { mcpServers: { fake: fakeEntry } })
      const result = yield* cli(["call", "echo", "message=from the file", "--config", file])
      assert.deepStrictEqual([result.code, result.stdout, result.stderr], [0, "from the file\n", ""])
    }))

  it.scopedLive("without --config: MCP_CONFIG, then ./.mcp.json, then ./mcp.json", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeJson(dir, "mcp.json", { mcpServers: { plain: fakeEntry } })
      const names = (env?: Record<string, string>) =>
        Effect.map(cli(["servers", "--json"], { cwd: dir, env }), (r) =>
          (JSON.parse(r.stdout) as { servers: Array<{ name: string }> }).servers.map((s) => s.name))
      assert.deepStrictEqual(yield* names(), ["plain"])
      writeJson(dir, ".mcp.json", { mcpServers: { dotted: fakeEntry } })
      assert.deepStrictEqual(yield* names(), ["dotted"])
      const named = writeJson(dir, "elsewhere.json", { servers: { named: fakeEntry } })
      assert.deepStrictEqual(yield* names({ MCP_CONFIG: named }), ["named"])
    }))

  it.scopedLive("--config HOST reads the host's file (Cursor's, under HOME)", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      writeJson(home, ".cursor/mcp.json", { mcpServers: { cursorFake: fakeEntry } })
      const result = yield* cli(["tools", "--config", "cursor"], { env: { HOME: home } })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stdout, "echo(message: string)")
    }))

  it.live("no target and no configuration: the demo server, and stderr says so", () =>
    Effect.gen(function*() {
      const result = yield* cli(["tools"])
      assert.strictEqual(result.code, 0)
      assert.include(result.stdout, "echo(message: string)")
      assert.include(result.stderr, demoNote)
    }))

  it.scopedLive("an empty server list, or every server disabled, is a warning", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeJson(dir, "mcp.json", { mcpServers: {} })
      const empty = yield* cli(["tools"], { cwd: dir })
      assert.deepStrictEqual([empty.code, empty.stdout], [0, "no tools\n"])
      assert.strictEqual(empty.stderr, "warn: mcp.json: \"mcpServers\" is empty: there is no server to connect\n")
      writeJson(dir, "mcp.json", { mcpServers: { off: { ...fakeEntry, disabled: true } } })
      const disabled = yield* cli(["tools"], { cwd: dir })
      assert.strictEqual(disabled.stderr, "warn: every server is disabled (--server NAME connects a disabled one)\n")
    }))

  it.live("--config with a near miss of a host's name says which host", () =>
    Effect.gen(function*() {
      const result = yield* cli(["tools", "--config", "claud"])
      assert.deepStrictEqual([result.code, result.stderr], [
        1,
        "error: ConfigError: claud: no such file (did you mean claude?)\n"
      ])
    }))

  it.scopedLive("a broken file: one line per problem, naming file, server and field; exit 1", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = writeJson(dir, "mcp.json", {
        mcpServers: {
          a: { type: "stdio" },
          b: { url: "https://x.example.com/mcp", headers: { Auth: "${NO_SUCH_VAR}" } },
          c: { comand: "node" }
        }
      })
      const result = yield* cli(["tools"], { cwd: dir })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(
        result.stderr,
        `error: ConfigError: mcp.json: server "a": command: missing (a stdio entry runs a command)\n` +
          `error: ConfigError: mcp.json: server "b": headers.Auth: \${NO_SUCH_VAR}: NO_SUCH_VAR is not set ` +
          "(write ${NO_SUCH_VAR:-default} for a default)\n" +
          `error: ConfigError: mcp.json: server "c": comand: unknown field (did you mean "command"?)\n`
      )
      assert.notInclude(result.stderr, "is missing")
      assert.isTrue(Fs.existsSync(file))
    }))
})

describe("choosing a server and a tool", () => {
  it.scopedLive("--server NAME connects that server only (another one may be down)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeJson(dir, "mcp.json", { mcpServers: { fake: fakeEntry, down: { url: "http://127.0.0.1:1/mcp" } } })
      const result = yield* cli(["call", "add", "a=1", "b=2", "--server", "fake"], { cwd: dir })
      assert.deepStrictEqual([result.code, result.stdout], [0, "3\nstructuredContent: {\"sum\":3}\n"])
    }))

  it.scopedLive("call server.tool key=value: JSON values when they parse, else strings", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeJson(dir, "mcp.json", { mcpServers: { files: fakeEntry, down: { url: "http://127.0.0.1:1/mcp" } } })
      const sum = yield* cli(["call", "files.add", "a=40", "b=2", "--json"], { cwd: dir })
      assert.deepStrictEqual(JSON.parse(sum.stdout).structuredContent, { sum: 42 })
      const text = yield* cli(["call", "files.echo", "message=hello world"], { cwd: dir })
      assert.deepStrictEqual([text.code, text.stdout], [0, "hello world\n"])
      const bad = yield* cli(["call", "files.echo", "message"], { cwd: dir })
      assert.deepStrictEqual([bad.code, bad.stderr], [2, "error: UsageError: expected KEY=VALUE, got \"message\"\n"])
    }))
})

describe("--json", () => {
  const commands: ReadonlyArray<ReadonlyArray<string>> = [
    ["servers"],
    ["tools"],
    ["prompts"],
    ["resources"],
    ["read", "demo://readme"],
    ["call", "echo", "message=hi"],
    ["get-prompt", "greeting", "name=Ada"],
    ["demo"]
  ]
  it.scopedLive("every command prints one JSON document on stdout, logs on stderr", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeJson(dir, "mcp.json", { mcpServers: { fake: fakeEntry } })
      const results = yield* Effect.forEach(commands, (args) => cli([...args, "--json"], { cwd: dir }), {
        concurrency: 2
      })
      results.forEach((result, i) => {
        assert.strictEqual(result.code, 0, `${commands[i]!.join(" ")}: ${result.stderr}`)
        assert.doesNotThrow(() => JSON.parse(result.stdout), undefined, commands[i]!.join(" "))
      })
      const [servers, tools] = results.map((r) => JSON.parse(r.stdout))
      assert.strictEqual(servers.servers[0].status, "ok")
      assert.include(tools.tools.map((t: { name: string }) => t.name), "echo")
      assert.include(results[7]!.stderr, "## tools", "the demo's tour goes to stderr")
    }))

  it.live("a failure is the document: {\"error\": …} on stdout, the line on stderr", () =>
    Effect.gen(function*() {
      const result = yield* cli(["tools", "--json", "--target", "http://127.0.0.1:1/mcp"])
      assert.strictEqual(result.code, 1)
      const { error } = JSON.parse(result.stdout)
      assert.deepStrictEqual([error.tag, error.reason], ["ConnectionError", "refused"])
      assert.strictEqual(error.message, "could not reach http://127.0.0.1:1: ECONNREFUSED 127.0.0.1:1")
      assert.match(result.stderr, /^error: ConnectionError: /)
    }))
})

describe("servers", () => {
  it.scopedLive("lists each configured server with its status; exits 1 when one fails", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeJson(dir, "mcp.json", {
        mcpServers: {
          fake: fakeEntry,
          down: { type: "http", url: "http://127.0.0.1:1/mcp" },
          off: { command: "nothing", disabled: true }
        }
      })
      const result = yield* cli(["servers"], { cwd: dir })
      assert.strictEqual(result.code, 1)
      const lines = result.stdout.split("\n")
      assert.strictEqual(lines[0], "servers of mcp.json:")
      assert.match(lines[1]!, /^fake \(stdio: .*fake-server\.js\): ok — mcp-effect-demo 0\.1\.0, protocol 2025-11-25/)
      assert.strictEqual(lines[2], "down (streamable_http: http://127.0.0.1:1/mcp): failed")
      assert.include(result.stdout, "ConnectionError: could not reach http://127.0.0.1:1: ECONNREFUSED 127.0.0.1:1")
      assert.include(result.stdout, "hint: nothing listens there")
      assert.include(result.stdout, "off (stdio: nothing): disabled")
      assert.strictEqual(result.stderr, "error: UnavailableError: 1 of 2 servers did not answer\n")
      const healthy = yield* cli(["servers", "--server", "fake"], { cwd: dir })
      assert.strictEqual(healthy.code, 0)
    }))
})

describe("exit statuses", () => {
  it.live("2 for a usage error, 1 for a tool's isError unless --allow-tool-errors", () =>
    Effect.gen(function*() {
      const unknown = yield* cli(["tools", "--bogus"])
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "--bogus")
      assert.strictEqual((yield* cli(["call", "echo", "--args", "[1]"])).code, 2)
      const failed = yield* cli(["call", "fail"])
      assert.deepStrictEqual([failed.code, failed.stdout], [
        1,
        "this tool always fails\n(the tool reported an error: isError)\n"
      ])
      assert.include(failed.stderr, "error: ToolResultError: tool \"fail\" reported an error")
      assert.strictEqual((yield* cli(["call", "fail", "--allow-tool-errors"])).code, 0)
    }))

  it.live("the process ends once the command is done, whatever else would keep it alive", () =>
    Effect.gen(function*() {
      // A timer of an hour stands in for what Node may still wait for (the WebAssembly tier-up
      // of undici's HTTP parser on Node 20 and 22).
      const held = { NODE_OPTIONS: "--import=data:text/javascript,setInterval(()=>{},3600000)" }
      const ok = yield* cli(["call", "echo", "message=hi"], { env: held })
      assert.deepStrictEqual([ok.code, ok.stdout], [0, "hi\n"])
      assert.strictEqual((yield* cli(["call", "fail"], { env: held })).code, 1)
    }))

  it.scopedLive("130 on SIGINT", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual" } })
      const result = yield* interrupted(["listen", "--tools", "--target", server.mcpUrl], "listening to")
      assert.strictEqual(result.code, 130)
    }))
})

describe("error causes and hints", () => {
  it.live("ECONNREFUSED and the DNS failure of an unknown host", () =>
    Effect.gen(function*() {
      const refused = yield* cli(["tools", "--target", "http://127.0.0.1:1/mcp"])
      assert.include(
        refused.stderr,
        "error: ConnectionError: could not reach http://127.0.0.1:1: ECONNREFUSED 127.0.0.1:1\n" +
          "  hint: nothing listens there: is the server running, on this host and port?\n"
      )
      const unknown = yield* cli(["tools", "--target", "http://no-such-host.invalid/mcp"])
      assert.match(
        unknown.stderr,
        /could not reach http:\/\/no-such-host\.invalid: (ENOTFOUND|EAI_AGAIN) no-such-host\.invalid/
      )
      assert.include(unknown.stderr, "hint: check the host name in the URL")
    }))

  it.scopedLive("a TLS error (https:// to a plain HTTP server)", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const result = yield* cli(["tools", "--target", server.mcpUrl.replace("http:", "https:")])
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, ": ERR_SSL_WRONG_VERSION_NUMBER\n")
      assert.include(result.stderr, "hint: the server does not seem to speak TLS: try http://")
    }))

  it.scopedLive("a 404 hints at /mcp and /sse", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const result = yield* cli(["tools", "--target", `${server.url}/api`])
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, `(try ${server.url}/mcp or ${server.url}/sse)`)
    }))

  it.live("a command that cannot start: spawn, with the PATH hint; --json says the reason", () =>
    Effect.gen(function*() {
      const result = yield* cli(["tools", "--json", "--target", "/nonexistent/mcp-server --flag"])
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "error: ConnectionError: could not start /nonexistent/mcp-server: ")
      assert.include(result.stderr, "ENOENT")
      assert.include(result.stderr, "  hint: check the command: is it installed and on PATH?\n")
      assert.strictEqual(JSON.parse(result.stdout).error.reason, "spawn")
    }))

  it.scopedLive("a stdio server silent on stdout until the timeout: its stderr and the environment hint", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const script = Path.join(dir, "silent.mjs")
      Fs.writeFileSync(script, "process.stderr.write('waiting for a token\\n')\nsetInterval(() => {}, 1000)\n")
      writeJson(dir, "mcp.json", {
        mcpServers: { silent: { command: process.execPath, args: [script], readTimeout: 1 } }
      })
      const result = yield* cli(["tools", "--json"], { cwd: dir })
      assert.strictEqual(result.code, 1)
      const { error } = JSON.parse(result.stdout)
      assert.strictEqual(error.reason, "timeout")
      assert.include(error.message, "the server printed nothing on stdout")
      assert.include(error.message, "--env K=V")
      assert.isTrue(error.message.endsWith(": waiting for a token"))
      assert.isUndefined(error.hint)
    }))

  it.scopedLive("a crashed stdio server's last 20 stderr lines, escaped", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const script = Path.join(dir, "crash.mjs")
      Fs.writeFileSync(
        script,
        "for (let i = 1; i <= 30; i++) process.stderr.write(`line ${i}\\n`)\n" +
          "process.stderr.write('\\u001b[2Jfatal: no database\\n')\nprocess.exit(3)\n"
      )
      const result = yield* cli(["tools", "--target", `${process.execPath} ${script}`])
      assert.strictEqual(result.code, 1)
      const lines = result.stderr.trimEnd().split("\n")
      assert.strictEqual(
        lines[0],
        "error: ConnectionError: server process exited with code 3: \\u001b[2Jfatal: no database"
      )
      assert.match(lines[1]!, /exited with code 3; the last 20 lines of its stderr:$/)
      assert.deepStrictEqual(lines.slice(2), [
        ...Array.from({ length: 19 }, (_, i) => `    line ${i + 12}`),
        "    \\u001b[2Jfatal: no database"
      ])
    }))
})

describe("the environment of stdio servers", () => {
  // The server prints what it sees on stderr and exits: the CLI shows its last stderr lines.
  const reporter = "process.stderr.write(JSON.stringify({ given: process.env.GIVEN ?? null, " +
    "secret: process.env.MCP_CLI_SECRET ?? null, proxy: process.env.HTTPS_PROXY ?? null }) + '\\n')\n" +
    "process.exit(3)\n"
  const seen = (stderr: string) => JSON.parse(stderr.trimEnd().split("\n").at(-1)!.trim())

  it.scopedLive("the safe default (proxies pass, secrets do not); --env adds; --inherit-env passes everything", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const script = Path.join(dir, "env.mjs")
      Fs.writeFileSync(script, reporter)
      const env = { MCP_CLI_SECRET: "s3cret", HTTPS_PROXY: "http://proxy.example:3128" }
      const target = `${process.execPath} ${script}`
      const safe = yield* cli(["tools", "--target", target], { env })
      assert.deepStrictEqual(seen(safe.stderr), { given: null, secret: null, proxy: "http://proxy.example:3128" })
      const given = yield* cli(["tools", "--target", target, "--env", "GIVEN=a=b", "--inherit-env"], { env })
      assert.deepStrictEqual(seen(given.stderr), { given: "a=b", secret: "s3cret", proxy: "http://proxy.example:3128" })
      const bad = yield* cli(["tools", "--target", target, "--env", "GIVEN"], { env })
      assert.deepStrictEqual([bad.code, bad.stderr], [2, "error: UsageError: --env expects KEY=VALUE, got \"GIVEN\"\n"])
    }))

  it.scopedLive("--env applies to the servers of a configuration file too", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const script = Path.join(dir, "env.mjs")
      Fs.writeFileSync(script, reporter)
      writeJson(dir, "mcp.json", { mcpServers: { env: { command: process.execPath, args: [script] } } })
      const result = yield* cli(["tools", "--env", "GIVEN=from-cli"], { cwd: dir })
      assert.strictEqual(seen(result.stderr).given, "from-cli")
    }))
})

describe("terminal output", () => {
  it.live("--help is written for this tool, per command, without ANSI when piped", () =>
    Effect.gen(function*() {
      const help = yield* cli(["--help"])
      assert.strictEqual(help.code, 0)
      assert.match(help.stdout, /^mcp-effect — inspect and call Model Context Protocol servers\n/)
      assert.notMatch(help.stdout, ANSI)
      assert.notInclude(help.stdout, "A user-defined piece of text")
      const call = yield* cli(["call", "--help"])
      assert.include(call.stdout, "mcp-effect call [SERVER.]TOOL [KEY=VALUE ...]")
      assert.strictEqual((yield* cli(["help", "servers"])).stdout, (yield* cli(["servers", "-h"])).stdout)
    }))

  it.live("FORCE_COLOR styles the help; NO_COLOR wins over it", () =>
    Effect.gen(function*() {
      assert.match((yield* cli(["--help"], { env: { FORCE_COLOR: "1" } })).stdout, ANSI)
      assert.notMatch((yield* cli(["--help"], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).stdout, ANSI)
      const usage = yield* cli(["tools", "--timeout", "soon"], { env: { NO_COLOR: "1" } })
      assert.strictEqual(usage.code, 2)
      assert.notMatch(usage.stderr, ANSI)
    }))

  it.live.skipIf(!terminalAvailable)(
    "on a terminal: \"connecting to …\", erased once connected; none with NO_COLOR",
    () =>
      Effect.gen(function*() {
        const styled = yield* onTerminal(["tools"])
        assert.include(styled.stdout, "connecting to demo…\r\u001b[2Kecho(message: string)")
        const plain = yield* onTerminal(["tools", "--bogus"], { env: { NO_COLOR: "1" } })
        assert.include(plain.stdout, "--bogus")
        assert.notMatch(plain.stdout, ANSI)
        assert.notMatch((yield* onTerminal(["tools"], { env: { NO_COLOR: "1" } })).stdout, ANSI)
      })
  )

  it.scopedLive("server text stays escaped, in text and in JSON", () =>
    Effect.gen(function*() {
      const hostile = FakeServer.tool("paint", () => Effect.succeed("\u001b[2Jwiped\u009b31m"), {
        description: "\u001b]0;owned\u0007 title"
      })
      const server = yield* FakeHttpServer.make({ definition: { tools: [hostile] } })
      const text = yield* cli(["tools", "--target", server.mcpUrl])
      assert.include(text.stdout, "\\u001b]0;owned\\u0007 title")
      const json = yield* cli(["call", "paint", "--json", "--target", server.mcpUrl])
      // eslint-disable-next-line no-control-regex
      assert.notMatch(json.stdout, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
      assert.strictEqual(JSON.parse(json.stdout).content[0].text, "\u001b[2Jwiped\u009b31m")
    }))
})
