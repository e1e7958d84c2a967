/**
 * Tool search (issue #36, point 4): the tools of every server ranked against a query by local
 * scoring over names, titles and descriptions; no request but the tool lists.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"
import { search } from "../src/internal/client/toolSearch.js"

const tool = (name: string, description: string, title?: string) =>
  FakeServer.tool(name, () => Effect.succeed(name), { description, ...(title === undefined ? {} : { title }) })

const github = [
  tool("create_issue", "Create a new issue in a GitHub repository", "Create issue"),
  tool("search_issues", "Search issues and pull requests"),
  tool("get_file_contents", "Read a file from a repository")
]
const files = [
  tool("read_file", "Read the complete contents of a file"),
  tool("write_file", "Create or overwrite a file"),
  tool("list_directory", "List a directory")
]

describe("searchTools", () => {
  it.scoped("ranks the tools of every server; a whole word of the name weighs most; limit and server", () =>
    Effect.gen(function*() {
      const gh = yield* FakeServer.make({ tools: github })
      const fs = yield* FakeServer.make({ tools: files })
      const client = yield* McpClient.make({ servers: [gh.config({ name: "github" }), fs.config({ name: "fs" })] })
      const issues = yield* client.searchTools("issue")
      assert.deepStrictEqual(issues.map((t) => [t.server, t.name]), [
        ["github", "create_issue"],
        ["github", "search_issues"]
      ])
      const file = yield* client.searchTools("read file", { limit: 2 })
      assert.deepStrictEqual(file.map((t) => t.name), ["read_file", "get_file_contents"])
      assert.isAbove(file[0]!.score, file[1]!.score)
      const onlyFs = yield* client.searchTools("file", { server: "fs" })
      assert.isTrue(onlyFs.every((t) => t.server === "fs"))
      assert.deepStrictEqual(yield* client.searchTools("kubernetes"), [])
      assert.deepStrictEqual(yield* client.searchTools("  ,; "), [])
      // One tools/list per server, whatever the searches.
      assert.strictEqual((yield* gh.requests("tools/list")).length, 1)
    }))

  it("ties go by name; nothing for a limit of 0", () => {
    const tools = [
      { name: "b_tool", inputSchema: {}, server: "s" },
      { name: "a_tool", inputSchema: {}, server: "s" }
    ]
    assert.deepStrictEqual(search(tools, "tool", 10).map((t) => t.name), ["a_tool", "b_tool"])
    assert.deepStrictEqual(search(tools, "tool", 0), [])
  })
})
