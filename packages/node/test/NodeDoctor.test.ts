import { assert, describe, it } from "@effect/vitest"
import { doctor } from "@mcp-effect/node"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as NodeDoctor from "@mcp-effect/node/NodeDoctor"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Https from "node:https"
import * as Net from "node:net"
import { fakeServerBin } from "./paths.js"
import { testCa } from "./testCertificates.js"

const platform = Layer.merge(UndiciHttpClient.layer, NodeChildProcess.layer)
const quiet = Logger.withMinimumLogLevel(LogLevel.None)

/** Each step as `name:status`. */
const outline = (report: NodeDoctor.Report) => report.steps.map((step) => `${step.name}:${step.status}`)
const step = (report: NodeDoctor.Report, name: NodeDoctor.StepName) => report.steps.find((s) => s.name === name)!

const diagnose = (target: string, options?: NodeDoctor.Options) =>
  NodeDoctor.diagnose(target, { timeout: "10 seconds", ...options }).pipe(Effect.provide(platform), quiet)

const closedPort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as Net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const httpsServer = (identity: { readonly key: string; readonly cert: string }) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Https.Server; readonly port: number }>((resume) => {
      const server = Https.createServer(identity, (_request, response) => response.end("{}"))
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, port: (server.address() as Net.AddressInfo).port })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() =>
          resume(Effect.void)
        )
      })
  )

describe("NodeDoctor.diagnose", () => {
  it.scopedLive("a healthy Streamable HTTP server: every step passes, each with its timing", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const report = yield* diagnose(server.mcpUrl)
      assert.deepStrictEqual(outline(report), [
        "dns:ok",
        "tcp:ok",
        "tls:skip",
        "http:ok",
        "metadata:ok",
        "era:ok",
        "auth:ok",
        "tools:ok"
      ])
      assert.isTrue(report.ok)
      assert.isTrue(report.steps.every((s) => typeof s.ms === "number" && s.ms >= 0))
      assert.match(step(report, "era").detail, /era .*protocol/)
      assert.match(step(report, "tools").detail, /^\d+ tools?$/)
      const modern = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "modern" } })
      assert.include(step(yield* diagnose(modern.mcpUrl), "era").detail, "modern era (server/discover)")
    }))

  it.scopedLive("a closed port: tcp fails with a hint, later steps are not run", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const report = yield* diagnose(`http://127.0.0.1:${port}/mcp`)
      assert.deepStrictEqual(outline(report).slice(0, 3), ["dns:ok", "tcp:fail", "tls:skip"])
      assert.isFalse(report.ok)
      assert.include(step(report, "tcp").detail, "ECONNREFUSED")
      assert.include(step(report, "tcp").hint, `nothing listens on 127.0.0.1:${port}`)
      assert.deepStrictEqual(report.steps.slice(2).map((s) => s.status), [
        "skip",
        "skip",
        "skip",
        "skip",
        "skip",
        "skip"
      ])
    }))

  it.scopedLive("a bad certificate: tls fails, naming the trust problem", () =>
    Effect.gen(function*() {
      const ca = yield* testCa
      const { port } = yield* httpsServer(ca.selfSigned("localhost", "DNS:localhost,IP:127.0.0.1"))
      const report = yield* diagnose(`https://localhost:${port}/mcp`)
      assert.strictEqual(step(report, "tls").status, "fail")
      assert.include(step(report, "tls").detail, "SELF_SIGNED")
      assert.include(step(report, "tls").hint, "NODE_EXTRA_CA_CERTS")
      assert.strictEqual(step(report, "http").status, "skip")
    }))

  it.scopedLive("a 404 on the endpoint: http fails with the path hint", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const report = yield* diagnose(`${server.url}/nothing-here`)
      assert.deepStrictEqual(outline(report).slice(0, 4), ["dns:ok", "tcp:ok", "tls:skip", "http:fail"])
      assert.include(step(report, "http").detail, "404")
      assert.include(step(report, "http").hint, "/mcp")
    }))

  it.scopedLive("a 401 without metadata: metadata fails (RFC 9728), nothing signs in", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, status4xx: { status: 401, method: "*" } })
      const report = yield* diagnose(server.mcpUrl)
      assert.strictEqual(step(report, "http").status, "ok")
      assert.include(step(report, "http").detail, "401")
      assert.strictEqual(step(report, "metadata").status, "fail")
      assert.include(step(report, "metadata").hint, "RFC 9728")
      assert.deepStrictEqual(outline(report).slice(5), ["era:skip", "auth:skip", "tools:skip"])
    }))

  it.scopedLive("an OAuth-protected server: its metadata found, auth fails without a token, passes with one", () =>
    Effect.gen(function*() {
      const server = yield* FakeOAuthServer.make
      const report = yield* diagnose(server.mcpUrl)
      assert.strictEqual(step(report, "metadata").status, "ok")
      assert.include(step(report, "metadata").detail, server.issuer)
      assert.include(step(report, "metadata").detail, "dynamic registration")
      assert.deepStrictEqual(outline(report).slice(5), ["era:skip", "auth:fail", "tools:skip"])
      assert.include(step(report, "auth").hint, "never signs in")
      assert.deepStrictEqual(server.grants, [])
      server.tokens.set("doctor-token", { scopes: ["mcp:write"] })
      const withToken = yield* diagnose(server.mcpUrl, { headers: { authorization: "Bearer doctor-token" } })
      assert.deepStrictEqual(outline(withToken).slice(5), ["era:ok", "auth:ok", "tools:ok"])
    }))

  it.scopedLive("a legacy-only (HTTP+SSE) server: a warning at http, then it works", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const report = yield* diagnose(server.sseUrl)
      assert.strictEqual(step(report, "http").status, "warn")
      assert.include(step(report, "http").detail, "HTTP+SSE")
      assert.include(step(report, "http").hint, "Streamable HTTP")
      assert.deepStrictEqual(outline(report).slice(5), ["era:ok", "auth:ok", "tools:ok"])
      assert.include(step(report, "era").detail, "legacy era")
      assert.isTrue(report.ok)
    }))

  it.scopedLive("a stdio server: era, auth and tools only", () =>
    Effect.gen(function*() {
      const report = yield* NodeDoctor.diagnose([process.execPath, fakeServerBin]).pipe(
        Effect.provide(platform),
        quiet
      )
      assert.deepStrictEqual(outline(report), ["era:ok", "auth:ok", "tools:ok"])
    }))

  it.live("the Promise form never rejects: a failure is a step", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const report = yield* Effect.promise(() => doctor(`http://127.0.0.1:${port}/mcp`))
      assert.isFalse(report.ok)
      assert.strictEqual(report.steps[1]!.status, "fail")
    }))

  it.effect("server-controlled text is escaped", () =>
    Effect.gen(function*() {
      const report = yield* NodeDoctor.diagnose("http://127.0.0.1:1/\u001b[31mred").pipe(
        Effect.provide(platform),
        quiet
      )
      assert.notInclude(JSON.stringify(report.steps), "\u001b")
    }))
})
