/**
 * The page of the browser OAuth tests: a tool call on an OAuth-protected server, authorized
 * through a popup or a full-page redirect (`BrowserOAuth`), tokens in `localStorage`. A page
 * loaded with a callback in its address bar finishes the redirect flow by itself and makes the
 * call again (`oauthTest.resumed`), as an application would on every load.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Browser from "@mcp-effect/client/Browser"
import * as BrowserOAuth from "@mcp-effect/client/BrowserOAuth"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

type Variant = "redirect" | "popup"

/** The parts of the DOM used here (the tests build without the DOM library). */
interface WebStorage {
  readonly length: number
  key(index: number): string | null
  getItem(key: string): string | null
}
const { localStorage, location, sessionStorage } = globalThis as unknown as {
  readonly localStorage: WebStorage
  readonly sessionStorage: WebStorage
  readonly location: { readonly href: string; readonly origin: string; readonly search: string }
}

/** Tokens and registrations in `localStorage`, a prefix per variant (the tests share one server). */
const tokenStorage = (variant: Variant) =>
  OAuth.layerKeyValueStorage({ prefix: `oauth-test/${variant}/` }).pipe(
    Layer.provide(KeyValueStore.layerStorage(() => localStorage as never))
  )

const stepOf = (variant: Variant) =>
  variant === "redirect"
    ? BrowserOAuth.redirect()
    : BrowserOAuth.popup({ redirectUri: `${location.origin}/callback.html` })

/** What a failure says, without the error object (which a page cannot hand to the test). */
const described = (error: unknown) => ({
  error: {
    tag: (error as { _tag?: string })._tag,
    reason: (error as { reason?: string }).reason,
    message: (error as { message?: string }).message
  }
})

/** Completes a callback in the address bar, if any, then calls `add` on the server. */
const call = (serverUrl: string, variant: Variant) =>
  Effect.gen(function*() {
    const auth = yield* OAuth.make({ serverUrl, scope: "mcp:read mcp:write", ...stepOf(variant) })
    const completed = yield* BrowserOAuth.completeRedirect(auth)
    const client = yield* McpClient.make({ servers: [StreamableHttp.config({ name: "demo", url: serverUrl, auth })] })
    const sum = yield* client.callTool("add", { a: 2, b: 40 })
    return { completed, sum: sum.structuredContent, search: location.search }
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.merge(FetchHttpClient.layer, tokenStorage(variant))),
    Effect.timeout("20 seconds"),
    Effect.catchAll((error) => Effect.succeed(described(error))),
    Effect.runPromise
  )

/** A callback completed again (a replay, or one from elsewhere): what the refusal says. */
const replay = (serverUrl: string, callbackUrl: string) =>
  Effect.gen(function*() {
    const auth = yield* OAuth.make({ serverUrl, ...BrowserOAuth.redirect() })
    return { completed: yield* BrowserOAuth.completeRedirect(auth, { url: callbackUrl }) }
  }).pipe(
    Effect.provide(Layer.merge(FetchHttpClient.layer, tokenStorage("redirect"))),
    Effect.catchAll((error) => Effect.succeed(described(error))),
    Effect.runPromise
  )

/** The Promise facade with `oauth`: a popup, tokens in `sessionStorage`. */
const facade = async (serverUrl: string) => {
  const client = await Browser.connect(serverUrl, {
    jsonSchema: "in-process",
    oauth: {
      flow: "popup",
      redirectUri: `${location.origin}/callback.html`,
      scope: "mcp:read mcp:write",
      storage: "sessionStorage"
    }
  })
  try {
    const sum = await client.callTool("add", { a: 2, b: 40 })
    return { sum: sum.structuredContent }
  } finally {
    await client.close()
  }
}

/** Every entry of both storages, for the tests' checks. */
const storages = () => {
  const entries = (storage: WebStorage) =>
    Object.fromEntries(
      Array.from({ length: storage.length }, (_, i) => storage.key(i)!).map((key) => [key, storage.getItem(key)])
    )
  return { session: entries(sessionStorage), local: entries(localStorage) }
}

const test: Record<string, unknown> = { call, replay, storages, facade }
;(globalThis as unknown as { oauthTest: unknown }).oauthTest = test

// A page come back from the authorization server finishes the flow and calls again.
const server = sessionStorage.getItem("oauth-test/server")
if (server !== null && new URL(location.href).searchParams.has("state")) {
  void call(server, "redirect").then((result) => test.resumed = result)
}
