/**
 * Server log messages (`notifications/message`) made safe to print: level checked, `logger` and
 * `data` escaped and bounded (see `../escape.ts`).
 *
 * @internal
 */
import { escapeControl } from "../escape.js"

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
