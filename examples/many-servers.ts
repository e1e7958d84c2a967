/**
 * Many servers, tight context (docs/many-servers.md): three servers connected lazily, one of
 * them filtered and prefixed, a tool search across all, a filtered tool refused without a
 * request, a large result cut to the client's limit and kept whole under a handle the host
 * reads back, and a name two servers offer shown with each server's prefix.
 *
 * @since 0.2.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const tool = (name: string, description: string) => FakeServer.tool(name, () => Effect.succeed(name), { description })

const program = Effect.gen(function*() {
  const github = yield* FakeServer.make({
    tools: [
      tool("create_issue", "Create an issue in a repository"),
      tool("search_issues", "Search issues and pull requests"),
      tool("delete_repo", "Delete a repository")
    ]
  })
  const files = yield* FakeServer.make({
    tools: [tool("read_file", "Read a file"), tool("write_file", "Write a file"), tool("search", "Find files")]
  })
  const notes = yield* FakeServer.make({
    tools: [
      tool("add_note", "Add a note"),
      tool("search", "Find notes"),
      FakeServer.tool("export_notes", () => Effect.succeed("note ".repeat(2000)), { description: "Export every note" })
    ]
  })
  const client = yield* McpClient.make({
    servers: [
      // Read and search only: nothing that deletes; its tools shown as github__name.
      { ...github.config({ name: "github" }), tools: { exclude: ["delete_*"] }, toolPrefix: true },
      files.config({ name: "files" }),
      notes.config({ name: "notes" })
    ],
    lazy: true,
    // No result larger than 200 characters reaches the host (or a model); the whole is kept.
    maxResultChars: 200,
    overflow: "handle",
    // `search` is offered by files and notes: each is shown with its server's name.
    toolCollisions: "prefix"
  })
  const connected = () => client.servers.filter((s) => s.negotiated() !== undefined).map((s) => s.name)
  yield* Console.log(`connected at start: ${connected().join(", ") || "none"}`)
  const found = yield* client.searchTools("issue", { limit: 2 })
  yield* Console.log(`search "issue": ${found.map((t) => `${t.server}/${t.name}`).join(", ")}`)
  yield* Console.log(`connected after the search: ${connected().join(", ")}`)
  const refused = yield* Effect.flip(client.callTool("github__delete_repo", {}))
  yield* Console.log(`delete_repo: ${refused._tag}, requests sent: ${(yield* github.requests("tools/call")).length}`)
  const exported = yield* client.callTool("export_notes")
  const marker = exported.content.at(-1)
  yield* Console.log(marker?.type === "text" ? marker.text : "no marker")
  const slice = yield* client.readResult("result-1", { offset: 9_990 })
  yield* Console.log(
    `read back from result-1: ${JSON.stringify(slice.text)}, ${slice.remaining} left of ${slice.total}`
  )
  const searches = (yield* client.listTools()).filter((t) => t.originalName === "search").map((t) => t.name)
  yield* Console.log(`search tools: ${searches.join(", ")}`)
  const result = yield* client.callTool("notes__search", {})
  const sent = (yield* notes.requests("tools/call")).map((r) => r.params?.name).at(-1)
  yield* Console.log(`notes__search: ${JSON.stringify(result.content[0])}, sent as ${sent}`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
