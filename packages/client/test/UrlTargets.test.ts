// Strings that name a URL the client cannot use are refused with a ConfigError: never run as a
// command, never sent to, never retried.
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import * as Http from "@mcp-effect/client/Http"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import * as McpError from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Target from "@mcp-effect/client/Target"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { options } from "./utils/connection.js"

/** Each refused string and what its message must say. */
const refused: ReadonlyArray<readonly [string, string]> = [
  [
    "ftp://files.example.com/mcp",
    `"ftp://files.example.com/mcp": unsupported URL scheme "ftp:" (only http:// and https://)`
  ],
  [
    "ws://localhost:3000/mcp",
    `unsupported URL scheme "ws:" (only http:// and https://); MCP has no WebSocket transport`
  ],
  ["WSS://example.com/mcp", `unsupported URL scheme "wss:"`],
  ["htps://example.com/mcp", `unsupported URL scheme "htps:" (only http:// and https://); did you mean https://?`],
  ["htp://example.com/mcp", `; did you mean http://?`],
  ["htpts://example.com/mcp", `; did you mean https://?`],
  ["file:///srv/server.js", `unsupported URL scheme "file:"`],
  ["http://", `"http://": not a valid http:// or https:// URL`],
  ["https://exa mple.com/mcp", `"https://exa mple.com/mcp": not a valid http:// or https:// URL`],
  ["http://[::1/mcp", "not a valid http:// or https:// URL"],
  ["http:/localhost:3000/mcp", "not a valid http:// or https:// URL"],
  ["https:example.com/mcp", "not a valid http:// or https:// URL"]
]

/** Counts spawns and HTTP requests, and fails every one of them (nothing may get that far). */
const probes = () => {
  const counts = { spawns: 0, requests: 0 }
  const layer = Layer.merge(
    Layer.succeed(ChildProcessSpawner, {
      spawn: () => Effect.sync(() => counts.spawns++).pipe(Effect.zipRight(Effect.fail(new Error("spawned"))))
    }),
    Layer.succeed(
      HttpClient.HttpClient,
      HttpClient.make(() => Effect.sync(() => counts.requests++).pipe(Effect.zipRight(Effect.die("requested"))))
    )
  )
  return { counts, layer }
}

