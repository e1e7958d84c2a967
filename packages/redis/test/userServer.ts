/**
 * A small MCP server (Streamable HTTP, JSON answers, the 2025-11-25 handshake) whose
 * `tools/list` depends on who asks: each bearer token is a user with a tool of their own, and the
 * list carries the cache hints `ttlMs` and `cacheScope` (private: a list per user; public: one
 * list for everyone). It counts the `tools/list` requests of each user.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type * as Net from "node:net"

export interface UserServer {
  readonly url: string
  /** `tools/list` requests by user (`anonymous` without a token). */
  readonly lists: Map<string, number>
}

interface Message {
  readonly id?: string | number
  readonly method?: string
  readonly params?: { readonly protocolVersion?: string }
}

const userOf = (req: Http.IncomingMessage): string => {
  const header = req.headers.authorization ?? ""
  return header.startsWith("Bearer ") ? `user-${header.slice(7)}` : "anonymous"
}

export const make = (scope: "public" | "private"): Effect.Effect<UserServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const lists = new Map<string, number>()
      const answer = (user: string, message: Message) => {
        switch (message.method) {
          case "initialize":
            return {
              protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
              capabilities: { tools: { listChanged: true } },
              serverInfo: { name: "users", version: "1.0.0" }
            }
          case "ping":
            return {}
          case "tools/list": {
            lists.set(user, (lists.get(user) ?? 0) + 1)
            const name = scope === "public" ? "shared-tool" : `tool-of-${user}`
            return { tools: [{ name, inputSchema: { type: "object" } }], ttlMs: 60_000, cacheScope: scope }
          }
          default:
            return undefined
        }
      }
      const server = Http.createServer((req, res) => {
        if (req.method !== "POST") {
          res.writeHead(405).end()
          return
        }
        let body = ""
        req.on("data", (chunk: Buffer) => body += chunk.toString("utf8"))
        req.on("end", () => {
          const message = JSON.parse(body) as Message
          if (message.id === undefined) {
            res.writeHead(202).end()
            return
          }
          const result = answer(userOf(req), message)
          const reply = result === undefined
            ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }
            : { jsonrpc: "2.0", id: message.id, result }
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply))
        })
      })
      return new Promise<{ readonly server: Http.Server; readonly info: UserServer }>((resolve) =>
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as Net.AddressInfo
          resolve({ server, info: { url: `http://127.0.0.1:${port}/mcp`, lists } })
        })
      )
    }),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ info }) => info))
