/**
 * The host's `Logger` (the facade's option) as the runtime's only logger.
 *
 * @internal
 */
import * as EffectLogger from "effect/Logger"
import type { Logger } from "./types.js"

/** A logger of the host's as the runtime's only logger. */
export const loggerLayer = (logger: Logger) =>
  EffectLogger.replace(
    EffectLogger.defaultLogger,
    EffectLogger.make(({ logLevel, message }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      if (logLevel._tag === "Error" || logLevel._tag === "Fatal") logger.error(text)
      else if (logLevel._tag === "Warning") logger.warn(text)
      else if (logLevel._tag === "Info") logger.info(text)
      else logger.debug(text)
    })
  )
