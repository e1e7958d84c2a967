// `npm run test:consumer`: the packages as a user gets them. Packs every public package, checks
// each tarball's file list (with the bundles Node loads), installs the tarballs into a fresh
// project on the lowest Effect 3.x line the peer ranges allow (not the workspace's), type-checks
// a strict `nodenext` consumer of the Effect API and the facade, and runs it as ESM and as
// CommonJS against the packed fake server on every tested Node version, which must resolve the
// client and Node packages to their bundles. Needs the built packages (`npm run build`).
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { envFor, extraVersions, nodeBinary, unavailable } from "./nodes.mjs"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const sources = Path.join(root, "scripts", "consumer")
const publicPackages = ["client", "node", "testing", "cli"]

/** The lowest versions the peer ranges accept: a project on them must work. */
const lowest = {
  "effect": "3.21.4",
  "@effect/platform": "0.96.2",
  "@effect/platform-node": "0.107.0",
  "@types/node": "20.19.43"
}

/** What Node loads of the packages that have a bundle for it (their `node` export condition). */
const nodeBundles = {
  "@mcp-effect/client": ["package/bundle/index.js", "package/bundle/McpClient.js"],
  "@mcp-effect/node": ["package/bundle/index.js", "package/bundle/Connect.js", "package/bundle/jsonSchemaWorker.js"]
}

/** Node must resolve the packages to their bundles, and anything else to `dist/`. */
const checkResolution = (binary, project, env) => {
  const script = "for (const s of process.argv.slice(1)) console.log(import.meta.resolve(s))"
  const specifiers = ["@mcp-effect/node", "@mcp-effect/client/McpClient", "@mcp-effect/testing"]
  const [node, client, testing] = run(binary, ["--input-type=module", "-e", script, ...specifiers], {
    cwd: project,
    env
  })
    .trim().split("\n")
  if (
    !node.endsWith("/@mcp-effect/node/bundle/index.js") || !client.endsWith("/@mcp-effect/client/bundle/McpClient.js")
  ) {
    throw new Error(`Node resolves the packages to ${node} and ${client}, not their bundles`)
  }
  if (!testing.endsWith("/@mcp-effect/testing/dist/index.js")) {
    throw new Error(`@mcp-effect/testing resolves to ${testing}`)
  }
}

const allowedEntry = /^package\/(package\.json|README\.md|LICENSE|(dist|src|bundle)\/.+)$/

const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { encoding: "utf8", ...options })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

const pack = (into) => {
  Fs.mkdirSync(into, { recursive: true })
  const packed = JSON.parse(run("npm", [
    "pack",
    "--json",
    "--pack-destination",
    into,
    ...publicPackages.flatMap((name) => ["--workspace", `packages/${name}`])
  ], { cwd: root }))
  return packed.map((entry) => ({ name: entry.name, file: Path.join(into, entry.filename) }))
}

/** What is wrong with a tarball's contents, if anything. */
const contentProblems = (tarball) => {
  const entries = run("tar", ["-tzf", tarball.file]).split("\n").filter((line) => line !== "")
  const manifest = JSON.parse(run("tar", ["-xzOf", tarball.file, "package/package.json"]))
  const stray = entries.filter((entry) => !allowedEntry.test(entry) || entry.endsWith(".tsbuildinfo"))
  const missing = ["package/README.md", "package/LICENSE", "package/dist/index.js", "package/dist/index.d.ts"]
    .concat(Object.values(manifest.bin ?? {}).map((bin) => Path.posix.join("package", bin)))
    .concat(nodeBundles[tarball.name] ?? [])
    .filter((entry) => !entries.includes(entry))
  return [
    ...stray.map((entry) => `${tarball.name}: ${entry} should not be in the tarball`),
    ...missing.map((entry) => `${tarball.name}: ${entry} is missing`)
  ]
}

const makeProject = (dir, tarballs) => {
  Fs.mkdirSync(dir, { recursive: true })
  const dependencies = Object.fromEntries(tarballs.map((tarball) => [tarball.name, `file:${tarball.file}`]))
  Fs.writeFileSync(
    Path.join(dir, "package.json"),
    JSON.stringify(
      { name: "consumer", private: true, type: "module", dependencies: { ...dependencies, ...lowest } },
      null,
      2
    )
  )
  for (const file of ["consumer.ts", "consumer.cjs", "tsconfig.json"]) {
    Fs.copyFileSync(Path.join(sources, file), Path.join(dir, file))
  }
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const installed = JSON.parse(Fs.readFileSync(Path.join(dir, "node_modules", "effect", "package.json"), "utf8"))
  if (installed.version !== lowest.effect) throw new Error(`the consumer got effect ${installed.version}`)
  const copies = run("find", [".", "-path", "*/node_modules/effect/package.json"], { cwd: dir })
    .split("\n").filter((line) => line !== "")
  if (copies.length !== 1) throw new Error(`the consumer has ${copies.length} copies of effect: ${copies.join(", ")}`)
}

const checkOutput = (label, output) => {
  const result = JSON.parse(output.trim().split("\n").at(-1))
  const text = JSON.stringify(result)
  if (!text.includes("\"hi\"")) throw new Error(`${label}: unexpected output ${text}`)
  if (result.viaEffect !== undefined && result.viaEffect.structured?.sum !== 5) {
    throw new Error(`${label}: the Effect API gave ${JSON.stringify(result.viaEffect)}`)
  }
}

const main = () => {
  const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-consumer-"))
  const tarballs = pack(Path.join(work, "tarballs"))
  const problems = tarballs.flatMap(contentProblems)
  if (problems.length > 0) throw new Error(`tarball contents:\n  ${problems.join("\n  ")}`)
  console.log(`[consumer] ${tarballs.length} tarballs, contents ok`)

  const project = Path.join(work, "project")
  makeProject(project, tarballs)
  console.log(`[consumer] installed into ${project} with effect ${lowest.effect}`)
  run(process.execPath, [Path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project])
  console.log("[consumer] strict nodenext type-check ok")

  const fakeServer = Path.join(project, "node_modules", "@mcp-effect", "testing", "bundle", "fake-server.js")
  const skipped = unavailable()
  if (skipped !== undefined) console.log(`[consumer] only on this Node: ${skipped}`)
  const binaries = [process.execPath, ...(skipped === undefined ? extraVersions.map(nodeBinary) : [])]
  for (const binary of binaries) {
    const version = run(binary, ["--version"]).trim()
    const env = envFor(binary)
    checkResolution(binary, project, env)
    checkOutput(`${version} ESM`, run(binary, ["dist/consumer.js", fakeServer], { cwd: project, env }))
    checkOutput(`${version} CommonJS`, run(binary, ["consumer.cjs", fakeServer], { cwd: project, env }))
    console.log(`[consumer] Node ${version}: ESM and CommonJS ok`)
  }
  Fs.rmSync(work, { recursive: true, force: true })
}

main()
