/**
 * Bundle size (issue #34, point 8): the same browser program — connect over Streamable HTTP,
 * list the tools, call one, close — bundled by esbuild for the browser (minified, split, the
 * way an application bundles it) with our client (the Promise facade `Browser.connect`, and the
 * Effect API over `FetchHttpClient`) and with the official clients. Reported: what the page
 * loads before the program runs (the entry and every chunk it imports statically) minified,
 * gzipped and brotli'd; what loads only on use (dynamic imports); our validation worker on its
 * own; and the split of the eager bytes by package, which says where the weight is.
 *
 * Sizes do not depend on the machine: one build per program, no rounds.
 *
 * @since 0.1.0
 */
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Zlib from "node:zlib"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/** The program, per client: the same four steps against a server URL the page is given. */
const programs = {
  "ours, Browser.connect": `import * as Browser from "@mcp-effect/client/Browser"
const client = await Browser.connect(globalThis.serverUrl)
console.log(await client.listTools(), await client.callTool("echo", { text: "hi" }))
await client.close()
`,
  "ours, Effect API": `import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Effect from "effect/Effect"
const program = Effect.gen(function*() {
  const client = yield* McpClient.make({ servers: [StreamableHttp.config({ name: "demo", url: globalThis.serverUrl })] })
  console.log(yield* client.listTools(), yield* client.callTool("echo", { text: "hi" }))
})
await Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
`,
  "v1 1.32.2": `import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
const client = new Client({ name: "bench", version: "1.0.0" })
await client.connect(new StreamableHTTPClientTransport(new URL(globalThis.serverUrl)))
console.log(await client.listTools(), await client.callTool({ name: "echo", arguments: { text: "hi" } }))
await client.close()
`,
  "v2 2.4.0": `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
const client = new Client({ name: "bench", version: "1.0.0" })
await client.connect(new StreamableHTTPClientTransport(new URL(globalThis.serverUrl)))
console.log(await client.listTools(), await client.callTool({ name: "echo", arguments: { text: "hi" } }))
await client.close()
`
} as const

type ProgramName = keyof typeof programs

/** Bytes of one set of output files: minified, gzip level 9, brotli quality 11. */
interface Sizes {
  readonly min: number
  readonly gzip: number
  readonly brotli: number
}

interface Measured {
  readonly eager: Sizes
  readonly lazy: Sizes
  /** Minified bytes of the eager files, per package they came from. */
  readonly byPackage: ReadonlyMap<string, number>
}

const sizesOf = (files: ReadonlyArray<Uint8Array>): Sizes => ({
  min: files.reduce((sum, file) => sum + file.length, 0),
  gzip: files.reduce((sum, file) => sum + Zlib.gzipSync(file, { level: 9 }).length, 0),
  brotli: files.reduce((sum, file) => sum + Zlib.brotliCompressSync(file).length, 0)
})

/** The package an input file belongs to: its `node_modules` name, or ours for the client. */
const packageOf = (input: string): string => {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)
  if (match !== null) return match[1]!
  return input.startsWith("packages/client/") ? "@mcp-effect/client" : "(the program)"
}

/** The outputs the entry loads before it runs: itself and its static imports, transitively. */
const eagerOutputs = (metafile: esbuild.Metafile): Set<string> => {
  const outputs = metafile.outputs
  const entry = Object.keys(outputs).find((name) => outputs[name]!.entryPoint !== undefined)!
  const eager = new Set<string>()
  const visit = (name: string) => {
    if (eager.has(name)) return
    eager.add(name)
    for (const imported of outputs[name]!.imports) if (imported.kind === "import-statement") visit(imported.path)
  }
  visit(entry)
  return eager
}

