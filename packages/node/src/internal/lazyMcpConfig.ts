/**
 * `McpConfig` (the file formats, and every transport's configuration they name), imported only
 * by a program that reads a configuration file.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** @internal */
export const load = Effect.promise(() => import("@mcp-effect/client/McpConfig"))
