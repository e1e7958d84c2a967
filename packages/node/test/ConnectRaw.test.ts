import { assert, describe, it } from "@effect/vitest"
import { InvalidResponseError, ServerError } from "@mcp-effect/client/McpError"
import { connect } from "@mcp-effect/node/Connect"
import * as Schema from "effect/Schema"
import { fakeServerBin } from "./paths.js"

const commandLine = `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeServerBin)} --page-size 2`

describe("connect (Promise facade): raw requests and explicit cursors", () => {
  it("request sends any method, decodes with a schema, and rejects with the error classes", async () => {
    const client = await connect(commandLine, { name: "demo" })
    try {
      const page = await client.request("tools/list", {}, {
        schema: Schema.Struct({ tools: Schema.Array(Schema.Struct({ name: Schema.String })) })
      })
      assert.deepStrictEqual(page.tools.map((tool) => tool.name), ["echo", "add"])
      assert.instanceOf(await client.request("acme/unknown").catch((e: unknown) => e), ServerError)
      const wrong = await client.request("tools/list", {}, { schema: Schema.Struct({ tools: Schema.String }) })
        .catch((e: unknown) => e)
      assert.instanceOf(wrong, InvalidResponseError)
      await client.notify("notifications/acme/hello", { n: 1 })
      await client.ping()
    } finally {
      await client.close()
    }
  })

  it("the page methods walk a list one cursor at a time", async () => {
    const client = await connect(commandLine, { name: "demo" })
    try {
      const first = await client.listToolsPage()
      assert.deepStrictEqual([first.items.map((t) => t.name), first.nextCursor, first.items[0]!.server], [
        ["echo", "add"],
        "2",
        "demo"
      ])
      const second = await client.listToolsPage(first.nextCursor)
      assert.deepStrictEqual(second.items.map((t) => t.name), ["progress", "slow"])
      const prompts = await client.listPromptsPage()
      assert.isAtMost(prompts.items.length, 2)
      const resources = await client.listResourcesPage()
      assert.isAtMost(resources.items.length, 2)
      const templates = await client.listResourceTemplatesPage()
      assert.isAtMost(templates.items.length, 2)
    } finally {
      await client.close()
    }
  })
})
