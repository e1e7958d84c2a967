/**
 * The OAuth-protected fake: a Bearer-checking gateway in front of a fake MCP server, and a local
 * authorization server.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as FakeHttpServer from "../FakeHttpServer.js"
import type * as Api from "../FakeOAuthServer.js"
import * as Scenarios from "../Scenarios.js"

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

/** The response headers a page on another origin must be able to read (docs/browser.md), DPoP's nonce too. */
const exposed = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, DPoP-Nonce"

/**
 * `handler` for pages of other origins: preflights answered, every response readable by the
 * page that asked (its `Origin` echoed), the headers MCP and OAuth need exposed.
 */
const withCors = (handler: Http.RequestListener): Http.RequestListener => (req, res) => {
  res.setHeader("access-control-allow-origin", req.headers.origin ?? "*")
  res.setHeader("access-control-expose-headers", exposed)
  res.setHeader("vary", "Origin")
  if (req.method === "OPTIONS") {
    return void res.writeHead(204, {
      "access-control-allow-methods": "GET, POST, DELETE",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
      "access-control-max-age": "600"
    }).end()
  }
  handler(req, res)
}

/** @internal */
export const make = (options: Api.Options): Effect.Effect<Api.FakeOAuthServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const upstream = yield* FakeHttpServer.make({
      definition: { ...Scenarios.demo, era: "dual" },
      sessions: false,
      responseMode: "json"
    })
    const lifetime = (issued: number): number =>
      typeof options.expiresIn === "function" ? options.expiresIn(issued) : options.expiresIn ?? 30
    const tokens = new Map<string, { readonly scopes: ReadonlyArray<string> }>()
    /** Epoch milliseconds after which an issued token is refused. */
    const expiries = new Map<string, number>()
    const grants: Array<Api.Grant> = []
    const refreshScopes = new Map<string, string>()
    const codeScopes = new Map<string, string>()
    const secrets = new Set<string>()
    let issued = 0
    let asUrl = ""
    let gatewayUrl = ""

    const serve = (handler: Http.RequestListener) => listen(options.cors === true ? withCors(handler) : handler)

    asUrl = yield* serve((req, res) => {
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
        const code = `code-${Crypto.randomBytes(12).toString("hex")}`
        codeScopes.set(code, url.searchParams.get("scope") ?? "")
        secrets.add(code)
        back.searchParams.set("code", code)
        back.searchParams.set("state", url.searchParams.get("state")!)
        back.searchParams.set("iss", asUrl)
        return void res.writeHead(302, { location: back.href }).end()
      }
      if (url.pathname === "/token") {
        return void readBody(req).then((body) => {
          const form = new URLSearchParams(body)
          grants.push({ grant: form.get("grant_type"), scope: form.get("scope") })
          for (const name of ["code", "code_verifier", "client_secret", "refresh_token"]) {
            const value = form.get(name)
            if (value !== null) secrets.add(value)
          }
          const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1]
          if (basic !== undefined) {
            secrets.add(decodeURIComponent(Buffer.from(basic, "base64").toString("utf8").split(":")[1] ?? ""))
          }
          const refreshToken = form.get("refresh_token") ?? ""
          if (form.get("grant_type") === "refresh_token" && !refreshScopes.has(refreshToken)) {
            return json(res, 400, { error: "invalid_grant", error_description: "unknown or revoked refresh token" })
          }
          // A refresh keeps the scopes of the grant it continues.
          const scope = form.get("grant_type") === "authorization_code"
            ? codeScopes.get(form.get("code")!) ?? ""
            : refreshScopes.get(refreshToken)!
          if (options.rotateRefreshTokens === true) refreshScopes.delete(refreshToken)
          const token = `token-${++issued}-${Crypto.randomBytes(12).toString("hex")}`
          const refresh = `r-${issued}-${Crypto.randomBytes(12).toString("hex")}`
          tokens.set(token, { scopes: scope.split(" ") })
          const expiresIn = lifetime(issued)
          expiries.set(token, Date.now() + expiresIn * 1000)
          refreshScopes.set(refresh, scope)
          secrets.add(token).add(refresh)
          // 30 s (the default) is inside the client's refresh margin: the next request refreshes first.
          json(res, 200, {
            access_token: token,
            token_type: "Bearer",
            expires_in: expiresIn,
            refresh_token: refresh,
            scope
          })
        })
      }
      json(res, 404, { error: "not_found" })
    })

    gatewayUrl = yield* serve((req, res) => {
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
        const expired = token !== undefined && Date.now() >= (expiries.get(token) ?? Infinity)
        if (granted === undefined || expired) {
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
      }).catch(() => res.destroy())
    })
    return {
      mcpUrl: `${gatewayUrl}/mcp`,
      issuer: asUrl,
      grants,
      tokens,
      approve: (authorizationUrl) => {
        void fetch(authorizationUrl, { redirect: "manual" })
          .then((answer) => fetch(answer.headers.get("location")!))
          .then((callback) => callback.arrayBuffer())
          .catch(() => {})
      },
      secrets,
      revokeRefreshTokens: () => refreshScopes.clear()
    }
  })
