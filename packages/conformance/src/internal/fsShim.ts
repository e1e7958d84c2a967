/**
 * `node:fs` as Node 22 shows it to the conformance referee: every export of `node:fs`, plus a
 * minimal synchronous `globSync` (`*`, `?`, `**` over a directory walk; no braces or classes).
 *
 * @internal
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

export * from "node:fs"
export { default } from "node:fs"

/** @internal */
export interface GlobOptions {
  readonly cwd?: string | URL | undefined
  readonly exclude?: ((path: string) => boolean) | ReadonlyArray<string> | undefined
}

const toRegExp = (pattern: string): RegExp => {
  let source = ""
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === "*" && pattern[i + 1] === "*") {
      // `**/` matches any number of directories (also none); a trailing `**` anything.
      if (pattern[i + 2] === "/") {
        source += "(?:.*/)?"
        i += 2
      } else {
        source += ".*"
        i += 1
      }
    } else if (char === "*") {
      source += "[^/]*"
    } else if (char === "?") {
      source += "[^/]"
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&")
    }
  }
  return new RegExp(`^${source}$`)
}

const walk = (root: string, relative: string, out: Array<string>): void => {
  let entries: Array<Fs.Dirent>
  try {
    entries = Fs.readdirSync(Path.join(root, relative), { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`
    out.push(path)
    // Symbolic links are listed but not followed, so a link cycle cannot loop.
    if (entry.isDirectory()) walk(root, path, out)
  }
}

/**
 * Paths under `cwd` (relative to it, with the platform's separator) matching any pattern.
 *
 * @internal
 */
export const globSync = (pattern: string | ReadonlyArray<string>, options: GlobOptions = {}): Array<string> => {
  const cwd = options.cwd === undefined
    ? process.cwd()
    : typeof options.cwd === "string"
    ? options.cwd
    : fileURLToPath(options.cwd)
  const patterns = (typeof pattern === "string" ? [pattern] : pattern).map((p) => toRegExp(p.replace(/\\/g, "/")))
  const exclude = options.exclude
  const excluded = exclude === undefined
    ? () => false
    : typeof exclude === "function"
    ? exclude
    : ((globs: ReadonlyArray<RegExp>) => (path: string) => globs.some((glob) => glob.test(path)))(exclude.map(toRegExp))
  const all: Array<string> = []
  walk(cwd, "", all)
  return all
    .filter((path) => patterns.some((glob) => glob.test(path)) && !excluded(path))
    .map((path) => path.split("/").join(Path.sep))
}
