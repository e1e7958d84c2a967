/**
 * Proxies and CAs on real sockets: a forwarding proxy process (the `proxy` package: plain HTTP
 * forwarded, HTTPS through CONNECT) whose log of received requests says what went through it,
 * the fake MCP server over plain HTTP and behind a real TLS server whose certificate a test CA
 * made with `openssl` signs, and the fake OAuth servers.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Net from "node:net"
import * as Path from "node:path"
import * as Readline from "node:readline"
import * as Tls from "node:tls"
import { fileURLToPath } from "node:url"
import * as Util from "node:util"
import { freePort } from "./peerProcess.js"
import * as TestCertificates from "./testCertificates.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "../../..")

interface Proxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** The requests the proxy received so far: `CONNECT host:port` or `METHOD absolute-URL`. */
  readonly log: () => ReadonlyArray<string>
}

/** Polls until the proxy's log has a line `check` accepts (the test's timeout bounds the wait). */
const logged = (proxy: Proxy, check: (line: string) => boolean) =>
  Effect.gen(function*() {
    while (!proxy.log().some(check)) yield* Effect.sleep("20 millis")
  })

let sentinels = 0

/**
 * The proxy's log once it has caught up: a request sent through it now is logged after every
 * earlier one, so once its line is there, so are theirs.
 */
const settledLog = (proxy: Proxy, server: FakeHttpServer.FakeHttpServer) =>
  Effect.gen(function*() {
    const url = `${server.url}/sentinel-${++sentinels}`
    yield* Effect.scoped(Effect.flatMap(HttpClient.HttpClient, (client) => client.get(url))).pipe(
      Effect.provide(UndiciHttpClient.layerWith({ proxy: proxy.url }))
    )
    yield* logged(proxy, (line) => line === `GET ${url}`)
    return proxy.log().filter((line) => !line.includes("/sentinel-"))
  })

/** The forwarding proxy as a child process (with `auth`: 407 unless those credentials come). */
const startProxy = (auth?: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly proxy: Proxy; readonly child: ChildProcess.ChildProcess }, Error>((resume) => {
      const child = ChildProcess.spawn(
        process.execPath,
        [Path.join(here, "programs/forwardingProxy.mjs"), ...(auth === undefined ? [] : ["--auth", auth])],
        { stdio: ["ignore", "pipe", "inherit"] }
      )
      const lines: Array<string> = []
      let port: number | undefined
      Readline.createInterface({ input: child.stdout }).on("line", (line) => {
        const listening = /^listening (\d+)$/.exec(line)
        if (listening === null) return void lines.push(line)
        port = Number(listening[1])
        resume(Effect.succeed({
          child,
          proxy: { url: `http://127.0.0.1:${port}`, port, log: () => [...lines] }
        }))
      })
      child.once("exit", (code) => {
        if (port === undefined) resume(Effect.fail(new Error(`the proxy exited with ${code} before listening`)))
      })
    }),
    ({ child }) => Effect.sync(() => child.kill())
  ).pipe(Effect.map(({ proxy }) => proxy))

interface TestCa {
  readonly dir: string
  /** The CA's certificate, PEM. */
  readonly ca: string
  readonly caFile: string
  /** A server certificate for 127.0.0.1 the CA signed, and its key. */
  readonly cert: string
  readonly key: string
}

/** A test CA and a server certificate it signs for 127.0.0.1. */
const testCa = Effect.map(
  TestCertificates.testCa,
  (ca): TestCa => ({ ...ca, ...ca.issue("127.0.0.1", "IP:127.0.0.1") })
)

/**
 * A TLS server on 127.0.0.1 in front of `upstream` (an `http://127.0.0.1:<port>` URL): its `https:`
 * twin. Closing it destroys the connections still open: the test proxy leaves a tunnel's far end
 * open when the client resets its end (no FIN to forward), and `close` alone would wait for it.
 */
