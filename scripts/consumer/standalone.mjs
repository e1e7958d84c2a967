// The standalone facade as a user gets it: `@mcp-effect/node/standalone` resolves to its bundle,
// calls a server, throws its own error classes, and loads no module of the project's
// node_modules but its own bundle's (not Effect's). Argument: the fake server executable.
import { readFileSync, rmSync } from "node:fs"
import { register } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

const record = Path.join(Os.tmpdir(), `mcp-effect-standalone-${process.pid}.txt`)
process.env.RECORD_LOADS = record
const hooks = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.RECORD_LOADS, url + "\\n");
  return next(url, context);
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)

const entry = import.meta.resolve("@mcp-effect/node/standalone")
const { ConfigError, connect, ServerError } = await import("@mcp-effect/node/standalone")
const client = await connect([process.execPath, process.argv[2]])
const echoed = await client.callTool("echo", { message: "hi" })
const rejected = await client.callTool("no-such-tool", {}).catch((error) => error)
await client.close()
const misspelled = await connect("ftp://example.com/mcp").catch((error) => error)

const bundle = new URL(".", entry).href
const outside = readFileSync(record, "utf8").split("\n")
  .filter((url) => url.includes("/node_modules/") && !url.startsWith(bundle))
rmSync(record, { force: true })
const problems = [
  ...entry.endsWith("/@mcp-effect/node/bundle/standalone/index.js") ? [] : [`resolves to ${entry}`],
  ...rejected instanceof ServerError ? [] : [`a rejected call threw ${rejected}, not its ServerError`],
  ...misspelled instanceof ConfigError ? [] : [`a bad target threw ${misspelled}, not its ConfigError`],
  ...outside.map((url) => `loaded ${url}`)
]
if (problems.length > 0) throw new Error(`standalone: ${problems.join("; ")}`)
console.log(JSON.stringify({ standalone: true, echoed: echoed.content }))
