/**
 * MCP Apps metadata (issue #36, point 7): a tool's UI resource and the resource's CSP and
 * permissions, read from a server; domains that could break a CSP header are refused.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpApps from "@mcp-effect/client/McpApps"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const APP = "ui://weather/forecast"

const forecast = FakeServer.tool("forecast", () => Effect.succeed("sunny"), {
  _meta: { ui: { resourceUri: APP, visibility: ["model", "app", "elsewhere"] } }
})
const legacyNamed = FakeServer.tool("legacy", () => Effect.succeed("x"), {
  _meta: { "ui/resourceUri": "ui://old/app" }
})
const plain = FakeServer.tool("plain", () => Effect.succeed("x"))

const app: FakeServer.ResourceDefinition = {
  resource: { uri: APP, name: "forecast app", mimeType: McpApps.MIME_TYPE },
  contents: [{
    uri: APP,
    mimeType: McpApps.MIME_TYPE,
    text: "<html><body>forecast</body></html>",
    _meta: {
      ui: {
        csp: {
          connectDomains: ["https://api.weather.example", "wss://live.weather.example"],
          resourceDomains: ["https://cdn.weather.example", "https://x.example; script-src *", "'unsafe-inline'"],
          frameDomains: "not a list"
        },
        permissions: { camera: {}, clipboardWrite: {}, geolocation: false },
        domain: "https://forecast.apps.example",
        prefersBorder: true
      }
    }
  }]
}

const definition = { ...Scenarios.demo, tools: [forecast, legacyNamed, plain], resources: [app] }

describe("MCP Apps", () => {
  it("a tool's UI resource and its visibility; none for a tool without one", () => {
    assert.deepStrictEqual(McpApps.toolUi(forecast.tool), { resourceUri: APP, visibility: ["model", "app"] })
    assert.deepStrictEqual(McpApps.toolUi(legacyNamed.tool), {
      resourceUri: "ui://old/app",
      visibility: ["model", "app"]
    })
    assert.isUndefined(McpApps.toolUi(plain.tool))
  })

  for (const era of ["legacy", "dual"] as const) {
    it.scoped(`${era}: the app's HTML, CSP domains and permissions, read from the server`, () =>
      Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...definition, era })
        const client = yield* McpClient.make({ servers: [server.config({ name: "weather" })] })
        const tools = yield* client.listTools()
        const ui = McpApps.toolUi(tools.find((t) => t.name === "forecast")!)!
        const resource = yield* McpApps.read(ui.resourceUri).pipe(
          Effect.provide(Layer.succeed(McpClient.McpClient, client))
        )
        assert.strictEqual(resource.html, "<html><body>forecast</body></html>")
        assert.strictEqual(resource.mimeType, McpApps.MIME_TYPE)
        assert.deepStrictEqual(resource.csp, {
          connectDomains: ["https://api.weather.example", "wss://live.weather.example"],
          resourceDomains: ["https://cdn.weather.example"],
          frameDomains: [],
          baseUriDomains: []
        })
        assert.strictEqual(resource.refusedDomains, 2)
        assert.deepStrictEqual(resource.permissions, {
          camera: true,
          microphone: false,
          geolocation: false,
          clipboardWrite: true
        })
        assert.strictEqual(resource.domain, "https://forecast.apps.example")
        assert.isTrue(resource.prefersBorder)
      }))
  }

  it.scoped("a resource without text content for the URI is an InvalidResponseError", () =>
    Effect.gen(function*() {
      const blob: FakeServer.ResourceDefinition = {
        resource: { uri: "ui://bin/app", name: "bin" },
        contents: [{ uri: "ui://bin/app", blob: "AAAA" }]
      }
      const server = yield* FakeServer.make({ ...definition, resources: [blob] })
      const client = yield* McpClient.make({ servers: [server.config({ name: "bin" })] })
      const error = yield* Effect.flip(
        McpApps.read("ui://bin/app").pipe(Effect.provide(Layer.succeed(McpClient.McpClient, client)))
      )
      assert.strictEqual(error._tag, "InvalidResponseError")
    }))
})
