// `npm run docs:check` (after the API reference build): type-checks the TypeScript examples of
// the documentation, so an example that no longer compiles fails CI.
//
//   node scripts/check-docs.mjs [file.md | file.ts …]   (default: every source listed below)
//
// Sources: every ```ts / ```typescript fence of README.md, docs/*.md and packages/*/README.md,
// and every `@example` block of the published packages' public modules
// (packages/{client,node,redis,testing,cli,ai}/src/*.ts; a block without a fence is code as a whole).
//
// Rules for examples:
//   - Each example is a module of its own (ESM, top-level `await` allowed), written to a temporary
//     directory under .cache/ and compiled twice, in one `tsc` program per setting a user may
//     have: plain `strict`, and the repository's `strict` + `exactOptionalPropertyTypes`
//     (NodeNext; unused names allowed). An example must compile under both.
//   - It is complete: it imports what it uses, by the published names (`@mcp-effect/client/…`,
//     `effect/…`), which resolve to the built packages (`npm run build` first).
//   - A deliberate fragment (a shape, pseudo-code) says so in its info string: ```ts no-check.
//     Keep that rare; the checker counts them. In an `@example`, the fence carries the marker.
//   - Fences of other languages (sh, json, …) are not checked.
//
// Output: one `file:line:col TSxxxx message` per problem, pointing into the markdown or source
// file (with `(under strict only)` or `(under exactOptionalPropertyTypes only)` after the code
// when the other setting accepts it), then a summary line. Exit 0 when every example compiles, 1 otherwise.
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import ts from "typescript"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const publicPackages = ["client", "node", "redis", "testing", "cli", "ai"]
const CHECKED = new Set(["ts", "typescript"])
const NO_CHECK = "no-check"

/** The default sources: the docs and the public modules. */
export const defaultSources = () => {
  const markdown = (dir) =>
    Fs.existsSync(dir) ? Fs.readdirSync(dir).filter((f) => f.endsWith(".md")).map((f) => Path.join(dir, f)) : []
  const modules = (pkg) => {
    const dir = Path.join(root, "packages", pkg, "src")
    return Fs.readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => Path.join(dir, f))
  }
  return [
    Path.join(root, "README.md"),
    ...markdown(Path.join(root, "docs")),
    ...publicPackages.flatMap((pkg) => markdown(Path.join(root, "packages", pkg))),
    ...publicPackages.flatMap(modules)
  ]
}

const OPEN = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/

/**
 * The fences of some lines: `{ lang, flags, line, code }` with `line` the 1-based line (within
 * `lines`) of the first line of code.
 */
export const fencesOf = (lines) => {
  const fences = []
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i])
    if (open === null) continue
    const [, indent, marker, lang, rest] = open
    const close = new RegExp(`^\\s*${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`)
    let end = i + 1
    while (end < lines.length && !close.test(lines[end])) end++
    const code = lines.slice(i + 1, end).map((line) => line.startsWith(indent) ? line.slice(indent.length) : line)
    fences.push({ lang: lang.toLowerCase(), flags: rest.trim().split(/\s+/).filter(Boolean), line: i + 2, code })
    i = end
  }
  return fences
}

/** The `@example` blocks of a source file's doc comments, as fences. */
export const examplesOf = (text) => {
  const examples = []
  const comment = /\/\*\*[\s\S]*?\*\//g
  for (const match of text.matchAll(comment)) {
    const first = text.slice(0, match.index).split("\n").length
    const lines = match[0].split("\n").map((line) => line.replace(/^\s*\/?\*+\/?\s?/, "").replace(/\s*\*\/$/, ""))
    for (let i = 0; i < lines.length; i++) {
      if (!/^@example\b/.test(lines[i])) continue
      let end = i + 1
      let inFence = false
      for (; end < lines.length; end++) {
        if (OPEN.test(lines[end])) inFence = !inFence
        else if (!inFence && /^@\w/.test(lines[end])) break
      }
      const block = lines.slice(i + 1, end)
      const fences = fencesOf(block)
      if (fences.length > 0) {
        examples.push(...fences.map((fence) => ({ ...fence, line: first + i + fence.line })))
      } else {
        while (block.length > 0 && block[block.length - 1].trim() === "") block.pop()
        examples.push({ lang: "ts", flags: [], line: first + i + 1, code: block })
      }
    }
  }
  return examples
}

