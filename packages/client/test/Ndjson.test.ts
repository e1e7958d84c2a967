import { assert, describe, it } from "@effect/vitest"
import { makeLineDecoder } from "../src/internal/wire/ndjson.js"

const decoder = (maxLineBytes = 1024) => {
  const values: Array<unknown> = []
  const malformed: Array<{ reason: string; bytes: number; excerpt: string }> = []
  const lines = makeLineDecoder(maxLineBytes, {
    onValue: (value) => values.push(value),
    onMalformed: (reason, bytes, excerpt) => malformed.push({ reason, bytes, excerpt })
  })
  return { lines, values, malformed }
}

const bytes = (text: string) => new TextEncoder().encode(text)

describe("newline-delimited JSON framing", () => {
  it("reads several messages of one chunk, and one message over many chunks", () => {
    const { lines, values } = decoder()
    lines.push(bytes("{\"a\":1}\n{\"b\":2}\n{\"c\":"))
    lines.push(bytes("3"))
    lines.push(bytes("}\n"))
    assert.deepStrictEqual(values, [{ a: 1 }, { b: 2 }, { c: 3 }])
  })

  it("keeps a multi-byte character split between chunks", () => {
    const { lines, values } = decoder()
    const line = bytes("{\"text\":\"é€😀\"}\n")
    // Split inside each multi-byte sequence.
    for (const cut of [[0, 11], [11, 13], [13, 18], [18, line.length]]) lines.push(line.subarray(cut[0], cut[1]))
    assert.deepStrictEqual(values, [{ text: "é€😀" }])
  })

  it("keeps a BOM inside a line whatever the split, and drops one that starts a line", () => {
    // Found by the property test on Node 24: a BOM after a character split across chunks was dropped.
    const whole = decoder()
    const split = decoder()
    const line = bytes("\u{1F600}\uFEFF\u0000")
    whole.lines.push(line)
    whole.lines.end()
    split.lines.push(line.subarray(0, 1))
    split.lines.push(line.subarray(1))
    split.lines.end()
    assert.deepStrictEqual(split.malformed, whole.malformed)
    assert.include(whole.malformed[0]!.excerpt, "\uFEFF")
    const led = decoder()
    led.lines.push(bytes("\uFEFF{\"a\":1}\n"))
    assert.deepStrictEqual(led.values, [{ a: 1 }])
  })

  it("skips an over-long line by its size, and reads the next one", () => {
    const { lines, malformed, values } = decoder(16)
    lines.push(bytes("{\"long\":\"" + "x".repeat(20)))
    lines.push(bytes("\"}\n{\"ok\":true}\n"))
    assert.deepStrictEqual(malformed, [{ reason: "too-long", bytes: 31, excerpt: "" }])
    assert.deepStrictEqual(values, [{ ok: true }])
  })

  it("reports a malformed line by method and id only, and reads the next one", () => {
    const { lines, malformed, values } = decoder()
    lines.push(bytes("{\"method\":\"tools/call\",\"id\":7,\"params\":{\"secret\":\"s\"}\n{\"id\":1}\n"))
    assert.deepStrictEqual(malformed.map((m) => [m.reason, m.excerpt]), [["invalid-json", "method=tools/call id=7"]])
    assert.notInclude(JSON.stringify(malformed), "secret")
    assert.deepStrictEqual(values, [{ id: 1 }])
  })

  it("shows the start of a line that is not JSON at all (a server logging to stdout), escaped", () => {
    const { lines, malformed } = decoder()
    lines.push(bytes(`Server listening on port 3000 \u001b[2J\u202e${"x".repeat(200)}\n`))
    assert.deepStrictEqual(malformed.map((m) => m.excerpt), [
      `"Server listening on port 3000 \\u001b[2J\\u202e${"x".repeat(85)}…"`
    ])
  })

  it("ignores blank lines and reads a last line without a newline at the end", () => {
    const { lines, values } = decoder()
    lines.push(bytes("\n\r\n{\"a\":1}\n{\"b\""))
    lines.push(bytes(":2}"))
    lines.end()
    assert.deepStrictEqual(values, [{ a: 1 }, { b: 2 }])
  })
})
