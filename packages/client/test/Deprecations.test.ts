import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Deprecations from "@mcp-effect/client/Deprecations"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { json } from "./utils/fakeHttp.js"

/** Runs `effect` with a fresh deprecation registry and returns the warnings it logged. */
const warnings = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.suspend(() => {
    const lines: Array<string> = []
    Deprecations.reset()
    return effect.pipe(
      Effect.provide(Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message }) => {
          const text = String(message)
          if (text.includes("is deprecated")) lines.push(text)
        })
      )),
      Effect.as(lines)
    )
  })

const features = (lines: ReadonlyArray<string>) => lines.map((l) => /mcp-effect: (\S+) is deprecated/.exec(l)![1])

const client = (definition: FakeServer.Definition, options: Omit<McpClient.Options, "servers"> = {}) =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* FakeServer.make(definition)
    return yield* McpClient.make({ ...options, servers: [server.config()] })
  }))

describe("deprecation warnings at the moment of configuration", () => {
  it.effect("a roots or sampling handler warns when the server speaks 2026-07-28", () =>
    Effect.gen(function*() {
      const lines = yield* warnings(client({ ...Scenarios.demo, era: "modern" }, {
        handlers: { roots: [], sampling: () => Effect.succeed({}) }
      }))
      assert.deepStrictEqual(features(lines), ["roots", "sampling"])
    }))

  it.effect("the same handlers against a legacy server do not warn (nothing is deprecated there)", () =>
    Effect.gen(function*() {
      const lines = yield* warnings(client(Scenarios.demo, {
        handlers: { roots: [], sampling: () => Effect.succeed({}) }
      }))
      assert.deepStrictEqual(lines, [])
    }))

  it.effect("a logLevel in the host's _meta warns like setLogLevel", () =>
    Effect.gen(function*() {
      const meta = yield* warnings(client({ ...Scenarios.demo, era: "modern" }, {
        requestMeta: { "io.modelcontextprotocol/logLevel": "debug" }
      }))
      assert.deepStrictEqual(features(meta), ["logging"])
      const set = yield* warnings(Effect.scoped(Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", logging: true })
        const c = yield* McpClient.make({ servers: [server.config()] })
        yield* c.setLogLevel("info")
      })))
      assert.deepStrictEqual(features(set), ["logging"])
    }))

  it.effect("setLogLevel against a legacy server does not warn (logging/setLevel is not deprecated there)", () =>
    Effect.gen(function*() {
      const lines = yield* warnings(Effect.scoped(Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...Scenarios.demo, logging: true })
        const c = yield* McpClient.make({ servers: [server.config()] })
        yield* c.setLogLevel("info")
        const sent = yield* server.requests("logging/setLevel")
        assert.deepStrictEqual(sent.map((r) => r.params), [{ level: "info" }])
      })))
      assert.deepStrictEqual(lines, [])
    }))

  it.effect("setRoots on a 2026-07-28 client without roots warns when it declares them", () =>
    Effect.gen(function*() {
      const lines = yield* warnings(Effect.scoped(Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern" })
        const c = yield* McpClient.make({ servers: [server.config()] })
        yield* c.setRoots([{ uri: "file:///work" }])
      })))
      assert.deepStrictEqual(features(lines), ["roots"])
    }))
})

describe("deprecation warnings at the moment of use", () => {
  it.effect("dynamic client registration warns when it registers", () =>
    Effect.gen(function*() {
      const serverUrl = "https://mcp.example.com/mcp"
      const issuer = "https://auth.example.com"
      const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
      const http = HttpClient.make((request, url) => {
        const path = `${url.origin}${url.pathname}`
        if (path === prmUrl) {
          return Effect.succeed(json(request, { resource: serverUrl, authorization_servers: [issuer] }))
        }
        if (path === `${issuer}/.well-known/oauth-authorization-server`) {
          return Effect.succeed(json(request, {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            registration_endpoint: `${issuer}/register`,
            code_challenge_methods_supported: ["S256"],
            response_types_supported: ["code"],
            authorization_response_iss_parameter_supported: true
          }))
        }
        if (path === `${issuer}/register`) {
          return Effect.succeed(
            json(request, { client_id: "dcr", redirect_uris: ["http://127.0.0.1:8976/callback"] }, 201)
          )
        }
        if (path === `${issuer}/token`) {
          return Effect.succeed(json(request, { access_token: "t", token_type: "Bearer", expires_in: 3600 }))
        }
        return Effect.succeed(json(request, { error: "not_found" }, 404))
      })
      const lines = yield* warnings(
        Effect.flatMap(
          OAuth.make({
            serverUrl,
            authorize: (auth) =>
              Effect.succeed(
                new URL(
                  `http://127.0.0.1:8976/callback?code=abc&state=${auth.searchParams.get("state")}&iss=${
                    encodeURIComponent(issuer)
                  }`
                )
              )
          }),
          (auth) =>
            auth.challenge({
              url: serverUrl,
              status: 401,
              wwwAuthenticate: `Bearer resource_metadata="${prmUrl}"`
            })
        ).pipe(Effect.provide(Layer.succeed(HttpClient.HttpClient, http)))
      )
      assert.deepStrictEqual(features(lines), ["dynamicClientRegistration"])
    }))
})

describe("the registry", () => {
  it("matches the spec's registry of deprecated features (deprecated.mdx)", () => {
    const r = Deprecations.registry
    for (const feature of ["roots", "sampling", "logging"] as const) {
      assert.strictEqual(r[feature].deprecatedSince, "2026-07-28 (SEP-2577)")
      assert.include(r[feature].earliestRemoval, "on or after 2027-07-28")
    }
    assert.strictEqual(r.dynamicClientRegistration.deprecatedSince, "2026-07-28 (PR #2858)")
    assert.include(r.dynamicClientRegistration.earliestRemoval, "on or after 2027-07-28")
    assert.strictEqual(r.includeContext.deprecatedSince, "2025-11-25 (SEP-2596)")
    assert.include(r.includeContext.earliestRemoval, "sampling")
    assert.strictEqual(r["http+sse"].deprecatedSince, "2025-03-26 (SEP-2596)")
    assert.strictEqual(r["http+sse"].earliestRemoval, "three months after SEP-2596 reaches Final")
  })
})
