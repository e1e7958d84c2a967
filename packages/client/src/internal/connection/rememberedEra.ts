/**
 * Era detection through an `EraCache`: the remembered era first (legacy skips the probe), the
 * era detected afresh in the same connect when the remembered one fails, and what was detected
 * written back when it changes what the next connect sends.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as EraCache from "../../EraCache.js"
import type { ConnectError } from "../../McpError.js"
import type * as Protocol from "../../Protocol.js"

/** A failure that says nothing about the era: the server could not be reached, or refused the credential. */
const aboutTheEra = (error: ConnectError): boolean =>
  error._tag !== "ConnectionError" && error._tag !== "AuthError" && error._tag !== "InsufficientScopeError" &&
  error._tag !== "AuthorizationRequiredError"

/** @internal */
export const detect = (
  server: string,
  cache: EraCache.Service,
  key: string,
  detectWith: (remembered: EraCache.Era | undefined) => Effect.Effect<Protocol.Negotiated, ConnectError>
): Effect.Effect<Protocol.Negotiated, ConnectError> =>
  Effect.flatMap(cache.get(key), (remembered) => {
    // What the cache holds now: nothing once the remembered era was forgotten.
    let stored = remembered
    // A remembered modern era opens with the same probe as no memory: nothing to try again.
    const attempt = remembered === "legacy"
      ? Effect.catchIf(
        Effect.zipRight(
          Effect.logDebug(`${server}: remembered as legacy; initialize without the server/discover probe`),
          detectWith("legacy")
        ),
        aboutTheEra,
        (error) =>
          Effect.logDebug(`${server}: the remembered legacy era failed (${error._tag}); detecting it again`).pipe(
            Effect.zipRight(Effect.suspend(() => {
              stored = undefined
              return cache.invalidate(key)
            })),
            Effect.zipRight(detectWith(undefined))
          )
      )
      : detectWith(undefined)
    return Effect.tapBoth(attempt, {
      // Only a remembered legacy era changes the next exchange: a modern one found where nothing
      // was remembered is not written (the next connect probes the same either way).
      onSuccess: (negotiated) =>
        negotiated.era === stored || (negotiated.era === "modern" && stored === undefined)
          ? Effect.void
          : cache.set(key, negotiated.era),
      onFailure: (error) => stored !== undefined && aboutTheEra(error) ? cache.invalidate(key) : Effect.void
    })
  })
