/**
 * Features 2026-07-28 deprecates, and the one warning per feature per process the client logs
 * on first real use. Nothing ever waits on a warning; `disable` turns them off.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * @since 0.1.0
 * @category models
 */
export interface Deprecation {
  readonly feature: Feature
  readonly deprecatedSince: string
  readonly earliestRemoval: string
  readonly migration: string
}

/**
 * @since 0.1.0
 * @category models
 */
export type Feature = "roots" | "sampling" | "logging" | "http+sse" | "includeContext" | "dynamicClientRegistration"

const REMOVAL = "the first revision released on or after 2027-07-28"

/**
 * The registry.
 *
 * @since 0.1.0
 * @category constants
 */
export const registry: Readonly<Record<Feature, Deprecation>> = {
  roots: {
    feature: "roots",
    deprecatedSince: "2026-07-28 (SEP-2577)",
    earliestRemoval: REMOVAL,
    migration: "pass paths or URIs as tool arguments instead of relying on client roots"
  },
  sampling: {
    feature: "sampling",
    deprecatedSince: "2026-07-28 (SEP-2577)",
    earliestRemoval: REMOVAL,
    migration: "call the model from the server, or expose model access as a host-side tool"
  },
  logging: {
    feature: "logging",
    deprecatedSince: "2026-07-28 (SEP-2577)",
    earliestRemoval: REMOVAL,
    migration: "log to stderr (stdio) or use OpenTelemetry"
  },
  "http+sse": {
    feature: "http+sse",
    deprecatedSince: "2025-03-26 (SEP-2596)",
    earliestRemoval: REMOVAL,
    migration: "use the Streamable HTTP transport"
  },
  includeContext: {
    feature: "includeContext",
    deprecatedSince: "2026-07-28",
    earliestRemoval: REMOVAL,
    migration: "send the context the model needs in the sampling messages"
  },
  dynamicClientRegistration: {
    feature: "dynamicClientRegistration",
    deprecatedSince: "2026-07-28",
    earliestRemoval: REMOVAL,
    migration: "use Client ID Metadata Documents (clientIdMetadataUrl) or pre-registered credentials"
  }
}

const warned = new Set<Feature>()
let enabled = true

/**
 * Turns deprecation warnings off (or on again) for the whole process.
 *
 * @since 0.1.0
 * @category switches
 */
export const setEnabled = (value: boolean): void => {
  enabled = value
}

/**
 * Logs the feature's warning if this is its first use in the process. The feature counts as
 * warned only once the log call returned, so a warning that could not be written stays due.
 *
 * @since 0.1.0
 * @category warnings
 */
export const warnOnce = (feature: Feature): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!enabled || warned.has(feature)) return Effect.void
    const entry = registry[feature]
    return Effect.logWarning(
      `mcp-effect: ${feature} is deprecated since ${entry.deprecatedSince}; it may be removed in ${entry.earliestRemoval}. Migration: ${entry.migration}.`
    ).pipe(
      Effect.tap(() => Effect.sync(() => warned.add(feature))),
      Effect.catchAllCause(() => Effect.void)
    )
  })

/**
 * Forgets which warnings were given (tests).
 *
 * @since 0.1.0
 * @category switches
 */
export const reset = (): void => warned.clear()
