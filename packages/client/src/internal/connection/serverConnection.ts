/**
 * `ServerConnection.make`: wiring only. The shared settings and state (`core.ts`), the router
 * of what the server sends unasked (`router.ts`), the session (`session.ts`) and the request
 * path (`requests.ts`) make the `Core` each feature part takes: lists and reads (`lists.ts`),
 * tools and tasks (`tools.ts`), subscriptions (`listenHub.ts`, `subscriptions.ts`, `watches.ts`) and the other
 * methods (`methods.ts`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { ConfigError } from "../../McpError.js"
import type { ConnectError } from "../../McpError.js"
import type { ServerConfig } from "../../ServerConfig.js"
import type { Options, ServerConnection } from "../../ServerConnection.js"
import * as Masked from "../masked.js"
import * as Sha256 from "../sha256.js"
import * as Core from "./core.js"
import * as ListenHub from "./listenHub.js"
import * as Lists from "./lists.js"
import * as Methods from "./methods.js"
import * as Pages from "./pages.js"
import * as Requests from "./requests.js"
import * as Roots from "./roots.js"
import * as Router from "./router.js"
import * as Session from "./session.js"
import * as Subscriptions from "./subscriptions.js"
import * as Tools from "./tools.js"
import * as Watches from "./watches.js"

const coreOf = Symbol("core")

// `kind` follows the transport a fallback settles on. A getter written in the literal would give
// each connection a hidden class of its own (a dictionary, with the spreads after it): one shared
// accessor reads the core instead.
const kind: PropertyDescriptor = {
  enumerable: true,
  get(this: { readonly [coreOf]: Core.Core }) {
    return this[coreOf].kind()
  }
}

/** @internal */
export const make = <R>(
  config: ServerConfig<R>,
  options: Options
): Effect.Effect<ServerConnection, ConnectError | ConfigError, Scope.Scope | R> =>
  Effect.gen(function*() {
    if (config.configError !== undefined) return yield* config.configError
    if (config.pin !== undefined && !Sha256.available()) {
      return yield* new ConfigError({
        message:
          `${config.name}: drift pinning needs WebCrypto's crypto.subtle (a browser gives it to secure pages only)`
      })
    }
    const shared = yield* Core.makeShared(config, options)
    if (shared.debugRequests) yield* Masked.logStart(config)
    // One runtime for the router and the session: each `Effect.runtime()` copies the fiber's refs.
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const sessions = yield* Session.make(config, shared, Router.make(shared, runFork), runFork)
    // `Object.assign`, not spreads: a literal that opens with a spread gets a hidden class of its
    // own per object (docs/performance.md, "Idioms").
    const base = Object.assign({}, shared, sessions)
    const core: Core.Core = Object.assign(base, Requests.make(base))
    const { listen } = Subscriptions.make(core, ListenHub.make(core, runFork))
    const methods = Methods.make(core)
    // A literal that opens with a property, and `kind` added after it (see `kind` above).
    const fields: Omit<ServerConnection, "kind"> = {
      name: core.server,
      negotiated: () => core.currentSession()?.negotiated,
      connect: Effect.map(core.session, (s) => s.negotiated),
      state: core.state.subscribable,
      currentState: core.state.current,
      ...Lists.make(core),
      ...Pages.make(core),
      ...Tools.make(core),
      ...methods,
      ...Roots.make(core, methods.notifyRootsChanged),
      listen,
      ...Watches.make(core, listen)
    }
    Object.defineProperty(fields, coreOf, { value: core })
    const connection = Object.defineProperty(fields, "kind", kind) as ServerConnection
    if (options.lazy !== true) yield* connection.connect
    return connection
  })
