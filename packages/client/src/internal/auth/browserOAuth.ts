/**
 * The interactive step of OAuth in a page: a popup watched until it is back on the page's own
 * origin, or a full-page redirect whose waiting request lives in `sessionStorage` and is
 * completed when the page comes back.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { AuthFailure } from "../../McpAuth.js"
import { AuthError } from "../../McpError.js"
// The public module, not `keyValueStorage.ts`: that one needs `OAuth` loaded first.
import * as OAuth from "../../OAuth.js"

/** The parts of the DOM used here (the package builds without the DOM library). */
interface PopupWindow {
  readonly closed: boolean
  readonly location: { readonly href: string }
  close(): void
}
interface Page {
  readonly name: string
  readonly opener: { readonly location: { readonly href: string } } | null
  readonly location: { readonly href: string; assign(url: string): void }
  readonly history: { replaceState(data: unknown, unused: string, url: string): void }
  open(url: string, target: string, features: string): PopupWindow | null
}
/** `Storage` of the Web Storage API. */
interface WebStorage {
  readonly length: number
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
  clear(): void
  key(index: number): string | null
}

/** The page this runs in; `undefined` outside one (a worker, a server). */
const page = (): Page | undefined => (globalThis as unknown as { window?: Page }).window

/** The name of the popup window: a page loaded in it leaves the callback to its opener. */
export const popupName = "mcp-effect-oauth"

/** The parameters a callback brings, removed from the address bar once read. */
const callbackParameters = ["code", "state", "iss", "error", "error_description", "error_uri", "session_state"]

const failure = (server: string, reason: string, message: string) => new AuthError({ server, reason, message })

/** The current page's URL without query and fragment: the default redirect URI. */
export const currentPage = (): string => {
  const here = page()
  if (here === undefined) return "http://127.0.0.1:8976/callback"
  const url = new URL(here.location.href)
  return `${url.origin}${url.pathname}`
}

/** Whether `url` is on the redirect URI (origin and path). */
const onRedirectUri = (url: URL, redirectUri: string): boolean => {
  const expected = new URL(redirectUri)
  return url.origin === expected.origin && url.pathname === expected.pathname
}

/** Whether `url` is the redirect URI carrying a callback. */
export const isCallback = (url: URL, redirectUri: string): boolean =>
  onRedirectUri(url, redirectUri) && url.searchParams.has("state") &&
  (url.searchParams.has("code") || url.searchParams.has("error"))

/** The popup's URL, or `undefined` while it shows another origin (the browser hides it). */
const readHref = (popup: PopupWindow): string | undefined => {
  try {
    return popup.location.href
  } catch {
    return undefined
  }
}

/**
 * The options of the popup step.
 *
 * @internal
 * @inline
 */
export interface PopupOptions {
  /**
   * Where the authorization server sends the popup back: a page of this origin (default: the
   * current page, without query and fragment). A small static page is best: an app loaded there
   * in the popup must not run a flow of its own (`completeRedirect` leaves it alone).
   */
  readonly redirectUri?: string | undefined
  /** The `windowFeatures` of `window.open` (default `popup,width=520,height=720`). */
  readonly features?: string | undefined
  /** How long to wait for the user (default 5 minutes): then the popup closes, `AuthError` reason `"timeout"`. */
  readonly timeout?: Duration.DurationInput | undefined
  /** How often the popup is looked at (default 100 ms). */
  readonly pollInterval?: Duration.DurationInput | undefined
}

