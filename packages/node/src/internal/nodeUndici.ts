/**
 * undici's global dispatcher as Node's own undici (the one behind `fetch`) provides it. Reading
 * it here costs a fraction of loading the undici package: Node's copy is part of its binary,
 * compiled ahead, where the package is a hundred CommonJS modules to resolve and compile.
 *
 * @internal
 */
import type * as Undici from "@effect/platform-node/Undici"

// The key under which every undici copy (Node's, the package's) keeps the process's global
// dispatcher: `getGlobalDispatcher` of any copy reads this.
const globalDispatcherKey = Symbol.for("undici.globalDispatcher.1")

/**
 * The process's global dispatcher, as undici's `getGlobalDispatcher` returns it: the one set
 * (by `setGlobalDispatcher` of any undici copy), else the `Agent` Node's undici sets when it is
 * loaded. `undefined` where Node's undici does not set one (another runtime).
 *
 * @internal
 */
export const globalDispatcher = (): Undici.Dispatcher | undefined => {
  const holder = globalThis as unknown as Record<symbol, Undici.Dispatcher | undefined>
  // Node defines `Response` lazily: reading it loads Node's undici, whose first load sets an
  // `Agent` as the global dispatcher when there is none.
  if (holder[globalDispatcherKey] === undefined) void globalThis.Response
  const dispatcher = holder[globalDispatcherKey]
  return typeof dispatcher?.dispatch === "function" ? dispatcher : undefined
}
