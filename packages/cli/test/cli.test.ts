import { assert, describe, it } from "@effect/vitest"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as path from "node:path"
import * as Cli from "../src/Cli.js"
import * as Demo from "../src/Demo.js"
import * as format from "../src/internal/format.js"
import * as Servers from "../src/internal/servers.js"
import { cli, fakeServerBin } from "./utils.js"

/** A console that records what is written to stdout and stderr. */
const capture = Effect.gen(function*() {
  const out: Array<string> = []
  const err: Array<string> = []
  const base = yield* Effect.console
  const write = (lines: Array<string>) => (...args: ReadonlyArray<unknown>) => {
    lines.push(args.map(String).join(" "))
  }
  const console: Console.Console = {
    ...base,
    log: (...args) => Effect.sync(() => write(out)(...args)),
    error: (...args) => Effect.sync(() => write(err)(...args)),
    unsafe: { ...base.unsafe, log: write(out), error: write(err) }
  }
  return { console, out, err }
})

const runCli = (...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { console, err, out } = yield* capture
    const exit = yield* Cli.run(["node", "mcp-effect", ...args]).pipe(
      Effect.withConsole(console),
      Effect.provide(NodeMcpClient.platform),
      Effect.exit
    )
    // Without a target, the demo server stands in, and stderr says so first.
    const demoNote = err[0] === Servers.demoNote
    return { exit, out: out.join("\n"), err: err.slice(demoNote ? 1 : 0).join("\n"), demoNote }
  })

/** Runs the CLI like `runCli`, approving every authorization URL it prints, as a user in a browser would. */
const runCliApproving = (approve: (url: string) => void, ...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { console, err, out } = yield* capture
    const fiber = yield* Cli.run(["node", "mcp-effect", ...args]).pipe(
      Effect.withConsole(console),
      Effect.provide(NodeMcpClient.platform),
      Effect.exit,
      Effect.fork
    )
    const urls: Array<string> = []
    let seen = 0
    const scan = (act: boolean) => {
      for (; seen < err.length; seen++) {
        const url = /^Open this URL to authorize: (\S+)$/.exec(err[seen]!)?.[1]
        if (url === undefined) continue
        urls.push(url)
        if (act) approve(url)
      }
    }
    while (fiber.unsafePoll() === null) {
      scan(true)
      yield* Effect.sleep("10 millis")
    }
    scan(false)
    const exit = yield* Fiber.join(fiber)
    return { exit, out: out.join("\n"), err: err.join("\n"), urls }
  })

