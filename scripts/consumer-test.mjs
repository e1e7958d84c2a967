// `npm run test:consumer`: the packages as a user gets them. Packs every public package, checks
// each tarball's file list (with the bundles Node loads), then installs the tarballs into two
// fresh projects:
//   - "documented": the commands of the `sh consumer-test` block of docs/install.md, run as
//     written (the `@mcp-effect/*` names replaced by the tarballs), against the registry as it
//     is today, with the `json consumer-test` tsconfig of the same page (plain `strict`) and the
//     TypeScript that block installs;
//   - "lowest": the lowest Effect 3.x line the peer ranges allow (not the workspace's), under
//     strict + `exactOptionalPropertyTypes` with the workspace's TypeScript.
// Each is type-checked as a `nodenext` consumer of the Effect API and the facade, and run as ESM
// and as CommonJS against the packed fake server on every tested Node version, which must resolve
// the client and Node packages to their bundles; the standalone facade (`standalone.mjs`) must
// load nothing of node_modules but its own bundle. Every `npm install` of the READMEs and docs must
// spell the peers it names with the ranges the packages declare, and the package READMEs link
// absolutely. Needs the built packages (`npm run build`).
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fencesOf } from "./check-docs.mjs"
import { envFor, extraVersions, nodeBinary, unavailable } from "./nodes.mjs"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const sources = Path.join(root, "scripts", "consumer")
const publicPackages = ["client", "node", "redis", "testing", "cli"]
const installDoc = Path.join(root, "docs", "install.md")
const MARKER = "consumer-test"

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
  "@mcp-effect/node": [
    "package/bundle/index.js",
    "package/bundle/Connect.js",
    "package/bundle/jsonSchemaWorker.js",
    "package/bundle/standalone/index.js",
    "package/bundle/standalone/jsonSchemaWorker.js"
  ]
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

const allowedEntry = /^package\/(package\.json|README\.md|LICENSE|(dist|src|bundle|browser)\/.+)$/

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

/** The words of a command line as a POSIX shell splits them (quotes, no expansions), comments dropped. */
const shellWords = (line) => {
  const words = []
  let word
  let quote
  for (const char of line) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else word += char
    } else if (char === "\"" || char === "'") {
      quote = char
      word ??= ""
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (char === "#" && word === undefined) {
      break
    } else if (/[\\$`|&;<>(){}*?]/.test(char)) {
      throw new Error(`the documented install uses shell syntax (${char}) the consumer test does not run: ${line}`)
    } else {
      word = (word ?? "") + char
    }
  }
  if (quote !== undefined) throw new Error(`unclosed quote in ${line}`)
  return word === undefined ? words : [...words, word]
}

/** The fences of a markdown file marked `consumer-test` in a language. */
const markedFences = (file, lang) => {
  const fences = fencesOf(Fs.readFileSync(file, "utf8").split("\n"))
    .filter((fence) => fence.lang === lang && fence.flags.includes(MARKER))
  if (fences.length !== 1) throw new Error(`${file} has ${fences.length} \`${lang} ${MARKER}\` blocks, not one`)
  return fences[0].code
}

/** The documented install: each line of the marked `sh` block, as argv. */
const documentedCommands = () =>
  markedFences(installDoc, "sh").map(shellWords).filter((words) => words.length > 0).map((words) => {
    if (words[0] !== "npm") throw new Error(`the documented install runs ${words[0]}, not npm`)
    return words
  })

/** A command with the `@mcp-effect/*` packages replaced by their tarballs. */
const withTarballs = (words, tarballs) =>
  words.map((word) => {
    if (!word.startsWith("@mcp-effect/")) return word
    const tarball = tarballs.find((candidate) => candidate.name === word)
    if (tarball === undefined) throw new Error(`the documented install names ${word}, which is not packed`)
    return tarball.file
  })

const npmQuiet = { stdio: ["ignore", "pipe", "pipe"] }

/** The project the documented install makes in an empty folder, with the documented tsconfig. */
const makeDocumentedProject = (dir, tarballs) => {
  Fs.mkdirSync(dir, { recursive: true })
  for (const words of documentedCommands()) {
    run(words[0], withTarballs(words, tarballs).slice(1), { cwd: dir, ...npmQuiet })
  }
  Fs.writeFileSync(Path.join(dir, "tsconfig.json"), markedFences(installDoc, "json").join("\n"))
  for (const file of ["consumer.ts", "consumer.cjs", "standalone.mjs"]) {
    Fs.copyFileSync(Path.join(sources, file), Path.join(dir, file))
  }
  run("npm", ["ls", "--all"], { cwd: dir, ...npmQuiet })
  const effect = checkOneEffect(dir, (version) => version.startsWith("3."))
  return { dir, tsc: Path.join(dir, "node_modules", "typescript", "bin", "tsc"), effect }
}

/** The project on the lowest versions the peer ranges accept, with the repository's settings. */
const makeLowestProject = (dir, tarballs) => {
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
  for (const file of ["consumer.ts", "consumer.cjs", "standalone.mjs", "tsconfig.json"]) {
    Fs.copyFileSync(Path.join(sources, file), Path.join(dir, file))
  }
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, ...npmQuiet })
  const effect = checkOneEffect(dir, (version) => version === lowest.effect)
  return { dir, tsc: Path.join(root, "node_modules", "typescript", "bin", "tsc"), effect }
}