/** The popup step: open the authorization URL, wait until the popup is back on the redirect URI. @internal */
export const popup = (options: PopupOptions = {}): OAuth.InteractiveStep => {
  const redirectUri = options.redirectUri ?? currentPage()
  const timeout = options.timeout ?? Duration.minutes(5)
  const interval = options.pollInterval ?? Duration.millis(100)
  const authorize = (authorizationUrl: URL): Effect.Effect<URL, AuthFailure> => {
    const server = authorizationUrl.origin
    const open = Effect.suspend(() => {
      const here = page()
      if (here === undefined) {
        return Effect.fail(failure(server, "popup-blocked", "there is no window to open a popup from"))
      }
      const opened = here.open(authorizationUrl.href, popupName, options.features ?? "popup,width=520,height=720")
      return opened === null
        ? Effect.fail(
          failure(server, "popup-blocked", "the browser blocked the authorization popup (open it from a user's click)")
        )
        : Effect.succeed(opened)
    })
    const watch = (window: PopupWindow): Effect.Effect<URL, AuthError> =>
      Effect.suspend(() => {
        const href = readHref(window)
        if (href !== undefined && href !== "about:blank") {
          const url = new URL(href)
          // An error answer may lack `state`: the flow then refuses it instead of waiting on.
          if (isCallback(url, redirectUri) || (onRedirectUri(url, redirectUri) && url.searchParams.has("error"))) {
            return Effect.succeed(url)
          }
        }
        if (window.closed) {
          return Effect.fail(failure(server, "popup-closed", "the authorization popup was closed before it came back"))
        }
        return Effect.zipRight(Effect.sleep(interval), watch(window))
      })
    return Effect.acquireUseRelease(open, watch, (window) => Effect.sync(() => window.close())).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          failure(server, "timeout", `the authorization popup did not come back within ${Duration.format(timeout)}`)
      })
    )
  }
  return { redirectUri, authorize }
}

/**
 * One of the page's Web Storages as an `OAuthStorage` (entries under `prefix`, default the
 * key-value storage's own). Where the runtime has none, each use fails as a storage error.
 */
const webStorage = (name: "localStorage" | "sessionStorage", prefix?: string): OAuth.OAuthStorage =>
  OAuth.makeKeyValueStorage(
    Effect.runSync(Effect.provide(
      KeyValueStore.KeyValueStore,
      KeyValueStore.layerStorage(() => (globalThis as unknown as Record<string, WebStorage>)[name] as never)
    )),
    { prefix }
  )

/** The `sessionStorage` of the page, as an `OAuthStorage` under `prefix`. @internal */
export const sessionStorage = (prefix = "mcp-effect/oauth-pending/"): OAuth.OAuthStorage =>
  webStorage("sessionStorage", prefix)

/**
 * The options of the redirect step.
 *
 * @internal
 * @inline
 */
export interface RedirectOptions {
  /** Where the authorization server sends the page back (default: the current page, without query and fragment). */
  readonly redirectUri?: string | undefined
  /** Where the waiting request is kept while the page is away (default: `sessionStorage`, see `sessionStorage`). */
  readonly pendingStorage?: OAuth.OAuthStorage | undefined
  /** How the page leaves for the authorization URL (default `location.assign`). */
  readonly navigate?: ((url: URL) => void) | undefined
}

/**
 * What the redirect step gives `OAuth.make`.
 *
 * @internal
 * @inline
 */
export interface Redirect extends OAuth.InteractiveStep {
  readonly pendingStorage: OAuth.OAuthStorage
}

/** The redirect step: the waiting request is kept by the flow, then the page leaves. @internal */
export const redirect = (options: RedirectOptions = {}): Redirect => ({
  redirectUri: options.redirectUri ?? currentPage(),
  pendingStorage: options.pendingStorage ?? sessionStorage(),
  authorize: (authorizationUrl) =>
    Effect.zipRight(
      Effect.sync(() => (options.navigate ?? ((url) => page()?.location.assign(url.href)))(authorizationUrl)),
      // The page unloads: nothing comes back here.
      Effect.never
    )
})

/**
 * A page in the popup of {@link popup} (by its name, or a same-origin opener: the name does not
 * survive every cross-site navigation): its opener reads the callback, the page leaves it alone.
 */
const isPopup = (here: Page): boolean => {
  if (here.name === popupName) return true
  try {
    return here.opener !== null && new URL(here.opener.location.href).origin === new URL(here.location.href).origin
  } catch {
    return false
  }
}

/** @internal */
export interface CompleteOptions {
  readonly url?: string | URL | undefined
  readonly redirectUri?: string | undefined
  readonly cleanUrl?: boolean | undefined
}

/**
 * Completes the callback the page was loaded with, if it is one: `true` once the code was
 * redeemed, `false` when the page is no callback (or is the popup, whose opener reads it).
 * @internal
 */