describe("mcp-effect CLI", () => {
  // Live clock: the demo server's progress tool sleeps between notifications.
  it.live("prints the demo transcript when no subcommand is given", () =>
    Effect.gen(function*() {
      const { demoNote, err, exit, out } = yield* runCli()
      assert.isTrue(Exit.isSuccess(exit), err)
      assert.isTrue(demoNote)
      assert.include(out, "server demo: mcp-effect-demo 0.1.0")
      assert.include(out, "protocol 2025-11-25 (legacy era)")
      assert.include(out, "Hello from mcp-effect!")
      assert.include(out, "structuredContent: {\"sum\":42}")
      assert.include(out, "progress 1/3: step 1 of 3\nprogress 2/3: step 2 of 3\nprogress 3/3: step 3 of 3")
      assert.include(out, "user: Hi Ada!")
      assert.include(out, "mcp-effect demo server. Hello!")
      assert.include(out, "Ada, Alan, Alice")
      assert.include(out, "ServerError: Unknown tool: no-such-tool (code -32602)")
      assert.include(out, `demo complete: 1 server, ${Scenarios.demo.tools!.length} tools`)
      assert.strictEqual(err, "")
    }))

  it.live("the transcript reports what it saw", () =>
    Effect.gen(function*() {
      const { console } = yield* capture
      const summary = yield* Effect.scoped(Effect.flatMap(Cli.connect([]), Demo.transcript)).pipe(
        Effect.withConsole(console),
        Effect.provide(NodeMcpClient.platform)
      )
      assert.deepStrictEqual(summary, {
        servers: 1,
        tools: Scenarios.demo.tools!.length,
        prompts: 1,
        resources: 2,
        toolCalls: 3,
        progressNotifications: 3,
        expectedError: "ServerError"
      })
    }))

  it.live("prints a typed error as one line on stderr and fails", () =>
    Effect.gen(function*() {
      const { err, exit, out } = yield* runCli("call", "no-such-tool")
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(err, "error: ServerError: Unknown tool: no-such-tool")
      assert.strictEqual(out, "")
    }))

  it.live("--max-result-chars cuts the result with a marker (issue #36, point 3)", () =>
    Effect.gen(function*() {
      const { exit, out } = yield* runCli("call", "echo", "message=abcdefghij", "--max-result-chars", "4")
      assert.isTrue(Exit.isSuccess(exit))
      assert.include(out, "abcd")
      assert.notInclude(out, "abcde")
      assert.include(out, "[… 6 more characters cut by mcp-effect: maxResultChars=4]")
    }))

  it.live("rejects --args that are not a JSON object", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* runCli("call", "echo", "--args", "[1, 2]")
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(err, "error: UsageError: --args must be a JSON object, like {\"message\":\"hi\"}")
    }))

  it.live("places the mistake in --args that are not JSON, on every runtime", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* runCli("call", "echo", "--args", "{\"message\": hi}")
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(err, "error: UsageError: --args is not valid JSON at line 1, column 13: unexpected token")
    }))

  it.scopedLive("checks the command line before starting a server: usage errors exit with 2", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(path.join(Os.tmpdir(), "mcp-effect-usage-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const started = path.join(dir, "started")
      // A server that leaves a mark and crashes.
      const target = `node -e "require('fs').writeFileSync(process.argv[1], ''); process.exit(3)" ${started}`
      const usages: ReadonlyArray<ReadonlyArray<string>> = [
        ["call", "echo", "--args", "[1]"],
        ["call", "echo", "message"],
        ["get-prompt", "greeting", "--args", "{\"name\":{}}"],
        ["listen"]
      ]
      for (const args of usages) {
        const { err, exit } = yield* runCli(...args, "--target", target)
        assert.strictEqual(Cli.exitCode(exit), 2, `${args.join(" ")}: ${err}`)
        assert.match(err, /^error: UsageError: /)
      }
      assert.isFalse(Fs.existsSync(started), "no server was started")
      const crashed = yield* runCli("call", "echo", "message=hi", "--target", target)
      assert.strictEqual(Cli.exitCode(crashed.exit), 1, "the same server, started, crashes")
      assert.isTrue(Fs.existsSync(started))
    }))

  it("prints structured content once: not again when a text block already serializes it", () => {
    const result = (text: string) => ({
      content: [{ type: "text" as const, text }],
      structuredContent: { temperature: 22, conditions: "sunny" }
    })
    assert.strictEqual(
      format.callResult(result("{\"conditions\":\"sunny\",\"temperature\":22}")),
      "{\"conditions\":\"sunny\",\"temperature\":22}"
    )
    assert.strictEqual(
      format.callResult(result("22 degrees, sunny")),
      "22 degrees, sunny\nstructuredContent: {\"temperature\":22,\"conditions\":\"sunny\"}"
    )
  })

  it.live("calls a tool and prints its structured content", () =>
    Effect.gen(function*() {
      const { exit, out } = yield* runCli("call", "add", "--args", "{\"a\":1,\"b\":2}")
      assert.isTrue(Exit.isSuccess(exit))
      assert.strictEqual(out, "3\nstructuredContent: {\"sum\":3}")
    }))

  it.scopedLive("listen prints a subscription's notifications, and stops after --count", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual" } })
      const fiber = yield* Effect.fork(runCli("listen", "--tools", "--count", "1", "--target", server.mcpUrl))
      // Once the subscription is up, a change is published to it.
      while ((yield* server.fake.requests("subscriptions/listen")).length === 0) yield* Effect.sleep("20 millis")
      yield* Effect.sleep("100 millis")
      yield* server.fake.setTools([])
      const { err, exit, out } = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isSuccess(exit), err)
      assert.strictEqual(out, "notifications/tools/list_changed")
      assert.include(err, "listening to")
    }))

  it.live("listen needs something to listen for", () =>
    Effect.gen(function*() {
      const nothing = yield* runCli("listen")
      assert.strictEqual(Cli.exitCode(nothing.exit), 2)
      assert.include(nothing.err, "name what to listen for")
    }))

  it.scopedLive("listen on a legacy server: list_changed notifications and resources/subscribe updates", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, subscriptions: true } })
      const fiber = yield* Effect.fork(
        runCli("listen", "--tools", "--resource", "demo://readme", "--count", "2", "--target", server.mcpUrl)
      )
      while ((yield* server.fake.requests("resources/subscribe")).length === 0) yield* Effect.sleep("20 millis")
      yield* Effect.sleep("100 millis")
      yield* server.fake.notify("notifications/resources/updated", { uri: "demo://elsewhere" })
      yield* server.fake.notify("notifications/resources/updated", { uri: "demo://readme" })
      yield* server.fake.setTools([])
      const { err, exit, out } = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isSuccess(exit), err)
      assert.strictEqual(
        out,
        "notifications/resources/updated {\"uri\":\"demo://readme\"}\nnotifications/tools/list_changed"
      )
      assert.strictEqual((yield* server.fake.requests("resources/unsubscribe")).length, 1)
    }))

  it.live("listen says what a legacy server does not offer", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* runCli("listen", "--resource", "demo://readme", "--count", "0")
      assert.isTrue(Exit.isSuccess(exit), err)
      assert.include(err, "not granted by the server: resourceSubscriptions")
    }))

  it.live("fails with ServerNotFoundError for an unknown --server", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* runCli("resources", "--server", "elsewhere")
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(err, "error: ServerNotFoundError: no server named \"elsewhere\" (known: demo)")
    }))

  it.live("routes a call by --server among several targets", () =>
    Effect.gen(function*() {
      const target = `node ${fakeServerBin}`
      const args = ["call", "echo", "--args", "{\"message\":\"hi\"}", "--target", target, "--target", target]
      const routed = yield* runCli(...args, "--server", "fake-server-2")
      assert.isTrue(Exit.isSuccess(routed.exit), routed.err)
      assert.strictEqual(routed.out, "hi")
      const ambiguous = yield* runCli(...args)
      assert.strictEqual(
        ambiguous.err,
        "error: AmbiguousToolError: tool \"echo\" is offered by several servers (fake-server, fake-server-2); " +
          "pass { server }"
      )
    }))

  it.scopedLive("--oauth authorizes in the browser flow, keeps the token in --oauth-storage, and resumes it", () =>
    Effect.gen(function*() {
      const server = yield* FakeOAuthServer.make
      const dir = Fs.mkdtempSync(path.join(Os.tmpdir(), "mcp-effect-cli-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const storage = path.join(dir, "tokens.json")
      const oauth = ["--target", server.mcpUrl, "--oauth", "--oauth-storage", storage, "--no-browser"]

      const first = yield* runCliApproving(server.approve, "tools", ...oauth)
      assert.isTrue(Exit.isSuccess(first.exit), first.err)
      assert.include(first.out, "echo(message: string)")
      // The URL is printed (no browser opened) and names the authorization server.
      assert.strictEqual(first.urls.length, 1)
      assert.isTrue(first.urls[0]!.startsWith(`${server.issuer}/authorize?`))
      assert.strictEqual(Fs.statSync(storage).mode & 0o777, 0o600)

      // A tool call needs a larger scope: a second trip through the browser, then the result.
      const call = yield* runCliApproving(server.approve, "call", "echo", "--args", "{\"message\":\"hi\"}", ...oauth)
      assert.isTrue(Exit.isSuccess(call.exit), call.err)
      assert.strictEqual(call.out, "hi")
      assert.strictEqual(call.urls.length, 1)

      // The kept token (refreshed) is used: no browser at all.
      const again = yield* runCliApproving(
        server.approve,
        "call",
        "echo",
        "--args",
        "{\"message\":\"again\"}",
        ...oauth
      )
      assert.isTrue(Exit.isSuccess(again.exit), again.err)
      assert.strictEqual(again.out, "again")
      assert.deepStrictEqual(again.urls, [])
    }))

  it("--target NAME=TARGET: a plain word before the first = names the server", () => {
    assert.deepStrictEqual(Servers.parseTarget("files=npx -y @scope/files"), {
      name: "files",
      target: "npx -y @scope/files"
    })
    assert.deepStrictEqual(Servers.parseTarget("a.b_c-1=http://h/mcp?k=v"), {
      name: "a.b_c-1",
      target: "http://h/mcp?k=v"
    })
    for (const word of ["http://h/mcp?k=v", "node s.js --port=3", "stdio://A=B run", "npx -y p@1 --x=y", "=node"]) {
      assert.strictEqual(Servers.parseTarget(word), word)
    }
  })

  it.live("--target NAME=TARGET names a server; other names come from what runs", () =>
    Effect.gen(function*() {
      const target = `node ${fakeServerBin}`
      const { err, exit, out } = yield* runCli("servers", "--json", "--target", `mine=${target}`, "-t", target)
      assert.isTrue(Exit.isSuccess(exit), err)
      const listed = (JSON.parse(out) as { servers: Array<{ name: string }> }).servers.map((s) => s.name)
      assert.deepStrictEqual(listed, ["mine", "fake-server"])
      const twice = yield* runCli("tools", "--target", `a=${target}`, "--target", `a=${target}`)
      assert.deepStrictEqual([Cli.exitCode(twice.exit), twice.err], [
        2,
        "error: UsageError: two servers are named \"a\""
      ])
      const empty = yield* runCli("tools", "--target", "a=")
      assert.deepStrictEqual([Cli.exitCode(empty.exit), empty.err], [
        2,
        "error: UsageError: --target a=: the target is missing"
      ])
    }))

  it.live("--oauth needs a URL target", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* runCli("tools", "--oauth")
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(Cli.exitCode(exit), 2)
      assert.strictEqual(err, "error: UsageError: --oauth applies to URL targets (--target https://…)")
    }))

  it("escapes bidirectional-text controls and invisible format marks in server text", () => {
    assert.strictEqual(
      format.clean("invoice\u202Efdp.exe \u2066x\u2069 \u200F\u061C\u2028"),
      "invoice\\u202efdp.exe \\u2066x\\u2069 \\u200f\\u061c\\u2028"
    )
  })

  it("prints content blocks as text and escapes control characters", () => {
    const pixel = "iVBORw0KGgo="
    assert.deepStrictEqual(
      [
        format.content({ type: "text", text: "\u001b[2Jred\nline" }),
        format.content({ type: "image", data: pixel, mimeType: "image/png" }),
        format.content({ type: "audio", data: "AAAA", mimeType: "audio/wav" }),
        format.content({ type: "resource_link", uri: "demo://readme", name: "readme" }),
        format.content({ type: "resource", resource: { uri: "demo://readme", text: "hello" } })
      ],
      [
        "\\u001b[2Jred\nline",
        `[image image/png, ${pixel.length} bytes base64]`,
        "[audio audio/wav, 4 bytes base64]",
        "[link demo://readme]",
        "[resource demo://readme]\nhello"
      ]
    )
  })

  it.live("the built executable lists the tools of a stdio target", () =>
    Effect.gen(function*() {
      const result = yield* cli(["tools", "--target", `node ${fakeServerBin}`])
      assert.strictEqual(result.code, 0, result.stderr)
      for (const name of ["echo", "add", "progress", "slow", "fail", "blob", "image", "crash"]) {
        assert.include(result.stdout, `${name}(`)
      }
      assert.include(result.stdout, "echo(message: string)\n  Returns its message\n  hints: read-only, closed-world")
      assert.strictEqual(result.stderr, "")
    }))

  it.live("the built executable exits with 1 and no stack trace on a typed error", () =>
    Effect.gen(function*() {
      const result = yield* cli(["call", "no-such-tool"])
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stderr, `${Servers.demoNote}\nerror: ServerError: Unknown tool: no-such-tool\n`)
    }))
})
