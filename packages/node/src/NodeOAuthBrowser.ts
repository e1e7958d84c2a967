/**
 * The interactive step of OAuth on a desktop: a loopback callback server (RFC 8252 §7.3) on the
 * platform `HttpServer`, the system browser opened on the authorization URL (which is always
 * printed too), and a timeout. The callback server answers with a short page (success or
 * failure) and hands the callback URL to the flow, which validates `state`, `iss` and repeated
 * parameters.
 *
 * `make` is a scoped resource, so it fits `OAuth.make({ interactive: NodeOAuthBrowser.make() })`:
 * the server then listens only while a flow waits for the user.
 *
 * @example
 * ```ts
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as NodeOAuth from "@mcp-effect/node/NodeOAuth"
 * import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
 *
 * const serverUrl = "https://mcp.example.com/mcp"
 * const auth = OAuth.make({ serverUrl, interactive: NodeOAuthBrowser.make({ timeout: "2 minutes" }) })
 * // Promise code:
 * const browser = await NodeOAuthBrowser.start({ port: 0 })
 * const client = await NodeOAuth.makeOAuth({
 *   serverUrl,
 *   redirectUri: browser.redirectUri,
 *   authorize: browser.authorizePromise
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { AuthFailure } from "@mcp-effect/client/McpAuth"
import { AuthError } from "@mcp-effect/client/McpError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import * as Http from "node:http"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Listen where this loopback redirect URI points (`http://127.0.0.1:8976/callback`; port 0
   * picks a free one). Wins over `host`, `port` and `path`.
   */
  readonly redirectUri?: string | undefined
  /** Loopback address of the callback server (default `127.0.0.1`). */
  readonly host?: string | undefined
  /** Port of the loopback callback server; 0 picks a free one (default 0). */
  readonly port?: number | undefined
  /** Path of the callback (default `/callback`). */
  readonly path?: string | undefined
  /** How long to wait for the user (default 5 minutes). */
  readonly timeout?: Duration.DurationInput | undefined
  /** Open the system browser (default true); a function replaces the opener. */
  readonly openBrowser?: boolean | ((url: string) => void) | undefined
  /** Where the authorization URL is printed (default: the `Console`'s error stream). */
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
  /** Stops the callback server (its scope closes it too). */
  readonly close: () => Promise<void>
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

// The HTTP server stack loads with the first callback server: most programs never start one.
const loadServer = Effect.promise(() =>
  Promise.all([
    import("@effect/platform-node/NodeHttpServer"),
    import("@effect/platform/HttpServerRequest"),
    import("@effect/platform/HttpServerResponse")
  ])
)

