// Bundles the executables (the CLI, the fake server, the conformance driver) into single
// tree-shaken ESM files, each with the JSON Schema worker beside it: a one-shot process then
// parses one file instead of resolving some 800 modules. Runs after `tsc -b` (it bundles dist/).
// The library packages stay unbundled for their users' own bundlers.
import * as esbuild from "esbuild"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** Each executable: its built entry, and where its bundle goes. */
const executables = [
  { entry: "packages/cli/dist/bin.js", outDir: "packages/cli/bundle", name: "mcp-effect" },
  { entry: "packages/testing/dist/bin.js", outDir: "packages/testing/bundle", name: "fake-server" },
  { entry: "packages/conformance/dist/driver.js", outDir: "packages/conformance/bundle", name: "driver" }
]
const worker = "packages/node/dist/internal/jsonSchemaWorker.js"

// CommonJS dependencies (undici, ws) call `require` for Node's built-ins.
const banner = "import { createRequire as __mcpEffectRequire } from \"node:module\"\n"
  + "const require = __mcpEffectRequire(import.meta.url)"

const options = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: banner },
  // Optional native speed-ups of ws, loaded in a try/catch.
  external: ["bufferutil", "utf-8-validate"],
  legalComments: "none",
  logLevel: "warning"
}

await Promise.all(executables.flatMap(({ entry, name, outDir }) => [
  // Split: what an entry imports dynamically (the CLI's command, beyond `--version`) is a chunk
  // of its own, parsed only when loaded.
  esbuild.build({
    ...options,
    entryPoints: { [name]: Path.join(root, entry) },
    outdir: Path.join(root, outDir),
    splitting: true,
    chunkNames: "chunks/[name]-[hash]"
  }),
  // nodeJsonSchema starts its worker from `./jsonSchemaWorker.js` beside the module it is in,
  // which is the entry or one of its chunks, whichever esbuild chose: the worker goes to both.
  ...[outDir, Path.join(outDir, "chunks")].map((dir) =>
    esbuild.build({
      ...options,
      entryPoints: { jsonSchemaWorker: Path.join(root, worker) },
      outdir: Path.join(root, dir)
    })
  )
]))
