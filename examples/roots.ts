/**
 * Roots at any time: a client built without roots declares them when `setRoots` is first
 * called, and the server's next `roots/list` sees them.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** A tool that asks the client for its roots and reports them. */
const where = FakeServer.tool("where", (_, context) =>
  Effect.succeed(
    context.inputResponses === undefined
      ? { resultType: "input_required" as const, inputRequests: { r: { method: "roots/list" } } }
      : (context.inputResponses.r as { roots: ReadonlyArray<{ uri: string }> }).roots.map((r) => r.uri).join(", ") ||
        "none"
  ))

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ era: "modern", tools: [where] })
  const client = yield* McpClient.make({ servers: [server.config({ name: "files" })] })
  yield* Console.log(`server sees roots: ${text(yield* client.callTool("where"))}`)
  yield* client.setRoots([{ uri: "file:///work/project", name: "project" }])
  yield* Console.log(`server sees roots: ${text(yield* client.callTool("where"))}`)
  yield* Console.log(`client offers: ${client.roots().map((r) => r.name).join(", ")}`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
