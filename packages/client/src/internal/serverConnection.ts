/** @internal */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { InvalidResponseError } from "../McpError.js"
import type { CapabilityError, ConnectError, RequestError } from "../McpError.js"
import * as McpSchema from "../McpSchema.js"
import * as Protocol from "../Protocol.js"
import * as RpcPeer from "../RpcPeer.js"
import type { ServerConfig } from "../ServerConfig.js"
import type { Options, RequestOptions, ServerConnection } from "../ServerConnection.js"

const DEFAULT_TIMEOUT_MS = 30_000

interface Session {
  readonly scope: Scope.CloseableScope
  readonly peer: RpcPeer.RpcPeer
  readonly negotiated: Protocol.Negotiated
}

type Params = Record<string, unknown> | undefined

// The schemas transform nothing, so a value that passes the (allocation-free) check is its own
// decoding, unknown fields included; only a failure pays for a full decode to explain itself.
const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const is = Schema.is(schema)
  const decode = Schema.decodeUnknownEither(schema, McpSchema.parseOptions)
  return (server: string, method: string, value: unknown): Effect.Effect<A, InvalidResponseError> => {
    if (is(value)) return Effect.succeed(value)
    const result = decode(value)
    return Either.isRight(result)
      ? Effect.succeed(result.right)
      : Effect.fail(new InvalidResponseError({ server, method, message: result.left.message.slice(0, 500) }))
  }
}

const decodeTools = decoder(McpSchema.page("tools", McpSchema.Tool))
const decodePrompts = decoder(McpSchema.page("prompts", McpSchema.Prompt))
const decodeResources = decoder(McpSchema.page("resources", McpSchema.Resource))
const decodeTemplates = decoder(McpSchema.page("resourceTemplates", McpSchema.ResourceTemplate))
const decodeCallTool = decoder(McpSchema.CallToolResult)
const decodeGetPrompt = decoder(McpSchema.GetPromptResult)
const decodeReadResource = decoder(McpSchema.ReadResourceResult)
const decodeComplete = decoder(McpSchema.CompleteResult)

const timeoutOf = (options: RequestOptions | undefined): number | undefined =>
  options?.timeout === undefined ? undefined : Duration.toMillis(Duration.decode(options.timeout))

/** A `_meta` key inside tool arguments belongs to the request, not to the tool. */
const callToolParams = (name: string, args: Record<string, unknown> | undefined): Record<string, unknown> => {
  if (args === undefined) return { name, arguments: {} }
  if (!Object.prototype.hasOwnProperty.call(args, "_meta")) return { name, arguments: args }
  const { _meta, ...rest } = args
  return { name, arguments: rest, _meta }
}