const tlsFront = (ca: TestCa, upstream: string) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.async<{ readonly server: Tls.Server; readonly open: Set<Net.Socket> }>((resume) => {
        const port = Number(new URL(upstream).port)
        const open = new Set<Net.Socket>()
        const server = Tls.createServer({ key: ca.key, cert: ca.cert }, (socket) => {
          const back = Net.connect(port, "127.0.0.1")
          socket.pipe(back).pipe(socket)
          socket.on("close", () => back.destroy())
          back.on("close", () => socket.destroy())
          socket.on("error", () => {})
          back.on("error", () => {})
        })
        // Every connection, those whose handshake never completes too.
        server.on("connection", (socket: Net.Socket) => {
          open.add(socket)
          socket.on("close", () => open.delete(socket))
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, open })))
      }),
      ({ open, server }) =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          for (const socket of open) socket.destroy()
        })
    ),
    ({ server }) => `https://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
  )

const fake = FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json" })

/** Calls `echo` on one Streamable HTTP server through `NodeMcpClient.layer` with `network`. */
const echoVia = (url: string, network: UndiciHttpClient.NetworkOptions) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.callTool("echo", { message: "hi" })).pipe(
    Effect.map((result) => (result.content[0] as { readonly text: string }).text),
    Effect.provide(NodeMcpClient.layer({ servers: [StreamableHttp.config({ name: "s", url })], ...network }))
  )

/** A GET of `url` on `UndiciHttpClient.layerWith(network)`: the request's error. */
const failureVia = (url: string, network: UndiciHttpClient.NetworkOptions) =>
  Effect.flip(
    Effect.flatMap(HttpClient.HttpClient, (client) => client.get(url)).pipe(
      Effect.scoped,
      Effect.provide(Layer.orDie(UndiciHttpClient.layerWith(network)))
    )
  )

const causeOf = (error: HttpClientError.HttpClientError) => {
  assert.strictEqual(error._tag, "RequestError")
  return (error as HttpClientError.RequestError).cause as Error & { readonly code?: string }
}

/** Every way the error may be printed. */
const printed = (error: unknown) =>
  [String(error), (error as Error).message, JSON.stringify(error), Util.inspect(error, { depth: 10 })].join("\n")

const isMcp = (url: string) => (line: string) => line.startsWith(`POST ${url}`)

describe("proxies", () => {
  it.scopedLive("HTTP_PROXY (either case) forwards plain HTTP requests to the proxy [not-on-bun: Bun's fetch proxies by itself]", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy()
      const server = yield* fake
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxyEnv: { HTTP_PROXY: proxy.url } }), "hi")
      const first = (yield* settledLog(proxy, server)).filter(isMcp(server.mcpUrl)).length
      assert.isTrue(first > 0, proxy.log().join("\n"))
      // The lower-case form, and no scheme: `http://` is meant.
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxyEnv: { http_proxy: `127.0.0.1:${proxy.port}` } }), "hi")
      const log = yield* settledLog(proxy, server)
      assert.strictEqual(log.filter(isMcp(server.mcpUrl)).length, 2 * first)
      assert.isFalse(log.some((line) => line.startsWith("CONNECT")))
    }))

  it.scopedLive("HTTPS_PROXY tunnels HTTPS through CONNECT, trusting the CA of `ca` inside the tunnel [not-on-bun: Bun's fetch proxies by itself]", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy()
      const ca = yield* testCa
      const server = yield* fake
      const https = yield* tlsFront(ca, server.url)
      const proxyEnv = { HTTPS_PROXY: proxy.url }
      assert.strictEqual(yield* echoVia(`${https}/mcp`, { proxyEnv, ca: ca.ca }), "hi")
      const log = yield* settledLog(proxy, server)
      assert.include(log, `CONNECT ${new URL(https).host}`)
      assert.isFalse(log.some((line) => line.startsWith("POST")), log.join("\n"))
      // Without the CA the server's certificate is not trusted: the tunnel opens, TLS fails.
      const untrusted = yield* Effect.flip(echoVia(`${https}/mcp`, { proxyEnv }))
      assert.instanceOf(untrusted, ConnectionError)
      const direct = yield* failureVia(`${https}/mcp`, { proxyEnv })
      assert.notStrictEqual(causeOf(direct).code, "EPROXY")
    }))

  it.scopedLive("`ca` is trusted on direct connections too", () =>
    Effect.gen(function*() {
      const ca = yield* testCa
      const server = yield* fake
      const https = yield* tlsFront(ca, server.url)
      assert.strictEqual(yield* echoVia(`${https}/mcp`, { proxy: false, ca: [ca.ca] }), "hi")
    }))

  it.scopedLive("an https: proxy is reached over TLS, its certificate checked against `ca` too [node-only: Bun's fetch proxies by itself; Deno's TLS refuses an IP address as servername]", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy()
      const ca = yield* testCa
      const server = yield* fake
      const httpsProxy = yield* tlsFront(ca, proxy.url)
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxy: httpsProxy, ca: ca.ca }), "hi")
      yield* logged(proxy, (line) => line === `CONNECT ${new URL(server.url).host}`)
      const untrusted = causeOf(yield* failureVia(server.mcpUrl, { proxy: httpsProxy }))
      assert.strictEqual(untrusted.code, "EPROXY")
      assert.match(untrusted.message, new RegExp(`^proxy ${httpsProxy} could not be reached \\(`))
    }))

  it.scopedLive("NO_PROXY hosts go direct", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy()
      const server = yield* fake
      const proxyEnv = { HTTP_PROXY: proxy.url, NO_PROXY: "example.com, 127.0.0.1" }
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxyEnv }), "hi")
      assert.isTrue((yield* server.requests).length > 0)
      assert.deepStrictEqual(yield* settledLog(proxy, server), [])
    }))

  it.scopedLive("an explicit `proxy` overrides the environment, `proxy: false` ignores it", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy()
      const closed = yield* Effect.promise(freePort)
      const server = yield* fake
      // The environment names a closed port, and exempts nothing: only the option is followed.
      const proxyEnv = { HTTP_PROXY: `http://127.0.0.1:${closed}`, NO_PROXY: "127.0.0.1" }
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxyEnv: { HTTP_PROXY: proxy.url }, proxy: false }), "hi")
      assert.deepStrictEqual(yield* settledLog(proxy, server), [])
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxyEnv, proxy: proxy.url }), "hi")
      assert.isTrue((yield* settledLog(proxy, server)).some(isMcp(server.mcpUrl)))
    }))

  it.scopedLive("connect({ oauth }) sends discovery, registration and token requests through the proxy too [not-on-bun: Bun's fetch proxies by itself]", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy()
      const server = yield* FakeOAuthServer.make
      const client = yield* Effect.promise(() =>
        connect(server.mcpUrl, {
          proxyEnv: { HTTP_PROXY: proxy.url },
          oauth: { storage: false, printUrl: () => {}, openBrowser: server.approve }
        })
      )
      const result = yield* Effect.promise(() => client.callTool("echo", { message: "hi" }))
      yield* Effect.promise(() => client.close())
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hi" }])
      yield* logged(proxy, (line) => line.startsWith(`POST ${server.issuer}/token`))
      yield* logged(proxy, isMcp(server.mcpUrl))
      const log = proxy.log()
      for (const request of ["GET /.well-known/oauth-authorization-server", "POST /register", "POST /token"]) {
        const [method, path] = request.split(" ")
        assert.isTrue(log.includes(`${method} ${server.issuer}${path}`), `${request} not in:\n${log.join("\n")}`)
      }
      assert.isTrue(log.some((line) => line.startsWith(`GET ${new URL(server.mcpUrl).origin}/.well-known/`)))
      assert.isTrue(log.some(isMcp(server.mcpUrl)))
    }))
})