describe("URL targets", () => {
  it.effect("Target.toConfig refuses every other scheme and every malformed http(s) URL", () =>
    Effect.gen(function*() {
      for (const [target, says] of refused) {
        const error = yield* Effect.flip(Target.toConfig(target))
        assert.instanceOf(error, McpError.ConfigError, target)
        assert.include(error.message, says, target)
        assert.instanceOf(yield* Effect.flip(Target.parse(target)), McpError.ConfigError, target)
      }
    }))

  it.effect("a message holds no credentials, query or fragment", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Target.toConfig("ftp://user:s3cret@example.com/mcp?token=t0ken#frag"))
      assert.isTrue(error.message.startsWith(`"ftp://example.com/mcp": `), error.message)
      for (const secret of ["s3cret", "t0ken", "frag"]) assert.notInclude(error.message, secret)
      const malformed = yield* Effect.flip(Target.toConfig("http://user:s3cret@exa mple.com/?token=t0ken"))
      for (const secret of ["s3cret", "t0ken"]) assert.notInclude(malformed.message, secret)
    }))

  it.effect("a command line stays a command line; http(s) in any case is a URL; detect never throws", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(Target.detect("not a url"), { transport: "stdio", argv: ["not", "a", "url"] })
      assert.deepStrictEqual(Target.detect("npx -y mcp-remote https://example.com/mcp"), {
        transport: "stdio",
        argv: ["npx", "-y", "mcp-remote", "https://example.com/mcp"]
      })
      assert.deepStrictEqual(Target.detect("C://tools/server.exe"), {
        transport: "stdio",
        argv: ["C://tools/server.exe"]
      })
      assert.deepStrictEqual(yield* Target.parse("HTTPS://Example.com/MCP"), {
        transport: "auto",
        url: "HTTPS://Example.com/MCP"
      })
      assert.strictEqual((yield* Target.toConfig("HTTP://localhost:3000/mcp")).kind, "streamable_http")
      assert.deepStrictEqual(Target.detect("http://"), { transport: "auto", url: "http://" })
      assert.deepStrictEqual(Target.detect("ftp://x/mcp"), { transport: "auto", url: "ftp://x/mcp" })
    }))

  it("a list of URLs of any scheme is a list of targets, not an argv array", () => {
    assert.isTrue(Target.isTargetList(["ftp://a/mcp", "ws://b/mcp"]))
    assert.isTrue(Target.isTargetList(["htps://a/mcp"]))
    assert.isFalse(Target.isTargetList(["not", "a", "url"]))
  })

  it("StreamableHttp, Sse and Http configs carry the ConfigError; valid URLs carry none", () => {
    for (const [url, says] of refused) {
      for (const config of [StreamableHttp.config({ url }), Sse.config({ url }), Http.config({ baseUrl: url })]) {
        assert.instanceOf(config.configError, McpError.ConfigError, `${config.kind} ${url}`)
        assert.include(config.configError!.message, says)
      }
    }
    const endpoint = Http.config({ baseUrl: "https://api.example.com", endpoint: "ftp://elsewhere/rpc" })
    assert.include(endpoint.configError?.message, `unsupported URL scheme "ftp:"`)
    const unresolvable = Http.config({ baseUrl: "https://api.example.com", endpoint: "http://[::1/rpc" })
    assert.include(unresolvable.configError?.message, "not a valid http:// or https:// URL")
    assert.isUndefined(StreamableHttp.config({ url: "https://example.com/mcp" }).configError)
    assert.isUndefined(Sse.config({ url: "http://localhost:8000/sse" }).configError)
    assert.isUndefined(Http.config({ baseUrl: "https://api.example.com", endpoint: "/rpc" }).configError)
  })

  it.effect("McpConfig.toConfig refuses an entry built by hand with such a URL, before its oauth hook", () =>
    Effect.gen(function*() {
      let hooked = 0
      const error = yield* Effect.flip(
        McpConfig.toConfig({
          name: "api",
          type: "streamable_http",
          url: "ws://localhost/mcp",
          disabled: false,
          oauth: {}
        }, {
          oauth: () => Effect.sync(() => hooked++).pipe(Effect.zipRight(Effect.never))
        })
      )
      assert.instanceOf(error, McpError.ConfigError)
      assert.include(error.message, `server "api": "ws://localhost/mcp": unsupported URL scheme "ws:"`)
      assert.strictEqual(hooked, 0)
      const endpoint = yield* Effect.flip(
        McpConfig.toConfig({
          name: "rpc",
          type: "plain_http",
          url: "https://api.example.com",
          endpoint: "ftp://x/rpc",
          disabled: false
        })
      )
      assert.include(endpoint.message, `server "rpc": "ftp://x/rpc": unsupported URL scheme "ftp:"`)
      // A file's entry is checked when decoded, with the field named.
      const decoded = yield* Effect.flip(McpConfig.parse({ mcpServers: { api: { url: "htps://x/mcp?key=k3y" } } }))
      assert.strictEqual(
        decoded.message,
        `server "api": url: "htps://x/mcp": unsupported URL scheme "htps:" (only http:// and https://); ` +
          "did you mean https://?"
      )
    }))

  it.effect("McpClient.make fails with every ConfigError before spawning or sending anything", () =>
    Effect.gen(function*() {
      const { counts, layer } = probes()
      const servers: ReadonlyArray<ServerConfig<ChildProcessSpawner | HttpClient.HttpClient>> = [
        { ...StreamableHttp.config({ name: "a", url: "ftp://files.example.com/mcp", retries: 5 }), reconnect: {} },
        Sse.config({ name: "b", url: "htps://example.com/sse" }),
        yield* Target.toConfig("node server.js")
      ]
      const error = yield* Effect.flip(Effect.scoped(McpClient.make({ servers })).pipe(Effect.provide(layer)))
      assert.instanceOf(error, McpError.ConfigError)
      assert.deepStrictEqual(error.message.split("\n"), [
        `"ftp://files.example.com/mcp": unsupported URL scheme "ftp:" (only http:// and https://)`,
        `"htps://example.com/sse": unsupported URL scheme "htps:" (only http:// and https://); did you mean https://?`
      ])
      assert.deepStrictEqual(counts, { spawns: 0, requests: 0 })
    }))

  it.effect("ServerConnection.make fails with the config's ConfigError, nothing sent", () =>
    Effect.gen(function*() {
      const { counts, layer } = probes()
      const error = yield* Effect.flip(
        Effect.scoped(ServerConnection.make(Http.config({ baseUrl: "ws://localhost/rpc" }), options())).pipe(
          Effect.provide(layer)
        )
      )
      assert.instanceOf(error, McpError.ConfigError)
      assert.strictEqual(counts.requests, 0)
    }))

  it.effect("a retry loop on transient errors makes one attempt: a ConfigError is not transient", () =>
    Effect.gen(function*() {
      const { counts, layer } = probes()
      let attempts = 0
      const connect = Effect.suspend(() => {
        attempts++
        return Effect.scoped(
          McpClient.make({ servers: [StreamableHttp.config({ url: "htps://example.com/mcp", retries: 3 })] })
        )
      })
      const error = yield* Effect.flip(
        Effect.retry(connect, { times: 10, while: McpError.isTransient }).pipe(Effect.provide(layer))
      )
      assert.instanceOf(error, McpError.ConfigError)
      assert.isFalse(McpError.isTransient(error))
      assert.deepStrictEqual([attempts, counts.requests], [1, 0])
    }))

  it("a command that does not exist is not transient; other connection failures are", () => {
    const enoent = Object.assign(new Error("spawn not ENOENT"), { code: "ENOENT", syscall: "spawn not" })
    const eacces = Object.assign(new Error("spawn ./x EACCES"), { code: "EACCES", syscall: "spawn ./x" })
    const platform = { _tag: "SystemError", reason: "NotFound", module: "Command", syscall: "spawn not" }
    for (const cause of [enoent, eacces, platform]) {
      assert.isFalse(McpError.isTransient(new McpError.ConnectionError({ server: "s", message: "m", cause })))
    }
    const eagain = Object.assign(new Error("spawn x EAGAIN"), { code: "EAGAIN", syscall: "spawn x" })
    const refusedCause = Object.assign(new Error("connect ECONNREFUSED"), { code: "ENOENT", syscall: "connect" })
    for (const cause of [eagain, refusedCause, undefined]) {
      assert.isTrue(McpError.isTransient(new McpError.ConnectionError({ server: "s", message: "m", cause })))
    }
  })
})
