/**
 * Server log messages (`notifications/message`) made safe to print: control characters, line
 * separators, bidirectional-text controls and invisible format marks (U+061C, U+200E/F,
 * U+202A–E, U+2066–9) escaped, length bounded, so a server cannot forge log lines, reorder or
 * hide what a reader sees (`invoice\u202Efdp.exe`), or flood the host's log.
 *
 * @internal
 */
import * as Limits from "../limits.js"

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/** @internal */
export const escapeControl = (text: string, max = Limits.MAX_LOG_MESSAGE): string => {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text
  return cut.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
}

const LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])

/**
 * The params of a `notifications/message` as listeners get them: `level` one of the RFC 5424
 * names (else `info`), `logger` and string `data` escaped and bounded; other `data` rendered as
 * bounded, escaped JSON text.
 *
 * @internal
 */
export const sanitize = (params: Record<string, unknown> | undefined): Record<string, unknown> => {
  const level = typeof params?.level === "string" && LEVELS.has(params.level) ? params.level : "info"
  const data = params?.data
  let text: string
  try {
    text = typeof data === "string" ? data : JSON.stringify(data) ?? "null"
  } catch {
    text = "[unprintable]"
  }
  return {
    ...params,
    level,
    ...(typeof params?.logger === "string" ? { logger: escapeControl(params.logger, 200) } : {}),
    data: escapeControl(text)
  }
}
