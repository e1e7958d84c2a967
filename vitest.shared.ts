import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { UserConfig } from "vitest/config"

const root = path.dirname(fileURLToPath(import.meta.url))
const pkg = (name: string) => path.join(root, "packages", name, "src")

// Tests run against the sources; packages that spawn our own executables use the built dist.
export const shared: UserConfig = {
  resolve: {
    alias: [
      { find: /^@mcp-effect\/client$/, replacement: path.join(pkg("client"), "index.ts") },
      { find: /^@mcp-effect\/client\/(.*)$/, replacement: path.join(pkg("client"), "$1.ts") },
      { find: /^@mcp-effect\/testing$/, replacement: path.join(pkg("testing"), "index.ts") },
      { find: /^@mcp-effect\/testing\/(.*)$/, replacement: path.join(pkg("testing"), "$1.ts") },
      { find: /^@mcp-effect\/node$/, replacement: path.join(pkg("node"), "index.ts") },
      { find: /^@mcp-effect\/node\/(.*)$/, replacement: path.join(pkg("node"), "$1.ts") },
      { find: /^@mcp-effect\/redis$/, replacement: path.join(pkg("redis"), "index.ts") },
      { find: /^@mcp-effect\/redis\/(.*)$/, replacement: path.join(pkg("redis"), "$1.ts") }
    ]
  },
  test: {
    // The facade and the CLI keep files (remembered eras, OAuth tokens) in the user's
    // configuration directory: the tests get one of their own, never the real one.
    env: { XDG_CONFIG_HOME: fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-test-config-")) },
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
}
