/**
 * Result-size governance (issue #36, point 3): limits per call, per server and per client (the
 * most specific wins), the marker, characters against UTF-8 bytes, handles read back, and a
 * tool's `_meta["anthropic/maxResultSizeChars"]` raising a configured limit.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as ResultLimits from "@mcp-effect/client/ResultLimits"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Effect from "effect/Effect"

const text = (n: number) => "x".repeat(n)

/** Answers `size` characters of text. */
const big = FakeServer.tool("big", (args) => Effect.succeed(text(Number(args.size ?? 100))))
/** A tool that declares its results may reach 60 characters. */
const declared = FakeServer.tool("declared", () => Effect.succeed(text(100)), {
  _meta: { "anthropic/maxResultSizeChars": 60 }
})
const structured = FakeServer.tool("structured", () =>
  Effect.succeed({
    content: [{ type: "text", text: "short" }],
    structuredContent: { rows: text(100) }
  }))
const structuredOnly = FakeServer.tool(
  "structured_only",
  () => Effect.succeed({ content: [], structuredContent: { rows: text(100) } })
)
const blocks = FakeServer.tool("blocks", () =>
  Effect.succeed({
    content: [
      { type: "text", text: text(6) },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "resource", resource: { uri: "file:///a", text: text(6) } },
      { type: "text", text: text(6) }
    ]
  }))

const tools = [big, declared, structured, structuredOnly, blocks]

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }> }) =>
  result.content.filter((b) => b.type === "text").map((b) => b.text).join("|")