/** Every example of one file, with its file. */
export const examplesIn = (file) => {
  const text = Fs.readFileSync(file, "utf8")
  const found = file.endsWith(".md") ? fencesOf(text.split("\n")) : examplesOf(text)
  return found.filter((example) => CHECKED.has(example.lang)).map((example) => ({ ...example, file }))
}

const baseOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts"],
  types: ["node"],
  strict: true,
  noFallthroughCasesInSwitch: true,
  noImplicitOverride: true,
  skipLibCheck: true,
  esModuleInterop: true,
  noEmit: true
}

/** The settings every example must compile under, by the name a problem found by one only gets. */
const settings = [
  { name: "strict", options: { ...baseOptions, exactOptionalPropertyTypes: false } },
  { name: "exactOptionalPropertyTypes", options: { ...baseOptions, exactOptionalPropertyTypes: true } }
]

const relative = (file) => Path.relative(process.cwd(), file) || file

/** A program's problems, each as a line pointing at its example's source. */
const problemsOf = (program, byFile) =>
  ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ")
    const example = diagnostic.file === undefined ? undefined : byFile.get(Path.resolve(diagnostic.file.fileName))
    if (example === undefined || diagnostic.start === undefined) return `TS${diagnostic.code} ${message}`
    const at = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    return `${relative(example.file)}:${example.line + at.line}:${at.character + 1} TS${diagnostic.code} ${message}`
  })

/**
 * Type-checks examples under each setting; returns `{ checked, skipped, problems }` with each problem a line
 * `file:line:col TSxxxx message` pointing at the example's source.
 */
export const check = (examples) => {
  const skipped = examples.filter((example) => example.flags.includes(NO_CHECK))
  const checked = examples.filter((example) => !example.flags.includes(NO_CHECK))
  if (checked.length === 0) return { checked: 0, skipped: skipped.length, problems: [] }
  // Under the repository, so that the workspace packages and `effect` resolve from node_modules.
  const dir = Fs.mkdtempSync(Path.join(root, ".cache", "check-docs-"))
  try {
    Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
    const byFile = new Map()
    checked.forEach((example, index) => {
      const name = Path.join(dir, `${index}-${Path.basename(example.file).replace(/\W/g, "_")}-${example.line}.ts`)
      Fs.writeFileSync(name, `${example.code.join("\n")}\nexport {}\n`)
      byFile.set(Path.resolve(name), example)
    })
    const found = settings.map(({ options }) => problemsOf(ts.createProgram([...byFile.keys()], options), byFile))
    const problems = [...new Set(found.flat())].map((problem) => {
      const under = settings.filter((_, index) => found[index].includes(problem))
      return under.length === settings.length
        ? problem
        : problem.replace(/^(\S* ?TS\d+) /, `$1 (under ${under[0].name} only) `)
    })
    return { checked: checked.length, skipped: skipped.length, problems }
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const given = process.argv.slice(2).map((file) => Path.resolve(file))
  Fs.mkdirSync(Path.join(root, ".cache"), { recursive: true })
  const { checked, problems, skipped } = check((given.length > 0 ? given : defaultSources()).flatMap(examplesIn))
  for (const problem of problems) console.log(problem)
  console.log(
    `docs: ${checked} example${
      checked === 1 ? "" : "s"
    } type-checked, ${skipped} marked ${NO_CHECK}, ${problems.length} problem${problems.length === 1 ? "" : "s"}`
  )
  process.exit(problems.length === 0 ? 0 : 1)
}
