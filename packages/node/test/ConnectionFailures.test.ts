/**
 * Why a connection failed, on real sockets, TLS servers and processes: the `ConnectionError`
 * says it in its `reason`, its message and its fields, through the Effect API and the facade.
 */
import * as Undici from "@effect/platform-node/Undici"
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Fs from "node:fs"
import * as Https from "node:https"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { fakeServerBin } from "./paths.js"
import { testCa } from "./testCertificates.js"

const options: ServerConnection.Options = { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }

const quiet = Logger.withMinimumLogLevel(LogLevel.None)

/** The error opening a connection fails with (it must be a `ConnectionError`). */
const failure = <R>(config: Parameters<typeof ServerConnection.make<R>>[0]) =>
  Effect.flatMap(
    Effect.flip(Effect.scoped(ServerConnection.make(config, options))),
    (error) =>
      error instanceof ConnectionError
        ? Effect.succeed(error)
        : Effect.dieMessage(`expected a ConnectionError, got ${error._tag}: ${error.message}`)
  )

/** A folder that lives as long as the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-failures-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A loopback port nothing listens on: bound, then released. */
const closedPort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as Net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A server for `listener` on a loopback port, closed with the scope. */
const listening = (server: Net.Server) =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
        server.close(() => resume(Effect.void))
      })
  )

const streamable = (url: string) => StreamableHttp.config({ name: "http", url, retries: 0 })

const httpClient = (dispatcher?: Undici.Dispatcher) =>
  dispatcher === undefined
    ? UndiciHttpClient.layer
    : Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(dispatcher))

// --- TLS --------------------------------------------------------------------------------------

/**
 * A test CA's certificate, a certificate it signed for `wrong.example` (served for `localhost`,
 * its name is the failure), and a self-signed certificate for `localhost` (its trust is the failure).
 */
const certificates = Effect.map(testCa, (ca) => ({
  ca: ca.ca,
  wrongName: ca.issue("wrong.example", "DNS:wrong.example"),
  selfSigned: ca.selfSigned("localhost", "DNS:localhost,IP:127.0.0.1")
}))

const httpsServer = (identity: { readonly key: string; readonly cert: string }) =>
  listening(Https.createServer(identity, (_request, response) => response.end("{}")))

describe("HTTP connection failures", () => {
  it.scopedLive("a closed port: refused, with the address in the message and the socket error as cause [not-on-bun: Bun's fetch errors carry no socket error]", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = yield* failure(streamable(`http://user:secret@127.0.0.1:${port}/mcp?token=t`))
      assert.strictEqual(error.reason, "refused")
      assert.strictEqual(error.message, `could not reach http://127.0.0.1:${port}: ECONNREFUSED 127.0.0.1:${port}`)
      assert.isDefined(error.cause)
      assert.notInclude(error.message, "secret")
    }).pipe(Effect.provide(httpClient()), quiet))

  it.scopedLive("a .invalid host: dns, naming the host", () =>
    Effect.gen(function*() {
      const error = yield* failure(streamable("http://no-such-host.invalid/mcp"))
      assert.strictEqual(error.reason, "dns")
      assert.match(
        error.message,
        /^could not reach http:\/\/no-such-host\.invalid: (ENOTFOUND|EAI_AGAIN) no-such-host\.invalid$/
      )
    }).pipe(Effect.provide(httpClient()), quiet))

  it.scopedLive("a certificate for another name, from a trusted CA: tls, the name mismatch in the message [not-on-bun: Bun's fetch errors carry no socket error]", () =>
    Effect.gen(function*() {
      const { ca, wrongName } = yield* certificates
      const port = yield* httpsServer(wrongName)
      const agent = new Undici.Agent({ connect: { ca } })
      yield* Effect.addFinalizer(() => Effect.promise(() => agent.destroy()))
      const error = yield* failure(streamable(`https://localhost:${port}/mcp`)).pipe(
        Effect.provide(httpClient(agent))
      )
      assert.strictEqual(error.reason, "tls")
      assert.match(error.message, /^could not reach https:\/\/localhost:\d+: ERR_TLS_CERT_ALTNAME_INVALID: /)
      assert.include(error.message, "DNS:wrong.example")
    }).pipe(quiet))

  it.scopedLive("an untrusted self-signed certificate: tls", () =>
    Effect.gen(function*() {
      const { selfSigned } = yield* certificates
      const port = yield* httpsServer(selfSigned)
      const error = yield* failure(streamable(`https://localhost:${port}/mcp`))
      assert.strictEqual(error.reason, "tls")
      assert.include(error.message, "DEPTH_ZERO_SELF_SIGNED_CERT")
    }).pipe(Effect.provide(httpClient()), quiet))

  it.scopedLive("a server that drops the connection: reset", () =>
    Effect.gen(function*() {
      const port = yield* listening(Net.createServer((socket) => socket.once("data", () => socket.destroy())))
      const error = yield* failure(streamable(`http://127.0.0.1:${port}/mcp`))
      assert.strictEqual(error.reason, "reset")
    }).pipe(Effect.provide(httpClient()), quiet))

  it.scopedLive("the legacy HTTP+SSE transport: refused too [not-on-bun: Bun's fetch errors carry no socket error]", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = yield* failure(Sse.config({ name: "sse", url: `http://127.0.0.1:${port}/sse`, retries: 0 }))
      assert.strictEqual(error.reason, "refused")
      assert.include(error.message, `ECONNREFUSED 127.0.0.1:${port}`)
    }).pipe(Effect.provide(httpClient()), quiet))
})

