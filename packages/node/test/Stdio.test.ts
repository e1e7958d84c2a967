import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "@mcp-effect/client/ChildProcess"
import { ConnectionError, RequestTimeoutError, ServerError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { fakeServerBin } from "./paths.js"

const options: ServerConnection.Options = { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }

const fake = (extra: ReadonlyArray<string> = [], more: Partial<Stdio.Options> = {}) =>
  Stdio.config({ name: "fake", command: process.execPath, args: [fakeServerBin, ...extra], ...more })

/** Captures log lines so tests can assert what was (and was not) logged. */
const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => {
    lines.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const spawners = [
  ["node:child_process", NodeChildProcess.layer],
  ["platform CommandExecutor", ChildProcess.layerCommandExecutor.pipe(Layer.provide(NodeContext.layer))]
] as const

for (const [label, platform] of spawners) {
  describe(`stdio transport (${label})`, () => {
    it.scopedLive("talks to a server process over newline-delimited JSON", () =>
      Effect.gen(function*() {
        const connection = yield* ServerConnection.make(fake(), options)
        const result = yield* connection.callTool("add", { a: 2, b: 40 })
        assert.deepStrictEqual(result.structuredContent, { sum: 42 })
        assert.strictEqual(connection.negotiated()!.serverInfo.name, "mcp-effect-demo")
      }).pipe(Effect.provide(platform)))

    it.scopedLive("skips a malformed line, logging a summary but never the payload, and keeps working", () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const connection = yield* ServerConnection.make(
          fake(["--faults", JSON.stringify([{ method: "tools/call", action: "malformed", times: 1 }])]),
          options
        )
        const result = yield* connection.callTool("echo", { message: "still fine" })
        assert.deepStrictEqual(result.content, [{ type: "text", text: "still fine" }])
        const warning = logs.lines.find((l) => l.includes("malformed line"))
        assert.isDefined(warning)
        assert.notInclude(warning!, "this is not json")
      }).pipe(Effect.provide(platform), Effect.provide(logs.layer))
    })

    it.scopedLive("skips an over-long line as too long", () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const connection = yield* ServerConnection.make(fake([], { maxMessageBytes: 4096 }), options)
        const error = yield* Effect.flip(connection.callTool("blob", { bytes: 10_000 }, { timeout: "1 second" }))
        assert.instanceOf(error, RequestTimeoutError)
        assert.isDefined(logs.lines.find((l) => l.includes("too long line")))
        const small = yield* connection.callTool("blob", { bytes: 10 })
        assert.strictEqual((small.content[0] as { text: string }).text, "x".repeat(10))
      }).pipe(Effect.provide(platform), Effect.provide(logs.layer))
    })

    it.scopedLive("a crashed process fails in-flight requests with ConnectionError and restarts on the next request", () =>
      Effect.gen(function*() {
        const connection = yield* ServerConnection.make(fake(), options)
        const error = yield* Effect.flip(connection.callTool("crash", {}))
        assert.instanceOf(error, ConnectionError)
        assert.include(error.message, "exited with code 3")
        const result = yield* connection.callTool("echo", { message: "back" })
        assert.deepStrictEqual(result.content, [{ type: "text", text: "back" }])
      }).pipe(Effect.provide(platform)))

    it.scopedLive("a JSON-RPC error from the process is a ServerError", () =>
      Effect.gen(function*() {
        const connection = yield* ServerConnection.make(
          fake([
            "--faults",
            JSON.stringify([{ method: "tools/call", action: "error", code: -32000, message: "nope" }])
          ]),
          options
        )
        const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }))
        assert.instanceOf(error, ServerError)
        assert.strictEqual(error.code, -32000)
      }).pipe(Effect.provide(platform)))

    it.live("a command that cannot start fails with ConnectionError", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Effect.scoped(ServerConnection.make(
          Stdio.config({ name: "missing", command: "/nonexistent/mcp-server" }),
          options
        )))
        assert.instanceOf(error, ConnectionError)
      }).pipe(Effect.provide(platform)))

    it.live("stderr: 'ignore' keeps the server's stderr out of the log; by default it is drained there", () => {
      const logs = captureLogs()
      const fromServer = () => logs.lines.filter((line) => line.includes("fake server"))
      const pinged = (config: ReturnType<typeof fake>) =>
        Effect.scoped(Effect.flatMap(ServerConnection.make(config, options), (connection) => connection.ping()))
      return Effect.gen(function*() {
        yield* pinged(fake(["--log-received"], { stderr: "ignore" }))
        const whileIgnored = fromServer().length
        yield* Effect.scoped(Effect.gen(function*() {
          const connection = yield* ServerConnection.make(fake(["--log-received"]), options)
          yield* connection.ping()
          while (!fromServer().some((line) => line.includes("received"))) yield* Effect.sleep("20 millis")
        }))
        assert.strictEqual(whileIgnored, 0)
      }).pipe(
        Effect.provide(platform),
        Effect.provide(logs.layer),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
    })

    it.live("closing the scope stops a server that ignores SIGTERM (stdin close → SIGTERM → SIGKILL)", () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const scope = yield* Scope.make()
        const connection = yield* ServerConnection.make(
          fake(["--ignore-sigterm"], { shutdownTimeout: "300 millis" }),
          options
        ).pipe(Scope.extend(scope))
        yield* connection.ping()
        // The fake server announces its pid on stderr, which the transport drains to the log.
        const pid = Number(/ready pid=(\d+)/.exec(logs.lines.join("\n"))?.[1])
        assert.isTrue(isAlive(pid))
        yield* Scope.close(scope, Exit.void)
        assert.isFalse(isAlive(pid))
        assert.isDefined(logs.lines.find((l) => l.includes("ignored SIGTERM")))
      }).pipe(
        Effect.provide(platform),
        Effect.provide(logs.layer),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
    })
  })
}