/** The project has one copy of `effect`, of a version `expected` accepts. */
const checkOneEffect = (dir, expected) => {
  const installed = JSON.parse(Fs.readFileSync(Path.join(dir, "node_modules", "effect", "package.json"), "utf8"))
  if (!expected(installed.version)) throw new Error(`${dir} got effect ${installed.version}`)
  const copies = run("find", [".", "-path", "*/node_modules/effect/package.json"], { cwd: dir })
    .split("\n").filter((line) => line !== "")
  if (copies.length !== 1) throw new Error(`${dir} has ${copies.length} copies of effect: ${copies.join(", ")}`)
  return installed.version
}

const packageReadmes = ["client", "node", "redis", "testing", "cli", "ai"].map((name) =>
  Path.join(root, "packages", name, "README.md")
)

/**
 * The links of the package READMEs that do not resolve once installed or on the registry's page:
 * relative ones (the repository's `docs/` is not in the tarballs).
 */
const relativeLinks = () =>
  packageReadmes.flatMap((file) =>
    [...Fs.readFileSync(file, "utf8").matchAll(/\]\(([^)\s]+)\)/g)]
      .filter((match) => !/^(https?:|#)/.test(match[1]))
      .map((match) => `${Path.relative(root, file)}: a relative link (${match[1]}) does not resolve once installed`)
  )

/** The `sh` fences of the READMEs and docs that install some of the packages. */
const installFences = () =>
  [Path.join(root, "README.md"), installDoc, ...packageReadmes].flatMap((file) =>
    fencesOf(Fs.readFileSync(file, "utf8").split("\n"))
      .filter((fence) =>
        fence.lang === "sh" && fence.code.some((line) => /^npm (install|i) .*@mcp-effect\//.test(line))
      )
      .map((fence) => ({ file: Path.relative(root, file), lines: fence.code }))
  )

const peersOf = (name) =>
  JSON.parse(Fs.readFileSync(Path.join(root, "packages", name.slice("@mcp-effect/".length), "package.json"), "utf8"))
    .peerDependencies ?? {}

/**
 * What is wrong with the `npm install` lines of one fence: a peer of the `@mcp-effect/*` packages
 * it installs given without a range (npm takes the registry's `latest`, Effect 4 today) or with
 * a range none of them declares.
 */
const rangeProblems = ({ file, lines }) => {
  const commands = lines.filter((line) => /^npm (install|i) /.test(line)).map(shellWords)
  const declared = new Map()
  for (const word of commands.flat().filter((word) => word.startsWith("@mcp-effect/"))) {
    for (const [peer, range] of Object.entries(peersOf(word))) {
      declared.set(peer, [...(declared.get(peer) ?? []), range])
    }
  }
  return commands.flat().filter((word) => !word.startsWith("-") && !word.startsWith("@mcp-effect/")).flatMap((word) => {
    const at = word.indexOf("@", 1)
    const [name, range] = at === -1 ? [word, undefined] : [word.slice(0, at), word.slice(at + 1)]
    const ranges = declared.get(name)
    if (ranges === undefined) return []
    if (range === undefined) return [`${file}: ${name} without a range (the peer ranges: ${ranges.join(", ")})`]
    return ranges.includes(range) ? [] : [`${file}: ${name}@${range}, not a declared peer range (${ranges.join(", ")})`]
  })
}

const checkOutput = (label, output) => {
  const result = JSON.parse(output.trim().split("\n").at(-1))
  const text = JSON.stringify(result)
  if (!text.includes("\"hi\"")) throw new Error(`${label}: unexpected output ${text}`)
  if (result.viaEffect !== undefined && result.viaEffect.structured?.sum !== 5) {
    throw new Error(`${label}: the Effect API gave ${JSON.stringify(result.viaEffect)}`)
  }
  if (result.viaEffect !== undefined && !result.fromConfig?.includes("echo")) {
    throw new Error(`${label}: connectFromConfig listed ${JSON.stringify(result.fromConfig)}`)
  }
}

/** Type-checks a project and runs its consumer as ESM and CommonJS on every tested Node. */
const exercise = (label, { dir, tsc }) => {
  run(process.execPath, [tsc, "-p", dir])
  const version = run(process.execPath, [tsc, "--version"]).trim().replace(/^Version /, "")
  console.log(`[consumer] ${label}: type-check ok (TypeScript ${version})`)
  const fakeServer = Path.join(dir, "node_modules", "@mcp-effect", "testing", "bundle", "fake-server.js")
  const skipped = unavailable()
  if (skipped !== undefined) console.log(`[consumer] only on this Node: ${skipped}`)
  const binaries = [process.execPath, ...(skipped === undefined ? extraVersions.map(nodeBinary) : [])]
  for (const binary of binaries) {
    const nodeVersion = run(binary, ["--version"]).trim()
    const env = envFor(binary)
    checkResolution(binary, dir, env)
    checkOutput(`${label} ${nodeVersion} ESM`, run(binary, ["dist/consumer.js", fakeServer], { cwd: dir, env }))
    checkOutput(`${label} ${nodeVersion} CommonJS`, run(binary, ["consumer.cjs", fakeServer], { cwd: dir, env }))
    checkOutput(`${label} ${nodeVersion} standalone`, run(binary, ["standalone.mjs", fakeServer], { cwd: dir, env }))
    console.log(`[consumer] ${label}: Node ${nodeVersion} ESM, CommonJS and standalone ok`)
  }
}

const main = () => {
  const misspelled = [...installFences().flatMap(rangeProblems), ...relativeLinks()]
  if (misspelled.length > 0) throw new Error(`READMEs and docs:\n  ${misspelled.join("\n  ")}`)
  console.log(
    "[consumer] install commands of the READMEs and docs spell the peer ranges; package READMEs link absolutely"
  )

  const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-consumer-"))
  const tarballs = pack(Path.join(work, "tarballs"))
  const problems = tarballs.flatMap(contentProblems)
  if (problems.length > 0) throw new Error(`tarball contents:\n  ${problems.join("\n  ")}`)
  console.log(`[consumer] ${tarballs.length} tarballs, contents ok`)

  const documented = makeDocumentedProject(Path.join(work, "documented"), tarballs)
  console.log(`[consumer] documented: installed by the commands of docs/install.md (effect ${documented.effect})`)
  exercise("documented", documented)

  const lowestProject = makeLowestProject(Path.join(work, "lowest"), tarballs)
  console.log(`[consumer] lowest: installed with effect ${lowestProject.effect}`)
  exercise("lowest", lowestProject)
  Fs.rmSync(work, { recursive: true, force: true })
}

main()
