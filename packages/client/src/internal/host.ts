/**
 * What the core asks of the runtime it runs on, in one place: which runtime it is, the
 * operating system, and Node's built-in modules where the runtime has them (Node, Bun, Deno).
 * Read through `globalThis`, so the core type-checks without Node's types and runs where there
 * is no `process` at all (browsers, workers).
 *
 * @internal
 */

/**
 * The runtime: `"browser"` covers windows and workers alike, `"other"` anything with neither
 * `process` nor a DOM (edge runtimes).
 *
 * @internal
 */
export type Runtime = "node" | "bun" | "deno" | "browser" | "other"

interface ProcessLike {
  readonly platform?: string
  readonly versions?: { readonly node?: string }
  readonly getBuiltinModule?: (id: string) => unknown
}

interface Globals {
  readonly process?: ProcessLike
  readonly Bun?: unknown
  readonly Deno?: unknown
  readonly document?: unknown
  readonly importScripts?: unknown
}

const globals = globalThis as Globals

/**
 * Bun and Deno both define `process` (and `process.versions.node`) for Node compatibility, so
 * they are told apart first.
 *
 * @internal
 */
export const runtime = (): Runtime =>
  globals.Bun !== undefined
    ? "bun"
    : globals.Deno !== undefined
    ? "deno"
    : typeof globals.process?.versions?.node === "string"
    ? "node"
    : globals.document !== undefined || typeof globals.importScripts === "function"
    ? "browser"
    : "other"

/**
 * `process.platform` (`linux`, `darwin`, `win32`, …), or `undefined` where there is no process.
 *
 * @internal
 */
export const platform = (): string | undefined => globals.process?.platform

/**
 * One of Node's built-in modules (`"node:zlib"`) through `process.getBuiltinModule` (Node 20.16+,
 * Bun, Deno), without an import the core's bundles would have to resolve; `undefined` where the
 * runtime has none. The caller states the part of the module's type it uses.
 *
 * @internal
 */
export const builtinModule = <A>(id: string): A | undefined => {
  const getBuiltinModule = globals.process?.getBuiltinModule
  return typeof getBuiltinModule === "function"
    ? getBuiltinModule.call(globals.process, id) as A | undefined
    : undefined
}
