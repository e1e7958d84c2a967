/** Tools of the fake servers the tests talk to. */
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"

export const addSchema = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"]
}

/** Adds a and b; answers with the sum as text and as structured content. */
export const add = FakeServer.tool(
  "add",
  (args) => {
    const sum = Number(args.a) + Number(args.b)
    return Effect.succeed({ content: [{ type: "text", text: String(sum) }], structuredContent: { sum } })
  },
  {
    title: "Add two numbers",
    description: "Adds a and b",
    inputSchema: addSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
  }
)

/** Always answers `isError: true`. */
export const fail = FakeServer.tool(
  "fail",
  () => Effect.succeed({ content: [{ type: "text", text: "division by zero" }], isError: true })
)

/** Echoes its message, prefixed with `from`. */
export const echo = (from: string) =>
  FakeServer.tool("echo", (args) => Effect.succeed(`${from}: ${String(args.message)}`))
