/**
 * Features 2026-07-28 deprecates, and the one warning per feature per process the client logs
 * at the moment of use or configuration: a roots or sampling handler configured against a
 * 2026-07-28 server, `setLogLevel` on such a server or a `logLevel` in the host's `_meta`, a dynamic client
 * registration, an HTTP+SSE connection, an `includeContext` request. Nothing ever waits on a
 * warning; `setEnabled(false)` turns them off.
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
 * The registry. Dates, SEPs and removals are those of the spec's registry of deprecated
 * features (`docs/specification/2026-07-28/deprecated.mdx`, DIGEST §12): roots, sampling and
 * logging by SEP-2577 in 2026-07-28; dynamic client registration by PR #2858 in 2026-07-28
 * (removal: the first revision on or after 2027-07-28); `includeContext` by SEP-2596 since
 * 2025-11-25 (removed no later than sampling); HTTP+SSE by SEP-2596 since 2025-03-26 (eligible
 * three months after SEP-2596 reaches Final).
 *
 * @since 0.1.0
 * @category constants
 */
export const registry: Readonly<Record<Feature, Deprecation>> = {
  roots: {
    feature: "roots",
    deprecatedSince: "2026-07-28 (SEP-2577)",
    earliestRemoval: REMOVAL,
    migration: "pass directories or files via tool parameters, resource URIs, or server configuration"
  },
  sampling: {
    feature: "sampling",
    deprecatedSince: "2026-07-28 (SEP-2577)",
    earliestRemoval: REMOVAL,
    migration: "integrate directly with LLM provider APIs"
  },
  logging: {
    feature: "logging",
    deprecatedSince: "2026-07-28 (SEP-2577)",
    earliestRemoval: REMOVAL,
    migration: "log to stderr for stdio transports; use OpenTelemetry for observability"
  },
  "http+sse": {
    feature: "http+sse",
    deprecatedSince: "2025-03-26 (SEP-2596)",
    earliestRemoval: "three months after SEP-2596 reaches Final",
    migration: "use the Streamable HTTP transport"
  },
  includeContext: {
    feature: "includeContext",
    deprecatedSince: "2025-11-25 (SEP-2596)",
    earliestRemoval: "the removal of sampling (SEP-2577), at the latest",
    migration: "omit includeContext or use \"none\""
  },
  dynamicClientRegistration: {
    feature: "dynamicClientRegistration",
    deprecatedSince: "2026-07-28 (PR #2858)",
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
      `mcp-effect: ${feature} is deprecated since ${entry.deprecatedSince}; earliest removal: ${entry.earliestRemoval}. Migration: ${entry.migration}.`
    ).pipe(
      Effect.tap(() => Effect.sync(() => warned.add(feature))),
      Effect.catchAllCause(() => Effect.void)
    )
  })

/**
 * The warnings due when a connection to a 2026-07-28 server opens with this configuration: a
 * roots or a sampling handler, a `logLevel` in the host's fixed `_meta`.
 *
 * @since 0.1.0
 * @category warnings
 */
export const warnConfigured = (configured: {
  readonly handlers?: { readonly roots?: unknown; readonly sampling?: unknown } | undefined
  readonly requestMeta?: unknown
}): Effect.Effect<void> =>
  Effect.suspend(() => {
    const meta = configured.requestMeta
    const due: Array<Feature> = []
    if (configured.handlers?.roots !== undefined) due.push("roots")
    if (configured.handlers?.sampling !== undefined) due.push("sampling")
    if (typeof meta === "object" && meta !== null && LOG_LEVEL_KEY in meta) due.push("logging")
    // Most connections configure nothing deprecated: no loop (some eight run-loop steps) for none.
    return due.length === 0 ? Effect.void : Effect.forEach(due, warnOnce, { discard: true })
  })

const LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"

/**
 * Forgets which warnings were given (tests).
 *
 * @since 0.1.0
 * @category switches
 */
export const reset = (): void => warned.clear()
