/**
 * The program the Chromium tests run in a page: the browser bundle of `@mcp-effect/client` over
 * `FetchHttpClient`, driven through `globalThis.mcpTest` by `page.evaluate`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Browser from "@mcp-effect/client/Browser"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpError from "@mcp-effect/client/McpError"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const clientOf = (url: string) => McpClient.make({ servers: [StreamableHttp.config({ name: "demo", url })] })

const run = <A>(program: Effect.Effect<A, unknown, McpClient.McpClient | never>) => program

/** Connects, lists tools, calls `add`, and collects the progress notifications of `progress`. */
const basic = (url: string) =>
  Effect.gen(function*() {
    const client = yield* clientOf(url)
    const tools = yield* client.listTools()
    const sum = yield* client.callTool("add", { a: 2, b: 40 })
    const progress: Array<number> = []
    yield* client.callTool("progress", { steps: 2, delayMs: 1 }, { onProgress: (p) => progress.push(p.progress) })
    return {
      era: client.servers[0]!.negotiated()?.protocolVersion,
      tools: tools.map((tool) => tool.name),
      sum: sum.structuredContent,
      progress
    }
  })

/** A 2026-07-28 listen stream: the notification the `publish` tool sends arrives on it. */
const listen = (url: string) =>
  Effect.gen(function*() {
    const client = yield* clientOf(url)
    const subscription = yield* client.listen({ toolsListChanged: true })
    yield* client.callTool("publish", {})
    const [notification] = yield* subscription.notifications.pipe(Stream.take(1), Stream.runCollect)
    return { method: notification?.method }
  })

/**
 * 8 subscriptions to one server: they share one listen stream, so calls still get one of the
 * origin's 6 HTTP/1.1 connections (8 streams of their own would leave none).
 */
const manyListens = (url: string) =>
  Effect.gen(function*() {
    const client = yield* clientOf(url)
    const subscriptions = yield* Effect.forEach(Array.from({ length: 8 }), (_, i) =>
      client.listen(i === 0 ? { toolsListChanged: true } : { resourceSubscriptions: [`demo://r${i}`] }))
    const sum = yield* client.callTool("add", { a: 2, b: 40 })
    yield* client.callTool("publish", {})
    const [notification] = yield* subscriptions[0]!.notifications.pipe(Stream.take(1), Stream.runCollect)
    return {
      active: subscriptions.filter((subscription) =>
        subscription.isActive()
      ).length,
      sum: sum.structuredContent,
      method: notification?.method
    }
  })

/**
 * 5 connections to one origin, each with a subscription: the 5th is past the browser's default
 * of 4 long-lived streams per origin and fails at once; calls still answer.
 */
const streamLimit = (url: string) =>
  Effect.gen(function*() {
    const names = ["a", "b", "c", "d", "e"]
    const client = yield* McpClient.make({ servers: names.map((name) => StreamableHttp.config({ name, url })) })
    const outcomes = yield* Effect.forEach(names, (server) =>
      Effect.either(client.listen({ toolsListChanged: true }, { server })))
    const refused = outcomes.flatMap((outcome) =>
      outcome._tag === "Left" ? [outcome.left] : []
    )
    const sum = yield* client.callTool("add", { a: 2, b: 40 }, { server: "e" })
    return {
      listening: outcomes.filter((outcome) => outcome._tag === "Right").length,
      refused: refused.map((error) => ({
        tag: (error as { _tag?: string })._tag,
        reason: (error as { reason?: string }).reason,
        message: (error as { message?: string }).message
      })),
      sum: sum.structuredContent
    }
  })

/** What a failed connection says: its tag, reason and message. */
const failure = (url: string) =>
  clientOf(url).pipe(
    Effect.as({ connected: true }),
    Effect.catchAll((error) =>
      Effect.succeed({
        tag: (error as { _tag?: string })._tag,
        reason: (error as { reason?: string }).reason,
        message: (error as { message?: string }).message
      })
    )
  )

/** The Promise facade: connect, list, call, a notification listener, close. */
const facade = async (url: string) => {
  const methods: Array<string> = []
  const client = await Browser.connect(url, { name: "demo", onNotification: (_, method) => methods.push(method) })
  try {
    const tools = await client.listTools()
    const sum = await client.callTool("add", { a: 2, b: 40 })
    const progress: Array<number> = []
    await client.callTool("progress", { steps: 2, delayMs: 1 }, { onProgress: (p) => progress.push(p.progress) })
    return {
      era: client.servers[0]!.protocolVersion,
      tools: tools.map((tool) => tool.name),
      sum: sum.structuredContent,
      progress
    }
  } finally {
    await client.close()
  }
}

/** What `Browser.connect` rejects with: the Effect API's classes, `instanceof` included. */
const facadeFailure = (target: string) =>
  Browser.connect(target).then(
    () => ({ connected: true }),
    (error: unknown) => ({
      configError: error instanceof McpError.ConfigError,
      connectionError: error instanceof McpError.ConnectionError,
      reason: (error as { reason?: string }).reason,
      message: (error as { message?: string }).message
    })
  )

const programs = { basic, listen, manyListens, streamLimit, failure }
const promised = { facade, facadeFailure }
;(globalThis as unknown as { mcpTest: unknown }).mcpTest = {
  run: (name: keyof typeof programs | keyof typeof promised, url: string) =>
    name in promised ? promised[name as keyof typeof promised](url) : Effect.runPromise(
      run(programs[name as keyof typeof programs](url) as Effect.Effect<unknown, unknown>).pipe(
        Effect.scoped,
        Effect.provide(FetchHttpClient.layer),
        Effect.timeout("20 seconds")
      ) as Effect.Effect<unknown, unknown>
    )
}
