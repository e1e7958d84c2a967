/**
 * Drift pinning's pure parts: the canonical JSON of a definition, its fingerprint (SHA-256
 * through WebCrypto), a listed tool's drift against its pin, and the lock file's shape.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ConfigError } from "../McpError.js"
import type * as McpSchema from "../McpSchema.js"
import type { Field, Fingerprint, LockFile, Pinned, ToolDrift, ToolPin } from "../ToolPin.js"
import * as JsonText from "./jsonText.js"
import { sha256Hex } from "./sha256.js"

export { describe } from "./drift.js"

/** The fields a fingerprint covers, in the order drift names them. @internal */
export const FIELDS: ReadonlyArray<Field> = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations"
]

/** How many hex digits of a field's own digest are kept: enough to say which field changed. */
const FIELD_DIGITS = 16

/**
 * JSON with the keys of every object sorted (by UTF-16 code units) and no whitespace; `undefined`
 * members are left out, as `JSON.stringify` does. For values read from JSON this is RFC 8785's form.
 *
 * @internal
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) {
    return `[${value.map((item) => item === undefined ? "null" : canonicalJson(item)).join(",")}]`
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`
}

// A cached list hands out the same objects on every read: each is hashed once.
const known = new WeakMap<object, Fingerprint>()

/** @internal */
export const fingerprint = async (tool: McpSchema.Tool): Promise<Fingerprint> => {
  const cached = known.get(tool)
  if (cached !== undefined) return cached
  const covered: Record<string, unknown> = {}
  const fields: Partial<Record<Field, string>> = {}
  for (const field of FIELDS) {
    const value = tool[field]
    if (value === undefined) continue
    covered[field] = value
    fields[field] = (await sha256Hex(canonicalJson(value))).slice(0, FIELD_DIGITS)
  }
  const result: Fingerprint = { digest: `sha256:${await sha256Hex(canonicalJson(covered))}`, fields }
  known.set(tool, result)
  return result
}

const digestOf = (pinned: Pinned): string => typeof pinned === "string" ? pinned : pinned.digest

/** The fields whose digests differ (present in one and not the other counts). */
const changedFields = (pinned: Fingerprint, actual: Fingerprint): ReadonlyArray<Field> =>
  FIELDS.filter((field) => pinned.fields?.[field] !== actual.fields?.[field])

/**
 * A tool's drift against its pin, or `undefined` when it matches: `pinned` absent (an unpinned
 * tool) is `added`, `actual` absent (a pinned tool not listed) is `removed`.
 *
 * @internal
 */
export const driftOf = (
  server: string,
  tool: string,
  pinned: Pinned | undefined,
  actual: Fingerprint | undefined,
  refused: boolean
): ToolDrift | undefined => {
  if (pinned === undefined) {
    return actual === undefined ? undefined : { server, tool, kind: "added", actual: actual.digest, refused }
  }
  if (actual === undefined) return { server, tool, kind: "removed", pinned: digestOf(pinned), refused }
  if (digestOf(pinned) === actual.digest) return undefined
  return {
    server,
    tool,
    kind: "changed",
    fields: typeof pinned === "string" || pinned.fields === undefined ? undefined : changedFields(pinned, actual),
    pinned: digestOf(pinned),
    actual: actual.digest,
    refused
  }
}

const DigestSchema = Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/))

const FingerprintSchema = Schema.Struct({
  digest: DigestSchema,
  fields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})

const LockFileSchema = Schema.Struct({
  version: Schema.Literal(1),
  servers: Schema.Record({
    key: Schema.String,
    value: Schema.Record({ key: Schema.String, value: Schema.Union(DigestSchema, FingerprintSchema) })
  })
})

/** A lock file's content, checked. @internal */
export const decodeLock = (content: unknown, source: string): Effect.Effect<LockFile, ConfigError> =>
  Effect.mapError(
    Schema.decodeUnknown(LockFileSchema)(content, { onExcessProperty: "ignore" }),
    (error) =>
      new ConfigError({
        message: `${source}: not a tool lock file (version 1): ${ParseResult.TreeFormatter.formatErrorSync(error)}`
      })
  )

/** The lock of every listed tool, by server then name (both sorted). @internal */
export const lockOf = (
  tools: ReadonlyArray<McpSchema.Tool & { readonly server: string }>
): Effect.Effect<LockFile> =>
  Effect.map(
    Effect.promise(() => Promise.all(tools.map((tool) => fingerprint(tool)))),
    (prints) => {
      const servers: Record<string, Record<string, Fingerprint>> = {}
      const order = tools.map((tool, i) => ({ tool, print: prints[i]! })).sort((a, b) =>
        a.tool.server === b.tool.server
          ? (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0)
          : a.tool.server < b.tool.server
          ? -1
          : 1
      )
      for (const { print, tool } of order) (servers[tool.server] ??= {})[tool.name] = print
      return { version: 1, servers }
    }
  )

/** The pin of one server from a lock, `undefined` when the lock has no entry for it. @internal */
export const pinOf = (lock: LockFile, server: string, mode: ToolPin["mode"]): ToolPin | undefined => {
  const tools = Object.prototype.hasOwnProperty.call(lock.servers, server) ? lock.servers[server] : undefined
  return tools === undefined ? undefined : { tools, mode }
}

/** @internal */
export const readLock = (path: string): Effect.Effect<LockFile, ConfigError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.readFileString(path).pipe(
      Effect.mapError((error) => new ConfigError({ message: `${path}: cannot read the lock file: ${error.message}` })),
      Effect.flatMap((text) =>
        Either.match(JsonText.parse(text), {
          onLeft: (mistake) => Effect.fail(new ConfigError({ message: `${path}: ${mistake}` })),
          onRight: Effect.succeed
        })
      ),
      Effect.flatMap((content) => decodeLock(content, path))
    ))

/** The lock as the file holds it: two-space indented JSON, one trailing newline. @internal */
export const writeLock = (path: string, lock: LockFile): Effect.Effect<void, ConfigError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    Effect.mapError(
      fs.writeFileString(path, `${JSON.stringify(lock, null, 2)}\n`),
      (error) => new ConfigError({ message: `${path}: cannot write the lock file: ${error.message}` })
    ))
