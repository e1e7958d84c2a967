/**
 * The authorization request waiting for its callback: kept in this client's memory, or — with
 * `OAuth.Options.pendingStorage` — in a storage that outlives the page (a page that navigates to
 * the authorization server comes back as a new page). A kept request is taken once: by the
 * callback carrying its `state`; any other callback is refused and leaves it in place.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as oauth from "oauth4webapi"
import { AuthError } from "../../McpError.js"
import type * as OAuth from "../../OAuth.js"
import { pendingKey } from "../../OAuth.js"
import type { Discovery } from "./oauthCore.js"
import type { StoredClient } from "./tokens.js"

/** One authorization request: what the callback is checked against and the code redeemed with. @internal */
export interface Pending {
  readonly request: {
    readonly issuer: string
    readonly verifier: string
    readonly state: string
    readonly clientId: string
    readonly redirectUri: string
  }
  readonly client: StoredClient
  readonly discovery: Discovery
  readonly scopes: ReadonlyArray<string>
}

const Kept = Schema.Struct({
  request: Schema.Struct({
    issuer: Schema.String,
    verifier: Schema.String,
    state: Schema.String,
    clientId: Schema.String,
    redirectUri: Schema.String
  }),
  client: Schema.Struct({
    issuer: Schema.String,
    clientId: Schema.String,
    clientSecret: Schema.optional(Schema.String),
    tokenEndpointAuthMethod: Schema.String,
    redirectUri: Schema.optional(Schema.String),
    clientSecretExpiresAt: Schema.optional(Schema.Number),
    source: Schema.Literal("pre-registered", "cimd", "dcr")
  }),
  discovery: Schema.Struct({
    resource: Schema.String,
    resourceScopes: Schema.optional(Schema.Array(Schema.String)),
    // The authorization server's metadata as discovery accepted it (public, JSON).
    as: Schema.Struct({ issuer: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }),
  scopes: Schema.Array(Schema.String)
})

const decode = Schema.decodeUnknownOption(Kept)

/** @internal */
export interface PendingSlot {
  /** Keeps `pending` until its callback comes (a request kept before replaces it). */
  readonly keep: (pending: Pending) => Effect.Effect<void, AuthError>
  /** Forgets the kept request (its flow ended without needing `complete`). */
  readonly drop: Effect.Effect<void, AuthError>
  /** Takes the kept request whose `state` the callback carries; any other callback is refused. */
  readonly take: (callback: URL) => Effect.Effect<Pending, AuthError>
  /** Whether `keep` must run before the interactive step (the page may unload in it). */
  readonly durable: boolean
}

/** @internal */
export const make = (
  server: string,
  storage: OAuth.OAuthStorage | undefined
): Effect.Effect<PendingSlot> =>
  Effect.gen(function*() {
    const fail = (message: string) => Effect.fail(new AuthError({ server, reason: "authorization", message }))
    const stored = (e: { readonly message: string }) =>
      new AuthError({ server, reason: "storage", message: `the waiting authorization request: ${e.message}` })
    const none = fail("no authorization request is waiting")
    if (storage === undefined) {
      const ref = yield* Ref.make<Pending | undefined>(undefined)
      return {
        keep: (pending) => Ref.set(ref, pending),
        drop: Ref.set(ref, undefined),
        take: () => Effect.flatMap(Ref.getAndSet(ref, undefined), (p) => p === undefined ? none : Effect.succeed(p)),
        durable: false
      }
    }
    const key = pendingKey(server)
    const drop = Effect.mapError(storage.remove(key), stored)
    const take = (callback: URL) =>
      Effect.gen(function*() {
        const raw = yield* Effect.mapError(storage.get(key), stored)
        if (raw === undefined) return yield* none
        const kept = decode(raw)
        if (kept._tag === "None") {
          yield* drop
          return yield* fail("the waiting authorization request could not be read")
        }
        // A stray or forged callback must not spend the request the real one needs.
        if (callback.searchParams.get("state") !== kept.value.request.state) {
          return yield* fail("the callback's state matches no waiting authorization request")
        }
        // Taken before the code is redeemed: a replayed callback finds nothing.
        yield* drop
        const { as, resource, resourceScopes } = kept.value.discovery
        return {
          ...kept.value,
          discovery: { resource, resourceScopes, as: as as oauth.AuthorizationServer }
        }
      })
    return {
      keep: (pending) => Effect.mapError(storage.set(key, pending), stored),
      drop,
      take,
      durable: true
    }
  })