describe("an idle stdio connection (node:child_process)", () => {
  // Each fiber keeps its own copy of the refs, a scheduler slot and (forked) its parent alive:
  // the process's exit comes back through the spawner's callback instead (docs/performance.md).
  it.scopedLive("keeps no fiber, and still sees its process exit", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.track
      const closed = yield* Deferred.make<ConnectionError>()
      // A process that exits with code 3 on its first input.
      const exitsOnInput = Stdio.transport({
        command: process.execPath,
        args: ["-e", "process.stdin.once('data', () => process.exit(3))"]
      })
      const transport = yield* Effect.supervised(
        exitsOnInput({
          onMessage: () => {},
          onClose: (error) => Deferred.unsafeDone(closed, Effect.succeed(error)),
          onRequestFailed: () => {}
        }, "exits"),
        supervisor
      )
      const live = (yield* supervisor.value).filter((fiber) => fiber.unsafePoll() === null)
      assert.strictEqual(live.length, 0, "fibers alive while the connection is idle")
      yield* transport.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      const error = yield* Deferred.await(closed)
      assert.strictEqual(error.reason, "exited")
      assert.strictEqual(error.exitCode, 3)
    }).pipe(Effect.provide(NodeChildProcess.layer)))
})

describe("subscriptions over stdio (2026-07-28)", () => {
  interface Received {
    readonly pid: number
    readonly method: string | undefined
    readonly id: unknown
    readonly requestId: unknown
  }
  /** What each process received, from the `--log-received` lines its stderr carries to the log. */
  const received = (lines: ReadonlyArray<string>): ReadonlyArray<Received> =>
    lines.flatMap((line) => {
      const match = /fake server pid=(\d+) received (\{.*\})/.exec(line)
      return match === null ? [] : [{ pid: Number(match[1]), ...JSON.parse(match[2]!) as Omit<Received, "pid"> }]
    })
  const pids = (lines: ReadonlyArray<string>) =>
    lines.flatMap((line) => {
      const match = /fake server ready pid=(\d+)/.exec(line)
      return match === null ? [] : [Number(match[1])]
    })
  const eventually = (check: () => boolean) =>
    Effect.gen(function*() {
      while (!check()) yield* Effect.sleep("20 millis")
    })
  const dual = fake(["--era", "dual", "--log-received"])
  const debug = Logger.withMinimumLogLevel(LogLevel.Debug)

  it.scopedLive(
    "a crashed process is restarted and re-sent the listen; close cancels only what the live process was sent",
    () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const connection = yield* ServerConnection.make(dual, options)
        const scope = yield* Scope.make()
        const subscription = yield* connection.listen({ toolsListChanged: true }).pipe(Scope.extend(scope))
        // Past the crash-loop window, then the process exits.
        yield* Effect.sleep("1100 millis")
        assert.instanceOf(yield* Effect.flip(connection.callTool("crash", {})), ConnectionError)
        yield* eventually(() =>
          subscription.isActive() && pids(logs.lines).length === 2 &&
          received(logs.lines).some((r) => r.pid === pids(logs.lines)[1] && r.method === "subscriptions/listen")
        )
        const [first, second] = pids(logs.lines)
        yield* connection.callTool("publish", {})
        const [next] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(subscription.notifications, 1)))
        assert.strictEqual(next!.method, "notifications/tools/list_changed")
        yield* Scope.close(scope, Exit.void)
        yield* eventually(() => received(logs.lines).some((r) => r.method === "notifications/cancelled"))
        const listensTo = (pid: number | undefined) =>
          received(logs.lines).filter((r) => r.pid === pid && r.method === "subscriptions/listen").map((r) => r.id)
        const cancelledOn = (pid: number | undefined) =>
          received(logs.lines).filter((r) => r.pid === pid && r.method === "notifications/cancelled").map((r) =>
            r.requestId
          )
        // Each process got one listen of its own; only the live one is told to cancel it.
        assert.strictEqual(listensTo(first).length, 1)
        assert.strictEqual(listensTo(second).length, 1)
        assert.deepStrictEqual(cancelledOn(first), [])
        assert.deepStrictEqual(cancelledOn(second), listensTo(second))
      }).pipe(Effect.provide(NodeChildProcess.layer), Effect.provide(logs.layer), debug)
    },
    30_000
  )

  it.scopedLive("a process the host stops is not a crash: nothing is restarted, the subscription ends", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const connectionScope = yield* Scope.make()
      const connection = yield* ServerConnection.make(dual, options).pipe(Scope.extend(connectionScope))
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* Effect.sleep("1100 millis")
      yield* Scope.close(connectionScope, Exit.void)
      assert.strictEqual((yield* Effect.either(Stream.runDrain(subscription.notifications)))._tag, "Right")
      yield* Effect.sleep("600 millis")
      assert.strictEqual(pids(logs.lines).length, 1)
      assert.isFalse(subscription.isActive())
    }).pipe(Effect.provide(NodeChildProcess.layer), Effect.provide(logs.layer), debug)
  }, 30_000)
})

