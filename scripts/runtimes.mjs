// The runtimes the tests run on besides Node: Bun and Deno, whose binaries the npm registry ships
// as packages (`@oven/bun-linux-x64`, `@deno/linux-x64-glibc`), installed on first use into
// `.cache/<runtime>-<version>` (outside the workspace and its lockfile) and reused after, as the
// extra Node versions are (nodes.mjs).
import { cachedBinary } from "./nodes.mjs"

/**
 * Each runtime: its package, pinned, the binary's path inside it, and how vitest is started on it
 * (`bun --bun` runs vitest on Bun's own runtime, not on a `node` it would find on PATH; Deno
 * needs its permissions, listed in docs/runtimes.md — `-A` grants them all to the test run).
 */
export const runtimes = {
  bun: {
    package: "@oven/bun-linux-x64",
    version: "1.4.5",
    binary: ["bin", "bun"],
    vitest: (binary) => [binary, "--bun", "node_modules/vitest/vitest.mjs"]
  },
  deno: {
    package: "@deno/linux-x64-glibc",
    version: "2.9.6",
    binary: ["deno"],
    vitest: (binary) => [binary, "run", "-A", "node_modules/vitest/vitest.mjs"]
  }
}

/**
 * The tests that cannot run on a runtime, by the tag in their names: `[node-only: why]` (neither
 * Bun nor Deno) or `[not-on-RUNTIME: why]`. As a `--testNamePattern`: every name without them.
 */
export const excluding = (runtime) => `^(?!.*\\[(node-only|not-on-${runtime}):)`

/** Why the binaries cannot be had here, or undefined when they can. */
export const unavailable = () =>
  process.platform === "linux" && process.arch === "x64"
    ? undefined
    : `Bun and Deno binaries from the registry are installed for linux-x64 only (this is ${process.platform}-${process.arch})`

/** The path of the runtime's binary, installing its package first when missing. */
export const runtimeBinary = (name) => {
  const runtime = runtimes[name]
  return cachedBinary(`${name}-${runtime.version}`, `${runtime.package}@${runtime.version}`, [
    ...runtime.package.split("/"),
    ...runtime.binary
  ])
}
