import { assert, describe, it } from "@effect/vitest"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import * as ToolFormats from "@mcp-effect/client/ToolFormats"

const tools: ReadonlyArray<McpSchema.Tool> = [
  {
    name: "search",
    description: "Searches",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { q: { type: "string" }, filters: { type: "object", additionalProperties: false } },
      required: ["q"],
      additionalProperties: false
    }
  },
  { name: "ping", title: "Ping", inputSchema: {} }
]

describe("ToolFormats", () => {
  it("converts to OpenAI function tools", () => {
    const [search, ping] = ToolFormats.toOpenAI(tools)
    assert.deepStrictEqual(search!.function.name, "search")
    assert.strictEqual(search!.function.description, "Searches")
    assert.deepStrictEqual(search!.function.parameters.required, ["q"])
    assert.deepStrictEqual(ping, {
      type: "function",
      function: { name: "ping", description: "Ping", parameters: { type: "object", properties: {} } }
    })
  })

  it("converts to Anthropic tools", () => {
    const [search] = ToolFormats.toAnthropic(tools)
    assert.deepStrictEqual(Object.keys(search!), ["name", "description", "input_schema"])
    assert.strictEqual(search!.input_schema.type, "object")
  })

  it("converts to Google function declarations without keywords Gemini rejects", () => {
    const [search] = ToolFormats.toGoogle(tools)
    const parameters = search!.parameters as Record<string, Record<string, Record<string, unknown>>>
    assert.isUndefined(parameters.$schema)
    assert.isUndefined(parameters.additionalProperties)
    assert.isUndefined(parameters.properties!.filters!.additionalProperties)
    assert.deepStrictEqual(parameters.properties!.q, { type: "string" })
  })
})
