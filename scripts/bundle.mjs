// Bundles the executables (the CLI, the fake server, the conformance driver) into single
// tree-shaken ESM files, each with the JSON Schema worker beside it: a one-shot process then
// parses one file instead of resolving some 800 modules. Runs after `tsc -b` (it bundles dist/).
//
// The client and Node packages get a bundle too, which Node loads (their `node` export
// condition): one entry holding every public module, a re-export file per public module, a chunk
// per module loaded on first use, every dependency left external. Node resolves each module's bare imports (`effect/Effect`, …) one by one, and that,
// not our code, is most of what importing ~90 modules of ours cost; bundlers and other runtimes
// keep the per-module `dist/` (docs/decisions.md, 87).
//
// The Node package's standalone facade (`@mcp-effect/node/standalone`, src/Standalone.ts) is
// bundled with everything it imports, Effect included, tree-shaken: a program that never
// imports Effect then loads none of Effect's ~550 modules (docs/standalone.md). Its metafile,
// kept beside it, is what `esbuild --analyze` reads and what its test checks.
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** Each executable: its built entry, and where its bundle goes. */
const executables = [
  { entry: "packages/cli/dist/bin.js", outDir: "packages/cli/bundle", name: "mcp-effect" },
  { entry: "packages/testing/dist/bin.js", outDir: "packages/testing/bundle", name: "fake-server" },
  { entry: "packages/conformance/dist/driver.js", outDir: "packages/conformance/bundle", name: "driver" }
]
const worker = "packages/node/dist/internal/jsonSchemaWorker.js"

/** Executables bundle the library packages' `dist/`, not the bundles Node loads (built first). */
const librarySpecifier = /^@mcp-effect\/(client|node)(?:\/(.*))?$/
const fromDist = {
  name: "library-dist",
  setup(build) {
    build.onResolve({ filter: librarySpecifier }, ({ path }) => {
      const [, pkg, sub] = librarySpecifier.exec(path)
      return { path: Path.join(root, "packages", pkg, "dist", `${sub ?? "index"}.js`) }
    })
  }
}

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
  // jsonc-parser's `main` is a UMD build whose inner `require`s esbuild cannot follow.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  legalComments: "none",
  logLevel: "warning",
  plugins: [fromDist]
}

/** The library packages Node loads bundled, each after those it imports. */
const libraries = ["client", "node"]

/** What a library's bundle leaves to `node_modules`: its dependencies and peers. */
const externalsOf = (pkg) => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "packages", pkg, "package.json"), "utf8"))
  const names = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
  return names.flatMap((name) => [name, `${name}/*`])
}

/** Public modules bundled on their own, not in their package's bundle. */
const standalone = { pkg: "node", module: "Standalone", outDir: "packages/node/bundle/standalone" }

