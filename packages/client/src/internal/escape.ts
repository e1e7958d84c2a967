/**
 * Server-controlled text made safe to print: control characters, line separators,
 * bidirectional-text controls and invisible format marks (U+061C, U+200E/F, U+202A–E,
 * U+2066–9) escaped, length bounded, so a server cannot forge log lines, reorder or hide what a
 * reader sees (`invoice\u202Efdp.exe`), or flood the host's log. Used by every layer that prints
 * what a server sent (log messages, stray stdout, stderr tails, error details).
 *
 * @internal
 */
import * as Limits from "./limits.js"

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/** @internal */
export const escapeControl = (text: string, max = Limits.MAX_LOG_MESSAGE): string => {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text
  return cut.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
}