const page = (
  responses: typeof HttpServerResponse,
  status: number,
  title: string,
  text: string
): HttpServerResponse.HttpServerResponse =>
  responses.text(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body style="font-family:sans-serif;margin:4em auto;max-width:36em"><h1>${escapeHtml(title)}</h1>` +
      `<p>${escapeHtml(text)}</p></body></html>`,
    {
      status,
      contentType: "text/html; charset=utf-8",
      headers: {
        // The callback URL carries the code: not cached, not sent on as a Referer.
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
        "x-content-type-options": "nosniff",
        connection: "close"
      }
    }
  )

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

const failure = (message: string) => new AuthError({ server: "127.0.0.1", reason: "authorization", message })

/** Host, port and path of the callback server, from the options. */
const placeOf = (
  options: Options
): Effect.Effect<{ readonly host: string; readonly port: number; readonly path: string }, AuthError> => {
  if (options.redirectUri === undefined) {
    return Effect.succeed({
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 0,
      path: options.path ?? "/callback"
    })
  }
  let url: URL
  try {
    url = new URL(options.redirectUri)
  } catch {
    return Effect.fail(failure(`the redirect URI ${options.redirectUri} is not a URL`))
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
  const loopback = host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)
  if (url.protocol !== "http:" || !loopback || url.search !== "" || url.hash !== "") {
    return Effect.fail(failure(`a loopback callback server cannot receive ${url.origin}${url.pathname}`))
  }
  return Effect.succeed({ host, port: url.port === "" ? 80 : Number(url.port), path: url.pathname })
}

/** The callback server in the current scope. */
const serve = (options: Options): Effect.Effect<Omit<BrowserAuthorizer, "close">, AuthError, Scope.Scope> =>
  Effect.gen(function*() {
    const { host, path, port } = yield* placeOf(options)
    const [NodeHttpServer, HttpServerRequest, HttpServerResponse] = yield* loadServer
    const timeout = Duration.decode(options.timeout ?? "5 minutes")
    const waiting = yield* Ref.make<Deferred.Deferred<URL> | undefined>(undefined)
    // Never keeps the process alive on its own.
    const nodeServer = Http.createServer().unref()
    const server = yield* NodeHttpServer.make(() => nodeServer, { host, port }).pipe(
      Effect.mapError((e) => failure(`cannot start the OAuth callback server on ${host}:${port}: ${String(e.cause)}`))
    )
    // Runs before the server's own finalizer (which waits for open connections).
    yield* Effect.addFinalizer(() => Effect.sync(() => nodeServer.closeAllConnections()))
    const bound = server.address._tag === "TcpAddress" ? server.address.port : port
    const redirectUri = `http://${host.includes(":") ? `[${host}]` : host}:${bound}${path}`

    yield* server.serve(Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, redirectUri)
      if (url.pathname !== path || (request.method !== "GET" && request.method !== "POST")) {
        return HttpServerResponse.text("Not found", { status: 404 })
      }
      const current = yield* Ref.getAndSet(waiting, undefined)
      if (current === undefined) {
        return page(
          HttpServerResponse,
          400,
          "No authorization in progress",
          "This callback was not expected. You can close this window."
        )
      }
      yield* Deferred.succeed(current, new URL(`${url.pathname}${url.search}`, redirectUri))
      // The flow checks state, iss and the code; the page only says what the server answered.
      return url.searchParams.has("error") || !url.searchParams.has("code")
        ? page(
          HttpServerResponse,
          400,
          "Authorization failed",
          "The authorization was not granted. You can close this window."
        )
        : page(
          HttpServerResponse,
          200,
          "Authorization received",
          "You can close this window and return to the application."
        )
    }))

    const print = options.printUrl
    const open = options.openBrowser === false
      ? undefined
      : typeof options.openBrowser === "function"
      ? options.openBrowser
      : openInBrowser
    const authorize = (authorizationUrl: URL): Effect.Effect<URL, AuthFailure> =>
      Effect.gen(function*() {
        const deferred = yield* Deferred.make<URL>()
        yield* Ref.set(waiting, deferred)
        yield* print === undefined
          ? Console.error(`Open this URL to authorize: ${authorizationUrl.href}`)
          : Effect.sync(() => print(authorizationUrl.href))
        if (open !== undefined) yield* Effect.sync(() => open(authorizationUrl.href))
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
          Effect.ensuring(Ref.update(waiting, (w) => w === deferred ? undefined : w))
        )
      })
    return {
      redirectUri,
      authorize,
      authorizePromise: (authorizationUrl) => toPromise(authorize(authorizationUrl))
    }
  })

/** Runs an effect; the promise rejects with the error itself, so `instanceof` works. */
const toPromise = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  })

/** The callback server in `scope`, with `close` closing that scope. */
const inScope = (options: Options, scope: Scope.CloseableScope): Effect.Effect<BrowserAuthorizer, AuthError> =>
  Effect.map(
    Scope.extend(serve(options), scope),
    (browser) => ({ ...browser, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) })
  )

/**
 * The callback server in a scope (closed with it, or earlier with `close`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<BrowserAuthorizer, AuthError, Scope.Scope> =>
  Effect.flatMap(
    Effect.flatMap(Effect.scope, (outer) => Scope.fork(outer, ExecutionStrategy.sequential)),
    (scope) => inScope(options, scope)
  )

/**
 * Starts the callback server (Promise code; `close()` stops it, and it never keeps the process
 * alive on its own). Rejects with `AuthError` when it cannot listen.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (options: Options = {}): Promise<BrowserAuthorizer> =>
  toPromise(Effect.flatMap(
    Scope.make(),
    (scope) => Effect.onError(inScope(options, scope), () => Scope.close(scope, Exit.void))
  ))