describe("proxy failures", () => {
  it.scopedLive("a proxy answering 407 fails requests with an EPROXY cause naming it, never its credentials [not-on-bun: Bun's fetch proxies by itself]", () =>
    Effect.gen(function*() {
      const proxy = yield* startProxy("alice:right-password")
      const ca = yield* testCa
      const server = yield* fake
      const https = yield* tlsFront(ca, server.url)
      const secret = "wrong-password"
      const withCredentials = `http://alice:${secret}@127.0.0.1:${proxy.port}`
      for (const url of [server.mcpUrl, `${https}/mcp`]) {
        const error = yield* failureVia(url, { proxy: withCredentials, ca: ca.ca })
        const cause = causeOf(error)
        assert.strictEqual(cause.code, "EPROXY")
        assert.strictEqual(cause.message, `proxy ${proxy.url} answered 407 Proxy Authentication Required`)
        assert.instanceOf(cause.cause, Error)
        assert.notInclude(printed(error), secret)
      }
      // Through the MCP client and the facade: a ConnectionError, the credentials nowhere.
      const viaLayer = yield* Effect.flip(echoVia(server.mcpUrl, { proxy: withCredentials }))
      assert.instanceOf(viaLayer, ConnectionError)
      assert.strictEqual(viaLayer.reason, "proxy")
      assert.include(viaLayer.message, `proxy ${proxy.url} answered 407 Proxy Authentication Required`)
      assert.strictEqual((viaLayer.cause as { readonly code?: string }).code, "EPROXY")
      assert.notInclude(printed(viaLayer), secret)
      const viaFacade = yield* Effect.promise(() =>
        connect(`${https}/mcp`, { proxy: withCredentials, ca: ca.ca }).then(() => undefined, (error: unknown) => error)
      )
      assert.instanceOf(viaFacade, ConnectionError)
      assert.strictEqual((viaFacade as ConnectionError).reason, "proxy")
      assert.notInclude(printed(viaFacade), secret)
      // The right credentials go through (sent to the proxy, never to the server).
      const right = `http://alice:right-password@127.0.0.1:${proxy.port}`
      assert.strictEqual(yield* echoVia(server.mcpUrl, { proxy: right }), "hi")
      assert.strictEqual(yield* echoVia(`${https}/mcp`, { proxy: right, ca: ca.ca }), "hi")
      const received = yield* server.requests
      assert.isTrue(received.length > 0)
      assert.isTrue(received.every((request) => request.headers["proxy-authorization"] === undefined))
    }))

  it.scopedLive("a closed proxy port fails requests with an EPROXY cause: refused [not-on-bun: Bun's fetch proxies by itself]", () =>
    Effect.gen(function*() {
      const closed = yield* Effect.promise(freePort)
      const server = yield* fake
      for (const url of [server.mcpUrl, "https://127.0.0.1:9/mcp"]) {
        const cause = causeOf(yield* failureVia(url, { proxy: `http://bob:hunter2@127.0.0.1:${closed}` }))
        assert.strictEqual(cause.code, "EPROXY")
        assert.strictEqual(cause.message, `proxy http://127.0.0.1:${closed} refused the connection (ECONNREFUSED)`)
        assert.strictEqual((cause.cause as { readonly code?: string }).code, "ECONNREFUSED")
      }
    }))

  it.effect("a malformed `proxy` or `ca` option is a ConfigError naming the setting, not its value", () =>
    Effect.gen(function*() {
      const layer = (network: UndiciHttpClient.NetworkOptions) =>
        Effect.flip(Layer.build(UndiciHttpClient.layerWith(network)).pipe(Effect.scoped))
      const socks = yield* layer({ proxy: "socks5://carol:s3cret@127.0.0.1:1080" })
      assert.strictEqual(socks.message, "proxy: socks5: proxies are not supported (http: or https: only)")
      const broken = yield* layer({ proxy: "http://carol:s3cret@[bad" })
      assert.strictEqual(broken.message, "proxy is not a proxy URL (http://host:port)")
      assert.notInclude(printed(broken), "s3cret")
      const ca = yield* layer({ ca: "not a certificate" })
      assert.strictEqual(ca._tag, "ConfigError")
    }))

  it.scopedLive("a malformed proxy variable fails each HTTP request (EPROXY, naming it), not the client's build", () =>
    Effect.gen(function*() {
      const server = yield* fake
      const cause = causeOf(yield* failureVia(server.mcpUrl, { proxyEnv: { HTTPS_PROXY: "http://carol:s3cret@[bad" } }))
      assert.strictEqual(cause.code, "EPROXY")
      assert.strictEqual(cause.message, "HTTPS_PROXY is not a proxy URL (http://host:port)")
      assert.notInclude(printed(cause), "s3cret")
      assert.deepStrictEqual(yield* server.requests, [])
    }))
})