describe("a stdio server's stderr, inherited", () => {
  it("goes to the host's own stderr [not-on-deno: a host on process.execPath with Node's -e and --input-type]", async () => {
    // A host process of its own, whose stderr the test reads: it spawns a process that writes to
    // its stderr, with `stderr: "inherit"` and no `onStderr` reading.
    const host = [
      "import * as Effect from \"effect/Effect\"",
      "import { ChildProcessSpawner } from \"@mcp-effect/client/ChildProcess\"",
      "import * as NodeChildProcess from \"@mcp-effect/node/NodeChildProcess\"",
      "await Effect.runPromise(Effect.scoped(Effect.flatMap(ChildProcessSpawner, (spawner) =>",
      "  Effect.flatMap(spawner.spawn({ command: process.execPath, args: [\"-e\", \"process.stderr.write('from the server')\"],",
      "    onStdout: () => {}, onStderr: () => { throw new Error('stderr was piped') }, stderr: \"inherit\" }),",
      "    (child) => child.exited))).pipe(Effect.provide(NodeChildProcess.layer)))"
    ].join("\n")
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["--input-type=module", "-e", host],
        { cwd: Path.dirname(fakeServerBin), timeout: 30_000 },
        (error, _stdout, stderr) => (error === null ? resolve(stderr) : reject(error))
      )
    )
    assert.include(stderr, "from the server")
  })
})
