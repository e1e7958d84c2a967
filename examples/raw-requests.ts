/**
 * Raw requests: a vendor extension method the client has no wrapper for, sent by name through
 * the same path as the wrapped methods (era `_meta`, progress, timeouts), its result decoded
 * with a Schema; a raw notification; and explicit cursors, one page at a time.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpError from "@mcp-effect/client/McpError"
import type { Page } from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** What the vendor method `acme/search` answers. */
const SearchResult = Schema.Struct({
  hits: Schema.Array(Schema.Struct({ title: Schema.String, score: Schema.Number }))
})

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({
    ...Scenarios.demo,
    pageSize: 2,
    methods: {
      "acme/search": (params, context) =>
        Effect.zipRight(
          context.progress(1, 1, "searched"),
          Effect.succeed({ hits: [{ title: `about ${String(params.query)}`, score: 0.9 }] })
        )
    }
  })
  const client = yield* McpClient.make({ servers: [server.config({ name: "fake" })] })

  const result = yield* client.request("acme/search", { query: "effect" }, {
    schema: SearchResult,
    timeout: "5 seconds",
    resetTimeoutOnProgress: true,
    onProgress: (p) => console.log(`progress: ${p.message ?? p.progress}`)
  })
  yield* Console.log(`acme/search: ${result.hits.map((hit) => `${hit.title} (${hit.score})`).join(", ")}`)

  const unknown = yield* Effect.flip(client.request("acme/unknown"))
  yield* Console.log(`acme/unknown: ${unknown._tag}, server rejected: ${McpError.isServerRejected(unknown)}`)

  yield* client.notify("notifications/acme/hello", { from: "raw-requests example" })

  let cursor: string | undefined = undefined
  let pages = 0
  do {
    const page: Page<McpClient.ServerTool> = yield* client.listToolsPage(cursor)
    pages++
    yield* Console.log(`page ${pages}: ${page.items.map((tool) => tool.name).join(", ")}`)
    cursor = page.nextCursor
  } while (cursor !== undefined)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
