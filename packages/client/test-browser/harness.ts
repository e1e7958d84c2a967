/**
 * What the Chromium tests stand on: Debian's `chromium` (installed when missing), the page
 * bundled by esbuild (or Vite) from the client's browser bundle, a page server, and a CORS
 * gateway that forwards to fake servers with the headers docs/browser.md asks servers for.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { forward } from "../../../examples/browser-serve.js"

export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
export const chromiumPath = "/usr/bin/chromium"
export const artifacts = Path.join(root, ".browser-artifacts")

/**
 * Installs Debian's `chromium` when it is missing (root in CI); fails saying how otherwise,
 * never skips.
 */
export const ensureChromium = (): void => {
  if (Fs.existsSync(chromiumPath)) return
  const started = Date.now()
  const install = ChildProcess.spawnSync(
    "sh",
    ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"],
    { stdio: "inherit" }
  )
  if (install.status !== 0 || !Fs.existsSync(chromiumPath)) {
    throw new Error(
      `${chromiumPath} is missing and could not be installed (exit ${install.status}): ` +
        "run `apt-get update && apt-get install -y chromium` as root"
    )
  }
  console.log(`installed chromium in ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

/** The tests bundle the client's browser build: `npm run build` makes it (the typecheck step runs it). */
export const ensureBuilt = (): void => {
  if (!Fs.existsSync(Path.join(root, "packages/client/browser/index.js"))) {
    throw new Error("packages/client/browser/ is missing: run `npm run build` first")
  }
}

/** A server on a free loopback port, closed by `close`. */
export const listen = async (handler: Http.RequestListener) => {
  const server = Http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as Net.AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Serves `files` (path → [content type, body]) at their paths. */
export const pageServer = (files: Record<string, readonly [string, string]>) =>
  listen((request, response) => {
    const file = files[new URL(request.url ?? "/", "http://x").pathname]
    if (file === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { "content-type": file[0] }).end(file[1])
  })

/** The response headers a page must be able to read (docs/browser.md). */
export const exposedHeaders = ["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "Retry-After"]

/**
 * Forwards `/NAME/…` to `targets[NAME]` (a base URL), answering preflights and adding the CORS
 * headers a cross-origin MCP server must send.
 */
export const corsGateway = (targets: Record<string, string>) =>
  listen((request, response) => {
    const cors = {
      "access-control-allow-origin": request.headers.origin ?? "*",
      "access-control-expose-headers": exposedHeaders.join(", ")
    }
    if (request.method === "OPTIONS") {
      response.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "GET, POST, DELETE",
        "access-control-allow-headers": request.headers["access-control-request-headers"] ?? "*",
        "access-control-max-age": "600"
      }).end()
      return
    }
    const [, name, ...rest] = (request.url ?? "/").split("/")
    const target = targets[name ?? ""]
    if (target === undefined) {
      response.writeHead(404, cors).end()
      return
    }
    forward(request, response, `${target}/${rest.join("/")}`, cors)
  })

export const html = (script: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>mcp-effect</title></head>` +
  `<body><script type="module" src="${script}"></script></body></html>`