describe("in a process of its own", () => {
  it.scopedLive(
    "connect honours HTTPS_PROXY from the environment and NODE_EXTRA_CA_CERTS through the tunnel [node-only: a child on process.execPath with Node's NODE_EXTRA_CA_CERTS]",
    () =>
      Effect.gen(function*() {
        const proxy = yield* startProxy()
        const ca = yield* testCa
        const server = yield* fake
        const https = yield* tlsFront(ca, server.url)
        const script = [
          "import { connect } from \"@mcp-effect/node\"",
          `const client = await connect(${JSON.stringify(`${https}/mcp`)})`,
          "const result = await client.callTool(\"echo\", { message: \"from the child\" })",
          "console.log(result.content[0].text)",
          "await client.close()"
        ].join("\n")
        const { NO_PROXY: _, no_proxy: __, ...env } = process.env
        const child = yield* Effect.promise(() =>
          new Promise<{ readonly stdout: string; readonly stderr: string }>((resolve) =>
            ChildProcess.execFile(
              process.execPath,
              ["--input-type=module", "-e", script],
              { cwd: root, env: { ...env, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: ca.caFile } },
              (_error, stdout, stderr) => resolve({ stdout, stderr })
            )
          )
        )
        assert.strictEqual(child.stdout.trim(), "from the child", child.stderr)
        yield* logged(proxy, (line) => line === `CONNECT ${new URL(https).host}`)
      }),
    30_000
  )

  it.scopedLive(
    "the CLI's --proxy overrides HTTP_PROXY, --proxy none ignores it [not-on-bun: Bun's fetch proxies by itself]",
    () =>
      Effect.gen(function*() {
        const proxy = yield* startProxy()
        const closed = yield* Effect.promise(freePort)
        const server = yield* fake
        const cli = (...args: ReadonlyArray<string>) =>
          Effect.promise(() =>
            new Promise<string>((resolve, reject) =>
              ChildProcess.execFile(
                process.execPath,
                [Path.join(root, "packages/cli/bundle/mcp-effect.js"), "-t", server.mcpUrl, ...args, "tools"],
                { env: { ...process.env, HTTP_PROXY: `http://127.0.0.1:${closed}`, NO_PROXY: "" } },
                (error, stdout, stderr) =>
                  error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`))
              )
            )
          )
        assert.include(yield* cli("--proxy", proxy.url), "echo")
        assert.isTrue((yield* settledLog(proxy, server)).some(isMcp(server.mcpUrl)))
        const seen = (yield* settledLog(proxy, server)).length
        assert.include(yield* cli("--proxy", "none"), "echo")
        assert.strictEqual((yield* settledLog(proxy, server)).length, seen)
      }),
    30_000
  )
})