export const completeRedirect = (
  auth: OAuth.OAuthClient,
  options: CompleteOptions = {}
): Effect.Effect<boolean, AuthFailure> =>
  Effect.suspend(() => {
    const here = page()
    const href = options.url ?? here?.location.href
    if (href === undefined) return Effect.succeed(false)
    const url = new URL(href)
    if (!isCallback(url, options.redirectUri ?? `${url.origin}${url.pathname}`)) return Effect.succeed(false)
    if (options.url === undefined && here !== undefined && isPopup(here)) return Effect.succeed(false)
    if (options.cleanUrl !== false && here !== undefined && options.url === undefined) {
      // The code leaves the address bar and the history before anything else happens.
      const clean = new URL(url)
      for (const name of callbackParameters) clean.searchParams.delete(name)
      here.history.replaceState(null, "", clean.href)
    }
    return Effect.as(auth.complete(url), true)
  })

/**
 * OAuth in a page from settings.
 *
 * @internal
 * @inline
 */
export interface Settings
  extends Omit<OAuth.Options, "serverUrl" | "authorize" | "interactive" | "redirectUri" | "pendingStorage" | "storage">
{
  /** `redirect` (the page leaves and comes back) or `popup`. */
  readonly flow: "redirect" | "popup"
  /** Where the authorization server sends the user back (default: the current page, without query and fragment). */
  readonly redirectUri?: string | undefined
  /**
   * Where tokens and registrations live: `"localStorage"` (across visits), `"sessionStorage"`
   * (the tab's life), `"memory"` (the default: this page's life) or a storage of the host's.
   */
  readonly storage?: "localStorage" | "sessionStorage" | "memory" | OAuth.OAuthStorage | undefined
  /** The popup's window features, timeout and polling (see `PopupOptions`). */
  readonly popup?: Omit<PopupOptions, "redirectUri"> | undefined
}

/** Tokens and registrations where the settings say (default: memory). */
const tokenStorage = (storage: Settings["storage"]): OAuth.OAuthStorage | undefined => {
  if (storage === undefined || storage === "memory") return undefined
  if (typeof storage === "object") return storage
  return webStorage(storage)
}

/**
 * Whether the callback in `url` answers the request kept for `serverUrl`: several servers may
 * share a redirect URI, and the callback is the one whose request carries its `state`.
 */
const claims = (pending: OAuth.OAuthStorage, serverUrl: string, url: URL) =>
  Effect.map(
    Effect.orElseSucceed(pending.get(OAuth.pendingKey(serverUrl)), () => undefined),
    (kept) => {
      const request = (kept as { readonly request?: { readonly state?: unknown } } | undefined)?.request
      return request !== undefined && request.state === url.searchParams.get("state")
    }
  )

/**
 * The OAuth of one server from settings, and the completion of the page's callback when it
 * answers this server's waiting request (the redirect flow; nothing otherwise).
 * @internal
 */
export const make = (
  serverUrl: string,
  settings: Settings
): Effect.Effect<
  { readonly auth: OAuth.OAuthClient; readonly complete: Effect.Effect<boolean, AuthFailure> },
  never,
  HttpClient.HttpClient
> =>
  Effect.gen(function*() {
    const { flow, popup: popupOptions, redirectUri, storage, ...rest } = settings
    const away = flow === "redirect" ? redirect({ redirectUri }) : undefined
    const step = away ?? popup({ ...popupOptions, redirectUri })
    const auth = yield* OAuth.make({ ...rest, ...step, serverUrl, storage: tokenStorage(storage) })
    const complete = Effect.suspend(() => {
      const here = page()
      if (away === undefined || here === undefined) return Effect.succeed(false)
      const url = new URL(here.location.href)
      if (!isCallback(url, away.redirectUri)) return Effect.succeed(false)
      return Effect.flatMap(
        claims(away.pendingStorage, serverUrl, url),
        (mine) => mine ? completeRedirect(auth, { redirectUri: away.redirectUri }) : Effect.succeed(false)
      )
    })
    return { auth, complete }
  })

/** {@link make}, the callback completed. @internal */
export const fromSettings = (
  serverUrl: string,
  settings: Settings
): Effect.Effect<OAuth.OAuthClient, AuthFailure, HttpClient.HttpClient> =>
  Effect.flatMap(make(serverUrl, settings), ({ auth, complete }) => Effect.as(complete, auth))
