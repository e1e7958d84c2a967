/**
 * Module customization hooks (run on Node's loader thread, registered by `node20-hook.ts`).
 *
 * @internal
 */
import type { ResolveHook } from "node:module"

const shimUrl = new URL("./fsShim.js", import.meta.url).href

const servedPackage = "/node_modules/@modelcontextprotocol/conformance/"

/**
 * Resolves `fs`/`node:fs` imported by the conformance package to the shim; everything else
 * (including the shim's own import of `node:fs`) resolves as usual.
 *
 * @internal
 */
export const resolve: ResolveHook = (specifier, context, nextResolve) => {
  if (
    (specifier === "fs" || specifier === "node:fs") &&
    context.parentURL !== undefined &&
    context.parentURL.includes(servedPackage)
  ) {
    return { url: shimUrl, format: "module", shortCircuit: true }
  }
  return nextResolve(specifier, context)
}