/** @internal */
export const make = <R>(
  config: ServerConfig<R>,
  options: Options
): Effect.Effect<ServerConnection, ConnectError, Scope.Scope | R> =>
  Effect.gen(function*() {
    const server = config.name
    const context = yield* Effect.context<R>()
    const parentScope = yield* Effect.scope
    const defaultTimeoutMs = config.readTimeout === undefined
      ? DEFAULT_TIMEOUT_MS
      : Duration.toMillis(Duration.decode(config.readTimeout))
    const maxPages = options.maxPages ?? 100
    const protocol = Protocol.legacy
    const identity: Protocol.ClientIdentity = { clientInfo: options.clientInfo, capabilities: {} }

    const caches: {
      tools?: ReadonlyArray<McpSchema.Tool> | undefined
      prompts?: ReadonlyArray<McpSchema.Prompt> | undefined
      resources?: ReadonlyArray<McpSchema.Resource> | undefined
      resourceTemplates?: ReadonlyArray<McpSchema.ResourceTemplate> | undefined
    } = {}

    // The one notification router of this server: the client's own bookkeeping (caches) runs
    // before the host's listeners, so a listener that re-lists always re-fetches.
    const onNotification = (method: string, params: Params) => {
      switch (method) {
        case "notifications/tools/list_changed":
          caches.tools = undefined
          break
        case "notifications/prompts/list_changed":
          caches.prompts = undefined
          break
        case "notifications/resources/list_changed":
          caches.resources = undefined
          caches.resourceTemplates = undefined
          break
      }
      options.onNotification(server, method, params)
    }

    const onRequest: RpcPeer.RequestHandler = (method) => {
      switch (method) {
        case "ping":
          return Effect.succeed({})
        default:
          return undefined
      }
    }

    let live: Session | undefined
    const lock = yield* Effect.makeSemaphore(1)

    const candidates = [{ kind: config.kind, transport: config.transport }, ...(config.fallbacks ?? [])]
    // Once a candidate worked (auto-detection), reopening uses it alone.
    let chosen: number | undefined
    let kind = config.kind

    const openWith = (candidate: number) =>
      Effect.gen(function*() {
        const scope = yield* Scope.fork(parentScope, ExecutionStrategy.sequential)
        return yield* Effect.gen(function*() {
          const peer = yield* RpcPeer.make({
            server,
            transport: candidates[candidate]!.transport,
            defaultTimeoutMs,
            onNotification,
            onRequest
          })
          const negotiated = yield* protocol.open(server, peer, identity, defaultTimeoutMs)
          if (config.keepAlive !== undefined) {
            yield* peer.request("ping", undefined).pipe(
              Effect.catchAll((error) => Effect.logDebug(`${server}: keep-alive ping failed: ${error.message}`)),
              Effect.repeat(Schedule.spaced(config.keepAlive)),
              Effect.forkScoped
            )
          }
          return { scope, peer, negotiated } satisfies Session
        }).pipe(
          Scope.extend(scope),
          Effect.provide(context),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
      })

    const open = Effect.gen(function*() {
      if (live !== undefined) {
        yield* Scope.close(live.scope, Exit.void)
        live = undefined
        caches.tools =
          caches.prompts =
          caches.resources =
          caches.resourceTemplates =
            undefined
      }
      const order = chosen !== undefined ? [chosen] : candidates.map((_, i) => i)
      let opened: Session | undefined
      for (let i = 0; opened === undefined; i++) {
        const candidate = order[i]!
        const last = i === order.length - 1
        const attempt = openWith(candidate)
        // A server that answered the handshake with a revision we cannot speak is not a
        // transport mismatch: no fallback for it.
        opened = last ? yield* attempt : yield* attempt.pipe(
          Effect.catchIf(
            (error) => error._tag !== "UnsupportedProtocolVersionError",
            (error) =>
              Effect.as(
                Effect.logDebug(
                  `${server}: ${candidates[candidate]!.kind} did not work (${error._tag}); trying ${
                    candidates[order[i + 1]!]!.kind
                  }`
                ),
                undefined
              )
          )
        )
        if (opened !== undefined) {
          chosen = candidate
          kind = candidates[candidate]!.kind
        }
      }
      live = opened
      return opened
    })

    const session: Effect.Effect<Session, ConnectError> = Effect.suspend(() =>
      live !== undefined && live.peer.isOpen()
        ? Effect.succeed(live)
        : lock.withPermits(1)(
          Effect.suspend(() => live !== undefined && live.peer.isOpen() ? Effect.succeed(live) : open)
        )
    )

    const request = (
      method: string,
      params: Params,
      requestOptions?: RequestOptions
    ): Effect.Effect<unknown, ConnectError> => {
      const peerOptions = requestOptions === undefined ? undefined : {
        timeoutMs: timeoutOf(requestOptions),
        onProgress: requestOptions.onProgress
      }
      // Fast path: an open session is used without going through the reopen lock.
      const attempt = Effect.suspend(() =>
        live !== undefined && live.peer.isOpen()
          ? live.peer.request(method, params, peerOptions)
          : Effect.flatMap(session, (s) => s.peer.request(method, params, peerOptions))
      )
      // An expired HTTP session: the request is re-sent once on a new session, unless it is a
      // tool call, which may have had effects — that fails so the caller decides.
      return method === "tools/call"
        ? attempt
        : Effect.catchTag(attempt, "SessionExpiredError", () => attempt)
    }

    const gated = (
      method: string,
      params: Params,
      requestOptions?: RequestOptions
    ): Effect.Effect<unknown, ConnectError | CapabilityError> =>
      Effect.flatMap(session, (s): Effect.Effect<unknown, ConnectError | CapabilityError> => {
        const refused = protocol.gate(server, s.negotiated, method)
        return refused !== undefined ? Effect.fail(refused) : s.peer.request(method, params, {
          timeoutMs: timeoutOf(requestOptions),
          onProgress: requestOptions?.onProgress
        })
      })

    const listAll = <K extends "tools" | "prompts" | "resources" | "resourceTemplates", A>(
      method: string,
      key: K,
      decode: (server: string, method: string, value: unknown) => Effect.Effect<
        { readonly [P in K]: ReadonlyArray<A> } & { readonly nextCursor?: string | undefined },
        InvalidResponseError
      >,
      requestOptions: RequestOptions | undefined
    ): Effect.Effect<ReadonlyArray<A>, ConnectError> =>
      Effect.suspend(() => {
        const cached = caches[key] as ReadonlyArray<A> | undefined
        if (cached !== undefined) return Effect.succeed(cached)
        const items: Array<A> = []
        const seen = new Set<string>()
        const loop = (cursor: string | undefined, pages: number): Effect.Effect<ReadonlyArray<A>, RequestError> =>
          Effect.flatMap(
            request(method, cursor === undefined ? undefined : { cursor }, requestOptions) as Effect.Effect<
              unknown,
              RequestError
            >,
            (raw) =>
              Effect.flatMap(decode(server, method, raw), (page) => {
                for (const item of page[key]) items.push(item)
                const next = page.nextCursor
                if (next === undefined) return Effect.succeed(items)
                if (seen.has(next)) {
                  return Effect.as(
                    Effect.logWarning(`${server}: ${method} repeated a cursor; stopped after ${pages} pages`),
                    items
                  )
                }
                if (pages >= maxPages) {
                  return Effect.as(
                    Effect.logWarning(`${server}: ${method} stopped at the bound of ${maxPages} pages`),
                    items
                  )
                }
                seen.add(next)
                return loop(next, pages + 1)
              })
          )
        return Effect.tap(loop(undefined, 1), (all) =>
          Effect.sync(() => {
            ;(caches as Record<K, ReadonlyArray<A> | undefined>)[key] = all
          }))
      })

    const connection: ServerConnection = {
      name: server,
      get kind() {
        return kind
      },
      negotiated: () => live?.negotiated,
      connect: Effect.map(session, (s) => s.negotiated),
      ping: (requestOptions) => Effect.asVoid(request("ping", undefined, requestOptions)),
      listTools: (requestOptions) => listAll("tools/list", "tools", decodeTools, requestOptions),
      listPrompts: (requestOptions) => listAll("prompts/list", "prompts", decodePrompts, requestOptions),
      listResources: (requestOptions) => listAll("resources/list", "resources", decodeResources, requestOptions),
      listResourceTemplates: (requestOptions) =>
        listAll("resources/templates/list", "resourceTemplates", decodeTemplates, requestOptions),
      callTool: (name, args, requestOptions) =>
        Effect.flatMap(
          request("tools/call", callToolParams(name, args), requestOptions),
          (raw) => decodeCallTool(server, "tools/call", raw)
        ),
      getPrompt: (name, args, requestOptions) =>
        Effect.flatMap(
          request("prompts/get", args === undefined ? { name } : { name, arguments: args }, requestOptions),
          (raw) => decodeGetPrompt(server, "prompts/get", raw)
        ),
      readResource: (uri, requestOptions) =>
        Effect.flatMap(
          request("resources/read", { uri }, requestOptions),
          (raw) => decodeReadResource(server, "resources/read", raw)
        ),
      setLogLevel: (level, requestOptions) => Effect.asVoid(gated("logging/setLevel", { level }, requestOptions)),
      subscribeResource: (uri, requestOptions) => Effect.asVoid(gated("resources/subscribe", { uri }, requestOptions)),
      unsubscribeResource: (uri, requestOptions) =>
        Effect.asVoid(gated("resources/unsubscribe", { uri }, requestOptions)),
      complete: (completeRequest, requestOptions) =>
        Effect.flatMap(
          gated("completion/complete", { ...completeRequest }, requestOptions),
          (raw) => decodeComplete(server, "completion/complete", raw)
        )
    }

    yield* connection.connect
    return connection
  })