describe("result limits", () => {
  it.scoped("the most specific limit wins: the call's over the server's over the client's", () =>
    Effect.gen(function*() {
      const limited = yield* FakeServer.make({ tools })
      const open = yield* FakeServer.make({ tools })
      const client = yield* McpClient.make({
        maxResultChars: 50,
        servers: [{ ...limited.config({ name: "limited" }), maxResultChars: 20 }, open.config({ name: "open" })]
      })
      const byServer = yield* client.callTool("big", {}, { server: "limited" })
      assert.strictEqual(
        textOf(byServer),
        `${text(20)}|[… 80 more characters cut by mcp-effect: maxResultChars=20]`
      )
      const byClient = yield* client.callTool("big", {}, { server: "open" })
      assert.strictEqual(textOf(byClient), `${text(50)}|[… 50 more characters cut by mcp-effect: maxResultChars=50]`)
      const byCall = yield* client.callTool("big", {}, { server: "limited", maxResultChars: 10 })
      assert.strictEqual(textOf(byCall), `${text(10)}|[… 90 more characters cut by mcp-effect: maxResultChars=10]`)
      assert.deepStrictEqual(byCall._meta?.[ResultLimits.CUT_META_KEY], { left: 90, unit: "characters", limit: 10 })
      // A call may also raise the limit, and a result that fits is returned as it came.
      const fits = yield* client.callTool("big", { size: 30 }, { server: "limited", maxResultChars: 1000 })
      assert.strictEqual(textOf(fits), text(30))
      assert.isUndefined(fits._meta)
      // Large numbers are grouped in the marker.
      const large = yield* client.callTool("big", { size: 123_456 }, { server: "open", maxResultChars: 0 })
      assert.strictEqual(textOf(large), "[… 123,456 more characters cut by mcp-effect: maxResultChars=0]")
    }))

  it.scoped("no limit anywhere: results pass untouched", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools })
      const client = yield* McpClient.make({ servers: [server.config({ name: "s" })] })
      assert.strictEqual(textOf(yield* client.callTool("big", { size: 10_000 })), text(10_000))
    }))

  it("characters against UTF-8 bytes: a multi-byte character is never split", () => {
    const result = { content: [{ type: "text" as const, text: "éééé😀a" }] }
    // "é" is 2 bytes and 1 character; "😀" 4 bytes and 2 characters.
    const byBytes = ResultLimits.apply(result, { maxResultBytes: 5 })
    assert.strictEqual(textOf(byBytes), "éé|[… 9 more bytes cut by mcp-effect: maxResultBytes=5]")
    const byChars = ResultLimits.apply(result, { maxResultChars: 5 })
    assert.strictEqual(textOf(byChars), "éééé|[… 3 more characters cut by mcp-effect: maxResultChars=5]")
    // Both: the tighter one cuts, and the marker names it.
    const both = ResultLimits.apply(result, { maxResultChars: 7, maxResultBytes: 10 })
    assert.strictEqual(textOf(both), "éééé|[… 5 more bytes cut by mcp-effect: maxResultBytes=10]")
    const charsFirst = ResultLimits.apply(result, { maxResultChars: 6, maxResultBytes: 12 })
    assert.strictEqual(textOf(charsFirst), "éééé😀|[… 1 more characters cut by mcp-effect: maxResultChars=6]")
    assert.strictEqual(textOf(ResultLimits.apply(result, { maxResultBytes: 13 })), "éééé😀a")
  })

  it.scoped("text blocks and embedded text resources count in order; other blocks are kept", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools })
      const client = yield* McpClient.make({ servers: [server.config({ name: "s" })], maxResultChars: 10 })
      const result = yield* client.callTool("blocks")
      assert.deepStrictEqual(result.content.map((b) => b.type), ["text", "image", "resource", "text"])
      const resource = result.content[2] as { readonly resource: { readonly text: string } }
      assert.strictEqual(resource.resource.text, text(4))
      assert.strictEqual(
        (result.content[3] as { readonly text: string }).text,
        "[… 8 more characters cut by mcp-effect: maxResultChars=10]"
      )
    }))

  it.scoped("structured content over the limit is dropped; without text its JSON is cut as text", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools })
      const client = yield* McpClient.make({ servers: [server.config({ name: "s" })], maxResultChars: 20 })
      const withText = yield* client.callTool("structured")
      assert.isUndefined(withText.structuredContent)
      assert.match(textOf(withText), /^short\|\[… 111 more characters cut/)
      const only = yield* client.callTool("structured_only")
      assert.isUndefined(only.structuredContent)
      assert.strictEqual(
        textOf(only),
        `{"rows":"${text(11)}|[… 91 more characters cut by mcp-effect: maxResultChars=20]`
      )
    }))

  it.scoped("overflow: handle keeps the whole result; readResult reads it by slices; LRU and close evict", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools })
      const client = yield* McpClient.make({
        servers: [server.config({ name: "s" })],
        maxResultChars: 10,
        overflow: "handle",
        maxResultHandles: 2
      })
      const first = yield* client.callTool("big", { size: 25 })
      assert.strictEqual(
        textOf(first),
        `${text(10)}|[… 15 more characters cut by mcp-effect: maxResultChars=10; the whole result is kept as result-1]`
      )
      const handle = (first._meta?.[ResultLimits.CUT_META_KEY] as { readonly handle: string }).handle
      assert.strictEqual(handle, "result-1")
      const slice = yield* client.readResult(handle, { offset: 10, length: 10 })
      assert.deepStrictEqual(slice, { handle, text: text(10), offset: 10, total: 25, remaining: 5 })
      assert.strictEqual((yield* client.readResult(handle)).text, text(25))
      // The call's own option: cut, nothing kept.
      const truncated = yield* client.callTool("big", { size: 25 }, { overflow: "truncate" })
      assert.isUndefined((truncated._meta?.[ResultLimits.CUT_META_KEY] as { handle?: string }).handle)
      // Two more handles evict the least recently used.
      yield* client.callTool("big", { size: 20 })
      yield* client.callTool("big", { size: 20 })
      const gone = yield* Effect.flip(client.readResult(handle))
      assert.strictEqual(gone._tag, "ResultHandleNotFoundError")
      assert.strictEqual((yield* client.readResult("result-3")).total, 20)
    }))

  it.scoped("a tool's _meta[anthropic/maxResultSizeChars] raises a configured limit, not a call's own", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools })
      const client = yield* McpClient.make({ servers: [server.config({ name: "s" })], maxResultChars: 20 })
      // The declaration (60) raises the client's 20; the result of 100 is cut at 60.
      const raised = yield* client.callTool("declared")
      assert.strictEqual(textOf(raised), `${text(60)}|[… 40 more characters cut by mcp-effect: maxResultChars=60]`)
      const own = yield* client.callTool("declared", {}, { maxResultChars: 5 })
      assert.strictEqual(textOf(own), `${text(5)}|[… 95 more characters cut by mcp-effect: maxResultChars=5]`)
      // Other tools keep the configured limit.
      assert.match(textOf(yield* client.callTool("big")), /maxResultChars=20\]$/)
    }))

  it.scoped("a declaration never passes the ceiling; 0 ignores declarations", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ tools })
      const capped = yield* McpClient.make({
        servers: [server.config({ name: "s" })],
        maxResultChars: 20,
        maxDeclaredResultChars: 30
      })
      assert.match(textOf(yield* capped.callTool("declared")), /maxResultChars=30\]$/)
      const ignoring = yield* McpClient.make({
        servers: [server.config({ name: "s" })],
        maxResultChars: 20,
        maxDeclaredResultChars: 0
      })
      assert.match(textOf(yield* ignoring.callTool("declared")), /maxResultChars=20\]$/)
    }))

  it("a store's slices never split a surrogate pair", () => {
    const store = ResultLimits.makeStore(1)
    const handle = store.put("a😀b", { content: [] })
    assert.strictEqual(store.read(handle, 0, 2)?.text, "a")
    assert.strictEqual(store.read(handle, 1, 2)?.text, "😀")
    store.put("other", { content: [] })
    assert.isUndefined(store.read(handle))
  })
})
