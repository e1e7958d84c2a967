/**
 * Drift pinning: a stable fingerprint of each tool definition, a server's pin (tool name →
 * fingerprint) checked whenever its tools are listed, the drift a listed tool shows against its
 * pin, and the lock file (`mcp-lock.json`) that records the fingerprints of every server's tools.
 * `ServerConfig.pin` turns it on for a server; `docs/many-servers.md` ("Drift pinning") says how.
 *
 * @since 0.2.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as internal from "./internal/toolPin.js"
import type { ConfigError } from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type { ServerConfig } from "./ServerConfig.js"

/**
 * The fields of a tool definition a fingerprint covers. `icons`, `execution` and `_meta` are
 * left out: presentation, call mechanics and metadata a server may vary without changing what
 * the model is told.
 *
 * @since 0.2.0
 * @category models
 */
export type Field = "name" | "title" | "description" | "inputSchema" | "outputSchema" | "annotations"

/**
 * The fields a fingerprint covers, in order.
 *
 * @since 0.2.0
 * @category constants
 */
export const fields: ReadonlyArray<Field> = internal.FIELDS

/**
 * A tool definition's fingerprint: `digest`, `sha256:` and the hex SHA-256 of the canonical
 * JSON (keys sorted, no whitespace) of the covered fields present; and, to name what changed,
 * each present field's own digest (the first 16 hex digits of the SHA-256 of its canonical JSON).
 *
 * @since 0.2.0
 * @category models
 */
export interface Fingerprint {
  readonly digest: string
  readonly fields?: { readonly [F in Field]?: string } | undefined
}

/**
 * What a pin holds for one tool: its fingerprint, or only the `digest` string (drift is then
 * found, but which fields changed cannot be told).
 *
 * @since 0.2.0
 * @category models
 */
export type Pinned = string | Fingerprint

/**
 * A server's pin. `warn` (default): every drift is a warning (logged, and told to
 * `onToolDrift`), nothing else changes. `strict`: only the tools whose definition matches their
 * pin are listed and called; a changed or unpinned tool is left out of every list and calling
 * it (or a pinned tool no longer listed) fails with `ToolPinMismatchError`, nothing sent.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolPin {
  readonly tools: Readonly<Record<string, Pinned>>
  readonly mode?: "warn" | "strict" | undefined
}

/**
 * How a listed tool differs from the pin: `changed` (its fingerprint differs; `fields` names the
 * fields that changed, `undefined` when the pin holds the digest only), `added` (listed, not
 * pinned) or `removed` (pinned, no longer listed). `refused`: strict mode keeps it from the
 * lists and its calls.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolDrift {
  readonly server: string
  readonly tool: string
  readonly kind: "changed" | "added" | "removed"
  readonly fields?: ReadonlyArray<Field> | undefined
  /** The pinned digest (`changed`, `removed`). */
  readonly pinned?: string | undefined
  /** The listed definition's digest (`changed`, `added`). */
  readonly actual?: string | undefined
  readonly refused: boolean
}

/**
 * The lock file: `version` 1, and for each server name the fingerprint of each of its tools.
 *
 * @since 0.2.0
 * @category models
 */
export interface LockFile {
  readonly version: 1
  readonly servers: Readonly<Record<string, Readonly<Record<string, Pinned>>>>
}

/**
 * The lock file's default name, looked for in the current directory.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultLockFile = "mcp-lock.json"

/**
 * JSON with every object's keys sorted and no whitespace: what a fingerprint hashes.
 *
 * @since 0.2.0
 * @category fingerprints
 */
export const canonicalJson: (value: unknown) => string = internal.canonicalJson

/**
 * The fingerprint of a tool definition (WebCrypto's SHA-256: a browser gives it to secure
 * pages only). The same definition always has the same fingerprint, whatever the order of its
 * keys; a change to any covered field changes it.
 *
 * @since 0.2.0
 * @category fingerprints
 */
export const fingerprint = (tool: McpSchema.Tool): Effect.Effect<Fingerprint> =>
  Effect.promise(() => internal.fingerprint(tool))

/**
 * The lock of listed tools (`McpClient.listTools()`'s, which carry their server), by server and
 * name.
 *
 * @since 0.2.0
 * @category lock files
 */
export const lock: (tools: ReadonlyArray<McpSchema.Tool & { readonly server: string }>) => Effect.Effect<LockFile> =
  internal.lockOf

/**
 * Checks that a value read from JSON is a lock file.
 *
 * @since 0.2.0
 * @category lock files
 */
export const decodeLock = (content: unknown): Effect.Effect<LockFile, ConfigError> =>
  internal.decodeLock(content, "lock file")

/**
 * Reads a lock file; a missing or malformed one is a `ConfigError`.
 *
 * @since 0.2.0
 * @category lock files
 */
export const readLock: (path: string) => Effect.Effect<LockFile, ConfigError, FileSystem.FileSystem> = internal.readLock

/**
 * Writes a lock file (indented JSON).
 *
 * @since 0.2.0
 * @category lock files
 */
export const writeLock: (path: string, lock: LockFile) => Effect.Effect<void, ConfigError, FileSystem.FileSystem> =
  internal.writeLock

/**
 * The pin of one server from a lock; `undefined` when the lock does not name the server.
 *
 * @since 0.2.0
 * @category lock files
 */
export const pinOf: (lock: LockFile, server: string, mode?: ToolPin["mode"]) => ToolPin | undefined = internal.pinOf

/**
 * Sets each configuration's `pin` from a lock, by server name; a server the lock does not name
 * is left as it is.
 *
 * @since 0.2.0
 * @category lock files
 */
export const applyLock = <R>(
  configs: ReadonlyArray<ServerConfig<R>>,
  lock: LockFile,
  mode?: ToolPin["mode"]
): ReadonlyArray<ServerConfig<R>> =>
  configs.map((config) => {
    const pin = internal.pinOf(lock, config.name, mode)
    return pin === undefined ? config : { ...config, pin }
  })

/**
 * What a drift is, in words: what the warning and `ToolPinMismatchError` say.
 *
 * @since 0.2.0
 * @category models
 */
export const describe: (
  drift: Pick<ToolDrift, "tool" | "kind"> & { readonly fields?: ReadonlyArray<string> | undefined }
) => string = internal.describe
