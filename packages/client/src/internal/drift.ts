/**
 * A tool's drift against its pin, in words: what the warning and `ToolPinMismatchError` say
 * (its own module: the errors need it without the rest of pinning).
 *
 * @internal
 */
import type { ToolDrift } from "../ToolPin.js"

/** What a drift is, in words (the warning and `ToolPinMismatchError` say it). @internal */
export const describe = (
  drift: Pick<ToolDrift, "tool" | "kind"> & { readonly fields?: ReadonlyArray<string> | undefined }
): string => {
  const name = JSON.stringify(drift.tool.slice(0, 128))
  switch (drift.kind) {
    case "added":
      return `tool ${name} is not in the pin`
    case "removed":
      return `pinned tool ${name} is no longer listed`
    case "changed":
      return `tool ${name} changed against its pin (${
        drift.fields === undefined
          ? "the pin holds no per-field digests"
          : drift.fields.length === 0
          ? "a field outside the known ones"
          : drift.fields.join(", ")
      })`
  }
}
