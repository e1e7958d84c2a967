/**
 * Result-size governance: a tool result larger than `maxResultChars` (UTF-16 code units, as
 * JavaScript counts a string's length) or `maxResultBytes` (UTF-8) is cut before the host (or a
 * model) sees it, with a marker saying how much was left out:
 *
 * ```text
 * [… 123,456 more characters cut by mcp-effect: maxResultChars=20000]
 * ```
 *
 * or, with `overflow: "handle"`, kept whole in the client's bounded store under a handle the
 * host reads later (`McpClient.readResult`). The limits are set per call (`callTool`'s options),
 * per server (`ServerConfig`) and per client (`McpClient.Options`); the most specific wins, field
 * by field. A tool whose definition carries `_meta["anthropic/maxResultSizeChars"]` raises a
 * configured character limit up to that size (at most `maxDeclaredResultChars`, default
 * 500,000), as Claude Code does; a call's own limit is never raised.
 *
 * What counts: the text of `text` blocks and of embedded text resources, in order; the
 * `structuredContent` serialised as JSON, on its own (it is the other view of the same data). A
 * structured content over the limit is dropped (a JSON document cannot be cut); without any text
 * block its serialisation becomes the text that is cut. Images, audio, blobs and resource links
 * are not counted. The marker is added after the limit. A cut result says what was done in
 * `_meta["mcp-effect/resultCut"]` (`left`, `unit`, `limit`, `handle`).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import * as internal from "./internal/resultLimits.js"
import { TaggedError } from "./internal/taggedError.js"
import type * as McpSchema from "./McpSchema.js"

/**
 * The limits of a call, a server or a client.
 *
 * @since 0.2.0
 * @category models
 */
export interface ResultLimits {
  /** Most characters (UTF-16 code units) of a result's text; the rest is cut. */
  readonly maxResultChars?: number | undefined
  /** Most UTF-8 bytes of a result's text; the rest is cut (never inside a character). */
  readonly maxResultBytes?: number | undefined
  /**
   * What happens to a result over a limit: `"truncate"` (default) cuts it; `"handle"` cuts it
   * too and keeps it whole in the client's store, the marker naming the handle to read it by.
   */
  readonly overflow?: "truncate" | "handle" | undefined
}

/**
 * A slice of a kept result's text (offsets and lengths in UTF-16 code units, never splitting a
 * character): the text blocks joined with newlines, or the structured content's JSON when the
 * result had no text.
 *
 * @since 0.2.0
 * @category models
 */
export type ResultSlice = internal.Slice

/**
 * The bounded in-memory store of whole results kept by `overflow: "handle"`: at most `capacity`
 * results, the least recently used (kept or read) evicted first; emptied when its client closes.
 *
 * @since 0.2.0
 * @category models
 */
export type ResultStore = internal.Store

/**
 * No result is kept under this handle (never kept, evicted, or its client closed).
 *
 * @since 0.2.0
 * @category errors
 */
export class ResultHandleNotFoundError extends TaggedError<ResultHandleNotFoundError>()("ResultHandleNotFoundError", {
  handle: Schema.String
}) {
  override get message(): string {
    return `no result is kept under ${this.handle} (evicted, or its client closed)`
  }
}

/**
 * The tool `_meta` key by which a server declares how large its results may be.
 *
 * @since 0.2.0
 * @category constants
 */
export const DECLARED_MAX_KEY: string = internal.DECLARED_MAX_KEY

/**
 * The `_meta` key a cut result carries: `{ left, unit, limit, handle? }`.
 *
 * @since 0.2.0
 * @category constants
 */
export const CUT_META_KEY: string = internal.CUT_META_KEY

/**
 * A store of at most `capacity` (default 32) results.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeStore: (capacity?: number) => ResultStore = internal.makeStore

/**
 * `result` within `limits`: unchanged when it fits, else cut with a marker (see the module's
 * documentation); with `overflow: "handle"` and a `store`, kept whole there.
 *
 * @since 0.2.0
 * @category combinators
 */
export const apply: (
  result: McpSchema.CallToolResult,
  limits: ResultLimits | undefined,
  store?: ResultStore | undefined
) => McpSchema.CallToolResult = internal.apply

/**
 * The size a tool declares its results may reach (`_meta["anthropic/maxResultSizeChars"]`), if any.
 *
 * @since 0.2.0
 * @category accessors
 */
export const declaredMax: (tool: McpSchema.Tool | undefined) => number | undefined = internal.declaredMax
