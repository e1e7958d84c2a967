/**
 * What `OAuth` hands out without loading the flows (oauth4webapi and the rest of `internal/auth`,
 * imported by the first `OAuth.make`): the storage tag and the non-interactive step.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { AuthFailure } from "../../McpAuth.js"
import { AuthorizationRequiredError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"

/** @internal */
export const storageTag = Context.GenericTag<OAuth.OAuthStorage>("@mcp-effect/client/OAuthStorage")

/** @internal */
export const nonInteractive = (server: string) => (authorizationUrl: URL): Effect.Effect<URL, AuthFailure> =>
  Effect.fail(new AuthorizationRequiredError({ server, authorizationUrl: authorizationUrl.href }))
