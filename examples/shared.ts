/**
 * Paths the examples share: the demo server executable, built by `npm run build`.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root (examples compile to `examples/dist`). */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

/** The demo MCP server over stdio. */
export const demoServer: ReadonlyArray<string> = [
  process.execPath,
  path.join(root, "packages/testing/bundle/fake-server.js")
]