/** The public modules of a package: flat in `src/`, built to `dist/`. */
const publicModules = (pkg) =>
  Fs.readdirSync(Path.join(root, "packages", pkg, "src"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "index.ts")
    .filter((file) => !(pkg === standalone.pkg && file === `${standalone.module}.ts`))
    .map((file) => file.slice(0, -".ts".length))

/** The bundle Node loads (the `node` export condition). */
const forNode = { directory: "bundle", options: { platform: "node", target: "node20" }, externals: externalsOf }

/**
 * The client's bundle for browsers (its `browser` export condition), which bundlers take
 * without plugins or aliases: `@hyperjump/browser` points its `exports` at an entry that imports
 * `node:fs`, and bundlers follow `exports` over its `browser` field. Here the `@hyperjump/*`
 * packages are bundled in, with the browser entry the package itself ships; every other
 * dependency stays the consumer's to resolve (docs/browser.md).
 */
const forBrowser = {
  directory: "browser",
  // An entry per module (bundleModules), for consumers' tree-shaking.
  perModule: true,
  options: {
    platform: "browser",
    target: "es2022",
    plugins: [{
      name: "hyperjump-browser-entry",
      setup(build) {
        build.onResolve({ filter: /^@hyperjump\/browser$/ }, () => ({
          path: Path.join(root, "node_modules/@hyperjump/browser/lib/index.browser.js")
        }))
      }
    }]
  },
  externals: (pkg) => externalsOf(pkg).filter((name) => !name.startsWith("@hyperjump/"))
}

/** A library's build in a flavour: split ESM with source maps, its dependencies left to resolve. */
const buildLibrary = (pkg, flavour, entryPoints, outdir) =>
  esbuild.build({
    bundle: true,
    format: "esm",
    ...flavour.options,
    entryPoints,
    outdir,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    external: flavour.externals(pkg),
    sourcemap: true,
    legalComments: "none",
    logLevel: "warning"
  })

/**
 * The browser flavour: an entry per public module, chunks for what they share. A consumer's
 * bundler then takes only the modules its program imports (one shared chunk would carry the
 * whole client into every page: 164 KiB gzip instead of 146 for `Browser.connect`); the number
 * of files, which costs Node its start-up, costs a bundled page nothing.
 */
const bundleModules = async (pkg, flavour, modules) => {
  const dist = Path.join(root, "packages", pkg, "dist")
  const outdir = Path.join(root, "packages", pkg, flavour.directory)
  Fs.rmSync(outdir, { recursive: true, force: true })
  const entries = Object.fromEntries([...modules, "index"].map((name) => [name, Path.join(dist, `${name}.js`)]))
  await buildLibrary(pkg, flavour, entries, outdir)
}

/**
 * One package's bundle for Node: every public module in one shared chunk (modules a package loads on
 * first use stay chunks of their own), and a file per public module that re-exports its part.
 * Finer chunks — esbuild's one per set of entries sharing code — left ~50 modules to load.
 */
const bundleLibrary = async (pkg, flavour = forNode) => {
  const dist = Path.join(root, "packages", pkg, "dist")
  const outdir = Path.join(root, "packages", pkg, flavour.directory)
  const modules = publicModules(pkg)
  if (flavour.perModule) return bundleModules(pkg, flavour, modules)
  const core = Path.join(dist, "bundle-core.js")
  Fs.writeFileSync(core, modules.map((name) => `export * as ${name} from "./${name}.js"\n`).join(""))
  Fs.rmSync(outdir, { recursive: true, force: true })
  await buildLibrary(pkg, flavour, { core, index: Path.join(dist, "index.js") }, outdir)
  Fs.rmSync(core)
  for (const name of modules) {
    const names = Object.keys(await import(pathToFileURL(Path.join(dist, `${name}.js`)).href))
    const body = names.length === 0
      ? "export {}\n"
      : `import { ${name} as m } from "./core.js"\nexport const { ${names.join(", ")} } = m\n`
    Fs.writeFileSync(Path.join(outdir, `${name}.js`), body)
  }
}

/**
 * The JSON Schema worker, whole (it imports the client's internals, which no bundle exports).
 * nodeJsonSchema starts it from `./jsonSchemaWorker.js` beside the module it is in, which is an
 * entry or one of its chunks, whichever esbuild chose: the worker goes to both directories.
 */
const workerBeside = (outDir) =>
  [outDir, Path.join(outDir, "chunks")].map((dir) =>
    esbuild.build({
      ...options,
      entryPoints: { jsonSchemaWorker: Path.join(root, worker) },
      outdir: Path.join(root, dir)
    })
  )

/**
 * The browser's JSON Schema worker (`BrowserJsonSchema`), whole and self-contained (a module
 * worker imports nothing the page resolves), beside the browser bundle's entries and chunks, as
 * the Node worker is: the module that starts it is an entry or a chunk, whichever esbuild chose.
 */
const browserWorkerBeside = () =>
  ["packages/client/browser", "packages/client/browser/chunks"].map((dir) =>
    esbuild.build({
      bundle: true,
      format: "esm",
      ...forBrowser.options,
      minify: true,
      entryPoints: { jsonSchemaWorker: Path.join(root, "packages/client/dist/internal/jsonSchema/webWorker.js") },
      outdir: Path.join(root, dir),
      legalComments: "none",
      logLevel: "warning"
    })
  )

/**
 * The standalone facade: one entry with its dependencies inside (a chunk per module it loads on
 * first use), and the metafile of the build as `meta.json`.
 */
const bundleStandalone = async () => {
  const outdir = Path.join(root, standalone.outDir)
  const result = await esbuild.build({
    ...options,
    entryPoints: { index: Path.join(root, "packages", standalone.pkg, "dist", `${standalone.module}.js`) },
    outdir,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    metafile: true
  })
  Fs.writeFileSync(Path.join(outdir, "meta.json"), JSON.stringify(result.metafile))
}

// In order: listing the Node package's exports loads the client's bundle.
for (const pkg of libraries) await bundleLibrary(pkg)
await bundleStandalone()
await bundleLibrary("client", forBrowser)
await Promise.all([
  ...workerBeside("packages/node/bundle"),
  ...workerBeside(standalone.outDir),
  ...browserWorkerBeside()
])

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
  ...workerBeside(outDir)
]))
