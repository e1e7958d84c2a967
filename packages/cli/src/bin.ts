#!/usr/bin/env node
/**
 * The `mcp-effect` executable. `--version` alone is answered before the command's modules load,
 * so it costs a process start and nothing more.
 *
 * @since 0.1.0
 */
import { version } from "./version.js"

if (process.argv.length === 3 && process.argv[2] === "--version") {
  process.stdout.write(`${version}\n`)
} else {
  await import("./main.js")
}