// --- stdio ------------------------------------------------------------------------------------

/** A server program in a temporary file. */
const program = (source: string) =>
  Effect.map(tempDir, (dir) => {
    const file = Path.join(dir, "server.mjs")
    Fs.writeFileSync(file, source)
    return file
  })

const stdio = (file: string, more: Partial<Stdio.Options> = {}) =>
  Stdio.config({ name: "server", command: process.execPath, args: [file], ...more })

const crashing = "process.stderr.write('starting\\n')\n" +
  "process.stderr.write('fatal: no database \\u001b[2J\\n')\nprocess.exit(3)\n"

describe("stdio connection failures", () => {
  it.scopedLive("a server that exits at start: exited, its exit code and its last stderr lines (escaped)", () =>
    Effect.gen(function*() {
      const error = yield* failure(stdio(yield* program(crashing)))
      assert.strictEqual(error.reason, "exited")
      assert.strictEqual(error.exitCode, 3)
      assert.isUndefined(error.signal)
      assert.deepStrictEqual(error.stderr, ["starting", "fatal: no database \\u001b[2J"])
      assert.strictEqual(error.message, "server process exited with code 3: fatal: no database \\u001b[2J")
    }).pipe(Effect.provide(NodeChildProcess.layer), quiet))

  it.scopedLive("a server killed by a signal: its signal", () =>
    Effect.gen(function*() {
      const file = yield* program("process.kill(process.pid, 'SIGKILL')\n")
      const error = yield* failure(stdio(file))
      assert.deepStrictEqual([error.reason, error.signal, error.exitCode], ["exited", "SIGKILL", undefined])
    }).pipe(Effect.provide(NodeChildProcess.layer), quiet))

  it.scopedLive("keeps only the last 20 stderr lines, each bounded", () =>
    Effect.gen(function*() {
      const file = yield* program(
        "for (let i = 1; i <= 100; i++) process.stderr.write(`line ${i} ${'x'.repeat(i === 100 ? 5000 : 0)}\\n`)\n" +
          "process.exit(1)\n"
      )
      const error = yield* failure(stdio(file))
      assert.strictEqual(error.stderr!.length, 20)
      assert.strictEqual(error.stderr![0], "line 81 ")
      assert.isBelow(error.stderr![19]!.length, 600)
    }).pipe(Effect.provide(NodeChildProcess.layer), quiet))

  it.scopedLive("a command that does not exist: spawn, ENOENT in the message, the spawn error as cause", () =>
    Effect.gen(function*() {
      const error = yield* failure(Stdio.config({ name: "missing", command: "/nonexistent/mcp-server" }))
      assert.strictEqual(error.reason, "spawn")
      assert.include(error.message, "ENOENT")
      assert.strictEqual((error.cause as { code?: unknown }).code, "ENOENT")
    }).pipe(Effect.provide(NodeChildProcess.layer), quiet))

  it.scopedLive("a server silent on stdout until the timeout: its stderr, and a hint naming the environment", () =>
    Effect.gen(function*() {
      const file = yield* program("process.stderr.write('waiting for the registry…\\n')\nsetInterval(() => {}, 1000)\n")
      const timeouts = { readTimeout: "1 second", discoverTimeout: "200 millis" } as const
      const error = yield* failure(stdio(file, timeouts))
      assert.strictEqual(error.reason, "timeout")
      assert.deepStrictEqual(error.stderr, ["waiting for the registry…"])
      assert.include(error.message, "the server printed nothing on stdout")
      assert.include(error.message, "safe environment")
      assert.include(error.message, "--env")
      assert.isTrue(error.message.endsWith(": waiting for the registry…"))
      assert.strictEqual((error.cause as { _tag?: unknown })._tag, "RequestTimeoutError")
      const inherited = yield* failure(stdio(file, { ...timeouts, inheritEnv: true }))
      assert.notInclude(inherited.message, "safe environment")
    }).pipe(Effect.provide(NodeChildProcess.layer), quiet))

  it.scopedLive("a server that logs to stdout: one warning, then a count per interval, not a line each", () => {
    const lines: Array<string> = []
    const logger = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ message }) => lines.push(Array.isArray(message) ? message.join(" ") : String(message)))
    )
    return Effect.gen(function*() {
      const file = yield* program(
        "for (let i = 0; i < 200; i++) process.stdout.write(`starting up ${i}\\n`)\n" +
          `await import(${JSON.stringify(pathToFileURL(fakeServerBin).href)})\n`
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const connection = yield* ServerConnection.make(stdio(file), options)
        const result = yield* connection.callTool("echo", { message: "still fine" })
        assert.deepStrictEqual(result.content, [{ type: "text", text: "still fine" }])
      }))
      const onStdout = lines.filter((line) => line.includes("on stdout"))
      assert.include(onStdout[0], "skipped a malformed line on stdout (13 bytes) \"starting up 0\"")
      const counted = onStdout.slice(1).map((line) => Number(/skipped (\d+) more lines? on stdout/.exec(line)?.[1]))
      assert.strictEqual(counted.reduce((a, b) => a + b, 0), 199)
      assert.isAtMost(onStdout.length, 3)
    }).pipe(Effect.provide(NodeChildProcess.layer), Effect.provide(logger))
  })
})

describe("the facade's errors", () => {
  it("reject with the ConnectionError itself: reason and cause for a closed port [not-on-bun: Bun's fetch errors carry no socket error]", async () => {
    const port = await Effect.runPromise(closedPort)
    const error = await connect(`http://127.0.0.1:${port}/mcp`, { retries: 0, logLevel: "None" }).catch((e: unknown) =>
      e
    )
    assert.instanceOf(error, ConnectionError)
    const connection = error as ConnectionError
    assert.strictEqual(connection.reason, "refused")
    assert.isDefined(connection.cause)
    assert.include(connection.message, `ECONNREFUSED 127.0.0.1:${port}`)
  })

  it("reject with the ConnectionError itself: exit code and stderr of a crashed server", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-failures-"))
    try {
      const file = Path.join(dir, "server.mjs")
      Fs.writeFileSync(file, crashing)
      const error = await connect([process.execPath, file], { logLevel: "None" }).catch((e: unknown) => e)
      assert.instanceOf(error, ConnectionError)
      const connection = error as ConnectionError
      assert.deepStrictEqual(
        [connection.reason, connection.exitCode, connection.stderr?.at(-1)],
        ["exited", 3, "fatal: no database \\u001b[2J"]
      )
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
