/**
 * The program the Chromium tests run in a page: the browser bundle of `@mcp-effect/client` over
 * `FetchHttpClient`, driven through `globalThis.mcpTest` by `page.evaluate`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as McpClient from "@mcp-effect/client/McpClient"
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

const programs = { basic, listen, failure }
;(globalThis as unknown as { mcpTest: unknown }).mcpTest = {
  run: (name: keyof typeof programs, url: string) =>
    Effect.runPromise(
      run(programs[name](url) as Effect.Effect<unknown, unknown>).pipe(
        Effect.scoped,
        Effect.provide(FetchHttpClient.layer),
        Effect.timeout("20 seconds")
      ) as Effect.Effect<unknown, unknown>
    )
}
