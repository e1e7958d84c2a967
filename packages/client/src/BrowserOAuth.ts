/**
 * OAuth's interactive step in a page: the authorization code grant with PKCE through a popup, or
 * through a full-page redirect. Both give `OAuth.make` its `redirectUri` and `authorize` (spread
 * them into its options); where tokens live is the host's choice (`OAuth.layerKeyValueStorage`
 * over `KeyValueStore.layerStorage(() => localStorage)`, say; memory by default).
 *
 * - {@link popup}: a popup opens on the authorization URL; once it is back on the redirect URI
 *   (a page of this origin) the flow reads its URL and closes it. The page stays, so the waiting
 *   request stays in memory. A blocked popup fails the flow with `AuthError` reason
 *   `"popup-blocked"`, one the user closed with `"popup-closed"`.
 * - {@link redirect}: the page itself goes to the authorization server. The waiting request
 *   (`state`, PKCE verifier, client, the server's metadata) is kept in `sessionStorage` first;
 *   when the page comes back on the redirect URI, {@link completeRedirect} redeems the code
 *   (taking the kept request once: a replayed or stray callback is refused with `AuthError`) and
 *   takes the callback's parameters out of the address bar.
 *
 * @example
 * ```ts
 * import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
 * import * as BrowserOAuth from "@mcp-effect/client/BrowserOAuth"
 * import * as OAuth from "@mcp-effect/client/OAuth"
 * import * as Effect from "effect/Effect"
 *
 * const serverUrl = "https://mcp.example.com/mcp"
 * const auth = Effect.gen(function*() {
 *   const auth = yield* OAuth.make({ serverUrl, ...BrowserOAuth.redirect() })
 *   // On every load: a page that comes back from the authorization server finishes here.
 *   yield* BrowserOAuth.completeRedirect(auth)
 *   return auth
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.2.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as internal from "./internal/auth/browserOAuth.js"
import { run } from "./internal/facade/run.js"
import type { AuthFailure } from "./McpAuth.js"
import * as OAuth from "./OAuth.js"

/**
 * @since 0.2.0
 * @category models
 */
export type PopupOptions = internal.PopupOptions

/**
 * The popup step, for `OAuth.make({ serverUrl, ...BrowserOAuth.popup() })`. Browsers block popups
 * not opened from a user's action: start the first request that may need authorization from a
 * click. An authorization server that sends `Cross-Origin-Opener-Policy` cuts the popup off from
 * the page, which then sees it as closed: use {@link redirect} with such a server.
 *
 * @since 0.2.0
 * @category constructors
 */
export const popup: (options?: PopupOptions) => OAuth.InteractiveStep = internal.popup

/**
 * @since 0.2.0
 * @category models
 */
export type RedirectOptions = internal.RedirectOptions

/**
 * What {@link redirect} gives `OAuth.make`: the redirect URI, the step, and the storage of the
 * waiting request.
 *
 * @since 0.2.0
 * @category models
 */
export type Redirect = internal.Redirect

/**
 * The full-page redirect step, for `OAuth.make({ serverUrl, ...BrowserOAuth.redirect() })`: the
 * flow keeps its request in `pendingStorage`, then the page navigates to the authorization URL
 * (the request that needed authorization never settles: the page unloads). Call
 * {@link completeRedirect} on every load. With DPoP, give `OAuth.make` a key pair the page keeps
 * (`dpop.keyPair`): a key made by the page before the redirect is gone after it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const redirect: (options?: RedirectOptions) => Redirect = internal.redirect

/**
 * The page's `sessionStorage` (one tab's, for its life) as an `OAuthStorage`, entries under
 * `prefix` (default `mcp-effect/oauth-pending/`): where {@link redirect} keeps the waiting request.
 *
 * @since 0.2.0
 * @category constructors
 */
export const sessionStorage: (prefix?: string) => OAuth.OAuthStorage = internal.sessionStorage

/**
 * @since 0.2.0
 * @category models
 */
export interface CompleteOptions {
  /** The callback URL (default: the page's `location.href`). */
  readonly url?: string | URL | undefined
  /** The redirect URI the callback must be on (origin and path; default: the URL's own). */
  readonly redirectUri?: string | undefined
  /** Take the callback's parameters out of the address bar and history (default true; only for the page's own URL). */
  readonly cleanUrl?: boolean | undefined
}

/**
 * Finishes a redirect flow when the page was loaded with its callback (`?code=…&state=…`, or
 * `?error=…`): the code is redeemed with the kept request and the token stored; succeeds with
 * `true`. Succeeds with `false` when the page is no callback (or is the popup of {@link popup},
 * whose opener reads it). Fails with `AuthError` when the callback is refused: no request waiting
 * (a replay: the request is taken by the first completion), another `state`, an error from the
 * authorization server, a refused code.
 *
 * @since 0.2.0
 * @category utils
 */
export const completeRedirect: (
  auth: OAuth.OAuthClient,
  options?: CompleteOptions
) => Effect.Effect<boolean, AuthFailure> = internal.completeRedirect

/**
 * `OAuth.make` over the page's `fetch`, for Promise code: give the result to `Browser.connect`
 * as `auth`.
 *
 * @example
 * ```ts
 * import * as Browser from "@mcp-effect/client/Browser"
 * import * as BrowserOAuth from "@mcp-effect/client/BrowserOAuth"
 *
 * const serverUrl = "https://mcp.example.com/mcp"
 * const auth = await BrowserOAuth.makeOAuth({ serverUrl, ...BrowserOAuth.redirect() })
 * await BrowserOAuth.completeRedirectPromise(auth)
 * const client = await Browser.connect(serverUrl, { auth })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeOAuth = (options: OAuth.Options): Promise<OAuth.OAuthClient> =>
  run(Effect.provide(OAuth.make(options), FetchHttpClient.layer))

/**
 * {@link completeRedirect} for Promise code: rejects with the `AuthError` itself.
 *
 * @since 0.2.0
 * @category utils
 */
export const completeRedirectPromise = (auth: OAuth.OAuthClient, options?: CompleteOptions): Promise<boolean> =>
  run(internal.completeRedirect(auth, options))

/**
 * OAuth in a page from settings, as `Browser.connect({ oauth })` takes them: the flow, where
 * tokens live, and the rest of `OAuth.Options`.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = internal.Settings

/**
 * The OAuth of one MCP server from {@link Settings}. With the redirect flow, a page loaded with
 * the callback of this server's waiting request completes it first (several servers may share
 * a redirect URI: each completes only its own callback).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromSettings: (
  serverUrl: string,
  settings: Settings
) => Effect.Effect<OAuth.OAuthClient, AuthFailure, HttpClient.HttpClient> = internal.fromSettings