const measure = async (dir: string, name: ProgramName): Promise<Measured> => {
  const entry = Path.join(dir, `${name.replace(/[^a-z0-9]+/gi, "-")}.js`)
  Fs.writeFileSync(entry, programs[name])
  const outdir = Path.join(dir, "out")
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir,
    write: false,
    metafile: true,
    legalComments: "none",
    logLevel: "error"
  })
  const eager = eagerOutputs(result.metafile)
  const contents = new Map(result.outputFiles.map((file) => [Path.relative(root, file.path), file.contents]))
  const scripts = Object.keys(result.metafile.outputs).filter((name) => name.endsWith(".js"))
  const byPackage = new Map<string, number>()
  for (const output of eager) {
    for (const [input, { bytesInOutput }] of Object.entries(result.metafile.outputs[output]!.inputs)) {
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput)
    }
  }
  return {
    eager: sizesOf(scripts.filter((name) => eager.has(name)).map((name) => contents.get(name)!)),
    lazy: sizesOf(scripts.filter((name) => !eager.has(name)).map((name) => contents.get(name)!)),
    byPackage
  }
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1)

/** Effect and `@effect/*`: the share of our bundle that is the runtime we build on. */
const isEffect = (pkg: string) => pkg === "effect" || pkg.startsWith("@effect/")

const splitLine = (measured: Measured): string => {
  const total = [...measured.byPackage.values()].reduce((a, b) => a + b, 0)
  return [...measured.byPackage].sort((a, b) => b[1] - a[1]).filter(([, bytes]) => bytes >= 1024)
    .map(([pkg, bytes]) => `${pkg} ${kib(bytes)} (${Math.round(100 * bytes / total)} %)`).join(", ")
}

/** The share of the eager gzip bytes that Effect's modules account for (by their minified share). */
const effectGzipShare = (measured: Measured): number => {
  const total = [...measured.byPackage.values()].reduce((a, b) => a + b, 0)
  const effect = [...measured.byPackage].filter(([pkg]) => isEffect(pkg)).reduce((a, [, b]) => a + b, 0)
  return measured.eager.gzip * effect / total
}

/**
 * Prints the bundle sizes, the split, and the target (ours ≤ the official v2 client, gzip).
 *
 * @since 0.1.0
 */
export const bundleSizeBench = async (): Promise<void> => {
  Fs.mkdirSync(Path.join(root, ".bench"), { recursive: true })
  const dir = Fs.mkdtempSync(Path.join(root, ".bench", "bundle-"))
  try {
    const results = new Map<ProgramName, Measured>()
    for (const name of Object.keys(programs) as Array<ProgramName>) results.set(name, await measure(dir, name))
    const worker = Fs.readFileSync(Path.join(root, "packages/client/browser/jsonSchemaWorker.js"))
    console.log("\n=== bundle size: connect, list tools, call, close in a page (esbuild, browser, minified, split)")
    console.log("    KiB; eager = the entry and its static imports (what loads before the program runs)")
    console.log(
      `  ${"client".padEnd(24)} ${"eager min".padStart(10)} ${"gzip".padStart(7)} ${"brotli".padStart(7)}`
        + `   ${"on use, gzip".padStart(12)}`
    )
    for (const [name, { eager, lazy }] of results) {
      console.log(
        `  ${name.padEnd(24)} ${kib(eager.min).padStart(10)} ${kib(eager.gzip).padStart(7)} `
          + `${kib(eager.brotli).padStart(7)}   ${kib(lazy.gzip).padStart(12)}`
      )
    }
    console.log(
      `  our validation worker (a file of its own): ${kib(worker.length)} min, `
        + `${kib(Zlib.gzipSync(worker, { level: 9 }).length)} gzip`
    )
    console.log("  eager split by package (KiB minified):")
    for (const [name, measured] of results) console.log(`    ${name}: ${splitLine(measured)}`)
    const v2 = results.get("v2 2.4.0")!.eager.gzip
    console.log("  target (issue #34): ours eager gzip ≤ v2's")
    for (const name of ["ours, Browser.connect", "ours, Effect API"] as const) {
      const ours = results.get(name)!
      const ratio = ours.eager.gzip / v2
      console.log(
        `    ${name.padEnd(24)} ×${ratio.toFixed(2)} v2  ${ratio <= 1 ? "met" : "NOT MET"}`
          + `  (Effect's share ≈ ${kib(effectGzipShare(ours))} KiB gzip = ×${
            (effectGzipShare(ours) / v2).toFixed(2)
          } v2)`
      )
    }
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
