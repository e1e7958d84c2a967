/**
 * The interactive step of OAuth on a desktop: a loopback callback server (RFC 8252 §7.3), the
 * system browser opened on the authorization URL (which is always printed too), and a timeout.
 * The callback server answers with a short page and hands the callback URL to the flow, which
 * validates `state`, `iss` and repeated parameters.
 *
 * @example
 * ```ts
 * const browser = await NodeOAuthBrowser.start({ port: 0 })
 * const auth = await makeOAuth({ serverUrl, redirectUri: browser.redirectUri, authorize: browser.authorizePromise })
 * const client = await connect(serverUrl, { auth })
 * ```
 *
 * @since 0.1.0
 */
import type { AuthFailure } from "@mcp-effect/client/McpAuth"
import { AuthError } from "@mcp-effect/client/McpError"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import * as Http from "node:http"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Port of the loopback callback server; 0 picks a free one (default 0). */
  readonly port?: number | undefined
  /** Path of the callback (default `/callback`). */
  readonly path?: string | undefined
  /** How long to wait for the user (default 5 minutes). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Open the system browser (default true); a function replaces the opener. */
  readonly openBrowser?: boolean | ((url: string) => void) | undefined
  /** Where the authorization URL is printed (default: standard error). */
  readonly printUrl?: ((url: string) => void) | undefined
}

/**
 * A running callback server.
 *
 * @since 0.1.0
 * @category models
 */
export interface BrowserAuthorizer {
  /** `http://127.0.0.1:<port><path>`: register this as the redirect URI. */
  readonly redirectUri: string
  /** For `OAuth.make({ authorize })`. */
  readonly authorize: (authorizationUrl: URL) => Effect.Effect<URL, AuthFailure>
  /** For `makeOAuth({ authorize })` (Promise code). */
  readonly authorizePromise: (authorizationUrl: URL) => Promise<URL>
  /** Stops the callback server. */
  readonly close: () => Promise<void>
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const page = (title: string, text: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
  `<body style="font-family:sans-serif;margin:4em auto;max-width:36em"><h1>${escapeHtml(title)}</h1>` +
  `<p>${escapeHtml(text)}</p></body></html>`

/**
 * Opens `url` in the system browser; failures are ignored (the URL is printed anyway).
 *
 * @since 0.1.0
 * @category utils
 */
export const openInBrowser = (url: string): void => {
  const [command, args] = process.platform === "darwin"
    ? ["open", [url]] as const
    : process.platform === "win32"
    ? ["rundll32", ["url.dll,FileProtocolHandler", url]] as const
    : ["xdg-open", [url]] as const
  try {
    const child = spawn(command, [...args], { stdio: "ignore", detached: true })
    child.on("error", () => {})
    child.unref()
  } catch {
    // The printed URL is the fallback.
  }
}

/**
 * Starts the callback server on 127.0.0.1 (Promise code; `close()` stops it, and it never keeps
 * the process alive on its own).
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (options: Options = {}): Promise<BrowserAuthorizer> =>
  new Promise((resolve, reject) => {
    const path = options.path ?? "/callback"
    const timeout = Duration.decode(options.timeout ?? "5 minutes")
    let waiting: Deferred.Deferred<URL, AuthError> | undefined
    const server = Http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1")
      if (url.pathname !== path || (req.method !== "GET" && req.method !== "POST")) {
        res.writeHead(404, { "content-type": "text/plain" }).end("Not found")
        return
      }
      const current = waiting
      if (current === undefined) {
        res.writeHead(400, { "content-type": "text/html; charset=utf-8" }).end(
          page("No authorization in progress", "This callback was not expected. You can close this window.")
        )
        return
      }
      const failed = url.searchParams.get("error")
      res.writeHead(failed === null ? 200 : 400, { "content-type": "text/html; charset=utf-8", connection: "close" })
        .end(
          failed === null
            ? page("Authorization received", "You can close this window and return to the application.")
            : page("Authorization failed", "The authorization server refused the request. You can close this window.")
        )
      waiting = undefined
      Effect.runSync(Deferred.succeed(current, new URL(`${url.pathname}${url.search}`, redirectUri)))
    })
    let redirectUri = ""
    server.on("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.unref()
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : options.port ?? 0
      redirectUri = `http://127.0.0.1:${port}${path}`
      const print = options.printUrl ?? ((u: string) => process.stderr.write(`Open this URL to authorize: ${u}\n`))
      const open = options.openBrowser === false
        ? () => {}
        : typeof options.openBrowser === "function"
        ? options.openBrowser
        : openInBrowser
      const authorize = (authorizationUrl: URL): Effect.Effect<URL, AuthFailure> =>
        Effect.gen(function*() {
          const deferred = yield* Deferred.make<URL, AuthError>()
          waiting = deferred
          print(authorizationUrl.href)
          open(authorizationUrl.href)
          return yield* Deferred.await(deferred).pipe(
            Effect.timeoutFail({
              duration: timeout,
              onTimeout: () =>
                new AuthError({
                  server: authorizationUrl.origin,
                  reason: "authorization",
                  message: `no authorization callback within ${Duration.format(timeout)}`
                })
            }),
            Effect.ensuring(Effect.sync(() => {
              if (waiting === deferred) waiting = undefined
            }))
          )
        })
      resolve({
        redirectUri,
        authorize,
        authorizePromise: (authorizationUrl) => Effect.runPromise(authorize(authorizationUrl)),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/**
 * The callback server in a scope (closed with it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<BrowserAuthorizer, AuthError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => start(options),
      catch: (e) =>
        new AuthError({
          server: "127.0.0.1",
          reason: "authorization",
          message: `cannot start the OAuth callback server: ${e instanceof Error ? e.message : String(e)}`
        })
    }),
    (browser) => Effect.promise(() => browser.close())
  )
