/**
 * The page of the JSON Schema worker test: `Browser.connect` (validation in a Web Worker by
 * default), driven through `globalThis.mcpWorkerTest` by `page.evaluate`.
 */
import * as Browser from "@mcp-effect/client/Browser"
import * as McpError from "@mcp-effect/client/McpError"

let pending: Promise<unknown> | undefined

/** Calls `tool`; resolves with its structured content, or what the call was rejected with. */
const call = async (url: string, tool: string) => {
  const client = await Browser.connect(url, {
    name: "demo",
    validateStructuredContent: "strict",
    jsonSchema: { budgetMs: 1_000 }
  })
  try {
    const result = await client.callTool(tool, { a: 2, b: 40 })
    return { structured: result.structuredContent }
  } catch (error) {
    return {
      validationError: error instanceof McpError.ValidationError,
      tag: (error as { _tag?: string })._tag,
      message: (error as { message?: string }).message
    }
  } finally {
    await client.close()
  }
}
;(globalThis as unknown as { mcpWorkerTest: unknown }).mcpWorkerTest = {
  call,
  /** Starts a call and returns at once; `settle` waits for it. */
  start: (url: string, tool: string) => {
    pending = call(url, tool)
  },
  settle: () => pending
}
