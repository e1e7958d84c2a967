/**
 * OAuth end to end on loopback: a protected MCP server (a gateway checking Bearer tokens in front
 * of a fake MCP server), a local authorization server, and the browser flow driven headlessly
 * (the "browser" follows the authorization URL and requests the callback).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

interface Granted {
  readonly scopes: ReadonlyArray<string>
}

const listen = (handler: Http.RequestListener) =>
  Effect.acquireRelease(
    Effect.async<Http.Server>((resume) => {
      const server = Http.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const readBody = (req: Http.IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let body = ""
    req.on("data", (chunk: Buffer) => body += chunk.toString("utf8"))
    req.on("end", () => resolve(body))
  })

const json = (res: Http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))

describe("OAuth end to end", () => {
  it.scopedLive("authorizes through the browser flow, refreshes, and steps up to a larger scope", () =>
    Effect.gen(function*() {
      const upstream = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual" },
        sessions: false,
        responseMode: "json"
      })
      const tokens = new Map<string, Granted>()
      const grants: Array<{ readonly grant: string | null; readonly scope: string | null }> = []
      const refreshScopes = new Map<string, string>()
      let issued = 0
      let asUrl = ""
      let gatewayUrl = ""

      asUrl = yield* listen((req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        if (url.pathname === "/.well-known/oauth-authorization-server") {
          return json(res, 200, {
            issuer: asUrl,
            authorization_endpoint: `${asUrl}/authorize`,
            token_endpoint: `${asUrl}/token`,
            registration_endpoint: `${asUrl}/register`,
            code_challenge_methods_supported: ["S256"],
            authorization_response_iss_parameter_supported: true,
            scopes_supported: ["mcp:read", "mcp:write", "offline_access"]
          })
        }
        if (url.pathname === "/register") {
          return void readBody(req).then((body) =>
            json(res, 201, { client_id: "e2e-client", redirect_uris: JSON.parse(body).redirect_uris })
          )
        }
        if (url.pathname === "/authorize") {
          const back = new URL(url.searchParams.get("redirect_uri")!)
          back.searchParams.set("code", `code:${url.searchParams.get("scope") ?? ""}`)
          back.searchParams.set("state", url.searchParams.get("state")!)
          back.searchParams.set("iss", asUrl)
          return void res.writeHead(302, { location: back.href }).end()
        }
        if (url.pathname === "/token") {
          return void readBody(req).then((body) => {
            const form = new URLSearchParams(body)
            grants.push({ grant: form.get("grant_type"), scope: form.get("scope") })
            // A refresh keeps the scopes of the grant it continues.
            const scope = form.get("grant_type") === "authorization_code"
              ? form.get("code")!.slice("code:".length)
              : refreshScopes.get(form.get("refresh_token")!)!
            const token = `token-${++issued}`
            tokens.set(token, { scopes: scope.split(" ") })
            refreshScopes.set(`r-${issued}`, scope)
            // 30 s is inside the client's refresh margin: the next request refreshes first.
            json(res, 200, {
              access_token: token,
              token_type: "Bearer",
              expires_in: 30,
              refresh_token: `r-${issued}`,
              scope
            })
          })
        }
        json(res, 404, { error: "not_found" })
      })

      gatewayUrl = yield* listen((req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        const challenge = `Bearer resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/mcp"`
        if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
          return json(res, 200, {
            resource: `${gatewayUrl}/mcp`,
            authorization_servers: [asUrl],
            scopes_supported: ["mcp:read"]
          })
        }
        void readBody(req).then(async (body) => {
          const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
          const granted = token === undefined ? undefined : tokens.get(token)
          if (granted === undefined) {
            return json(res, 401, { error: "invalid_token" }, { "www-authenticate": challenge })
          }
          const method = body === "" ? undefined : (JSON.parse(body) as { method?: string }).method
          if (method === "tools/call" && !granted.scopes.includes("mcp:write")) {
            return json(res, 403, { error: "insufficient_scope" }, {
              "www-authenticate":
                `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="${gatewayUrl}/.well-known/oauth-protected-resource/mcp"`
            })
          }
          const headers: Record<string, string> = {}
          for (const [name, value] of Object.entries(req.headers)) {
            if (typeof value === "string" && name !== "host" && name !== "authorization" && name !== "content-length") {
              headers[name] = value
            }
          }
          const answer = await fetch(`${upstream.url}${url.pathname}${url.search}`, {
            method: req.method ?? "GET",
            headers,
            ...(body === "" ? {} : { body })
          })
          const out: Record<string, string> = {}
          answer.headers.forEach((value, name) => {
            if (name !== "content-length" && name !== "transfer-encoding" && name !== "content-encoding") {
              out[name] = value
            }
          })
          res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()))
        })
      })

      // The headless "browser": follow the authorization URL, then request the callback.
      const browser = yield* NodeOAuthBrowser.make({
        printUrl: () => {},
        openBrowser: (url) => {
          void fetch(url, { redirect: "manual" }).then((answer) => fetch(answer.headers.get("location")!))
        }
      })
      const auth = yield* OAuth.make({
        serverUrl: `${gatewayUrl}/mcp`,
        redirectUri: browser.redirectUri,
        authorize: browser.authorize
      })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "protected", url: `${gatewayUrl}/mcp`, auth }),
        { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
      )

      const tools = yield* connection.listTools()
      assert.isTrue(tools.some((tool) => tool.name === "echo"))
      const result = yield* connection.callTool("echo", { message: "hi" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hi" }])

      const kinds = grants.map((g) => g.grant)
      // The first code grant asked for the resource's scopes (offline_access added: the AS lists it).
      assert.strictEqual(kinds[0], "authorization_code")
      assert.isTrue(kinds.includes("refresh_token"), `grants: ${kinds.join(", ")}`)
      // Step-up: a second code grant, asking for the union.
      const codeGrants = grants.filter((g) => g.grant === "authorization_code")
      assert.strictEqual(codeGrants.length, 2)
      const stepUp = [...tokens.values()].some((t) => t.scopes.includes("mcp:read") && t.scopes.includes("mcp:write"))
      assert.isTrue(stepUp)
      // The HttpClient must outlive the McpAuth that captured it: provide it around both.
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
