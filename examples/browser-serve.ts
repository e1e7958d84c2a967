/**
 * `npm run example:browser`: serves the browser example (`examples/browser/`, bundled by esbuild
 * from the client's browser build) beside the demo server (`Scenarios.demo`, both eras), which
 * the page reaches on its own origin at `/mcp`. `PORT` picks the port (default 5178).
 *
 * @since 0.2.0
 */
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

// Beside this file when it runs from source (the tests), one folder up from examples/dist.
const here = Path.dirname(fileURLToPath(import.meta.url))
const page = Fs.existsSync(Path.join(here, "browser")) ? Path.join(here, "browser") : Path.join(here, "..", "browser")

/**
 * Forwards `request` to `target` (a URL) and its answer back, streams included, with `headers`
 * added to the answer.
 *
 * @since 0.2.0
 * @category utils
 */
export const forward = (
  request: Http.IncomingMessage,
  response: Http.ServerResponse,
  target: string,
  headers: Record<string, string> = {}
): void => {
  const upstream = Http.request(target, {
    method: request.method,
    headers: { ...request.headers, host: new URL(target).host }
  }, (reply) => {
    response.writeHead(reply.statusCode ?? 502, { ...reply.headers, ...headers })
    reply.pipe(response)
  })
  upstream.on("error", () => response.destroy())
  response.on("close", () => upstream.destroy())
  request.pipe(upstream)
}

/**
 * Serves the example page and the demo server on one loopback origin until the scope closes.
 *
 * @since 0.2.0
 * @category constructors
 */
export const serve = (port = 0): Effect.Effect<{ readonly url: string }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const demo = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual", subscriptions: true } })
    const app = yield* Effect.promise(() =>
      esbuild.build({
        entryPoints: [Path.join(page, "app.ts")],
        bundle: true,
        format: "esm",
        platform: "browser",
        target: "es2022",
        write: false,
        logLevel: "warning"
      })
    )
    const files: Record<string, readonly [string, string]> = {
      "/": ["text/html", Fs.readFileSync(Path.join(page, "index.html"), "utf8")],
      "/app.js": ["text/javascript", app.outputFiles[0]!.text]
    }
    const server = Http.createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://localhost").pathname
      if (path === "/mcp") return forward(request, response, demo.mcpUrl)
      const file = files[path]
      if (file === undefined) return void response.writeHead(404).end()
      response.writeHead(200, { "content-type": file[0] }).end(file[1])
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(port, "127.0.0.1", () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}/` }
  })

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  Effect.runFork(
    Effect.scoped(
      Effect.flatMap(serve(Number(process.env.PORT ?? 5178)), ({ url }) =>
        Effect.zipRight(
          Effect.sync(() =>
            console.log(`browser example: open ${url} (the demo server is at ${url}mcp); Ctrl-C stops`)
          ),
          Effect.never
        ))
    )
  )
}
