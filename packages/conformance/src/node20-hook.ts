/**
 * Lets the conformance referee start on Node 20. Load it with `node --import <this file>`.
 *
 * The referee's CLI does `import { globSync } from "fs"`, an export that exists only from Node 22,
 * so on Node 20 it fails while linking. This registers a module-resolve hook that hands imports
 * of `fs`/`node:fs` made from inside `@modelcontextprotocol/conformance` a module re-exporting
 * `node:fs` plus a small `globSync` (the referee uses it only in a sub-command we do not run).
 * Nothing else is touched, and on a Node that has `fs.globSync` it registers nothing.
 *
 * @since 0.1.0
 */
import * as Fs from "node:fs"
import { register } from "node:module"

if (!("globSync" in Fs)) {
  register("./internal/fsHooks.js", import.meta.url)
}
