/**
 * The roots a connection offers, and declaring them after the fact: `setRoots` on a connection
 * built without roots starts declaring the capability (DIGEST §5: roots are answered only by a
 * client that declared them).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Deprecations from "../../Deprecations.js"
import type { Root } from "../../Handlers.js"
import type { ServerConnection } from "../../ServerConnection.js"
import type { Core } from "./core.js"

/** What the roots part uses of the core. @internal */
export type Needs = Pick<Core, "handlers" | "redeclare" | "currentSession" | "reopenOnNextUse">

/** @internal */
export const make = (
  core: Needs,
  notifyRootsChanged: Effect.Effect<void>
): Pick<ServerConnection, "setRoots" | "roots"> => ({
  setRoots: (next) =>
    Effect.suspend(() => {
      const declared = core.handlers.roots !== undefined
      const copy: ReadonlyArray<Root> = next.map((root) => ({ ...root }))
      core.handlers.roots = copy
      if (declared) return notifyRootsChanged
      core.redeclare()
      const era = core.currentSession()?.negotiated.era
      // A 2026-07-28 request carries the capabilities: the next one declares roots. A legacy
      // session declared its capabilities in `initialize`: it re-initializes on next use.
      if (era === "legacy") core.reopenOnNextUse()
      return era === "modern" ? Deprecations.warnOnce("roots") : Effect.void
    }),
  roots: () => {
    const current = core.handlers.roots
    return current === undefined ? [] : typeof current === "function" ? current() : current
  }
})
