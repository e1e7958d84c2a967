/** @internal */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Deprecations from "../Deprecations.js"
import * as Handlers from "../Handlers.js"
import * as HeaderParams from "../HeaderParams.js"
import {
  CapabilityError,
  ConnectionError,
  InputRequiredError,
  InvalidResponseError,
  RequestTimeoutError,
  ServerError,
  ValidationError
} from "../McpError.js"
import type { ConnectError, RequestError } from "../McpError.js"
import * as McpSchema from "../McpSchema.js"
import * as Protocol from "../Protocol.js"
import * as RpcPeer from "../RpcPeer.js"
import type { ServerConfig } from "../ServerConfig.js"
import type { Options, RequestOptions, ServerConnection } from "../ServerConnection.js"
import * as Subscription from "../Subscription.js"
import { Task } from "../Task.js"
import * as LogMessage from "./logMessage.js"
import * as NotificationQueue from "./notificationQueue.js"
import * as ResultCache from "./resultCache.js"
import * as Tasks from "./tasks.js"

const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_DISCOVER_TIMEOUT_MS = 5_000
const MAX_INPUT_ROUNDS = 10
/** A stream dropped sooner than this after its acknowledgement is a crash loop: not re-opened. */
const RESTART_MIN_INTERVAL_MS = 1_000
/** Re-opening a dropped listen stream: 200 ms doubling per failure, at most 30 s apart. */
const REOPEN_BACKOFF = Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("30 seconds")))

interface Session {
  readonly scope: Scope.CloseableScope
  readonly peer: RpcPeer.RpcPeer
  readonly negotiated: Protocol.Negotiated
}

type Params = Record<string, unknown> | undefined
type ListKey = "tools" | "prompts" | "resources" | "resourceTemplates"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// The schemas transform nothing, so a value that passes the (allocation-free) check is its own
// decoding, unknown fields included; only a failure pays for a full decode to explain itself.
// `plain` recognises a common shape the schema accepts without walking it.
const decoder = <A, I>(schema: Schema.Schema<A, I>, plain?: (u: unknown) => u is A) => {
  const is = Schema.is(schema)
  const decode = Schema.decodeUnknownEither(schema, McpSchema.parseOptions)
  return (server: string, method: string, value: unknown): Effect.Effect<A, InvalidResponseError> => {
    if (plain?.(value) || is(value)) return Effect.succeed(value)
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
const isMeta = (u: unknown) => u === undefined || isObject(u)

/**
 * A tool result of text blocks without annotations: a subset of what `CallToolResult` accepts,
 * checked by hand because walking the schema costs several µs per call while the JIT warms up.
 */
const isPlainTextResult = (u: unknown): u is McpSchema.CallToolResult => {
  if (!isObject(u) || !Array.isArray(u.content) || !isMeta(u._meta)) return false
  if (u.isError !== undefined && typeof u.isError !== "boolean") return false
  for (const block of u.content) {
    if (
      !isObject(block) || block.type !== "text" || typeof block.text !== "string" ||
      block.annotations !== undefined || !isMeta(block._meta)
    ) return false
  }
  return true
}

const decodeCallTool = decoder(McpSchema.CallToolResult, isPlainTextResult)
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

const freezeFilter = (filter: Subscription.Filter): Subscription.Filter =>
  deepFreeze(structuredClone(filter)) as Subscription.Filter

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

/** The requested fields the acknowledgement did not really grant, read from its values. */
const unsupportedOf = (requested: Subscription.Filter, granted: Subscription.Filter): ReadonlyArray<string> => {
  const missing: Array<string> = []
  for (const flag of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    if (requested[flag] === true && granted[flag] !== true) missing.push(flag)
  }
  for (const list of ["resourceSubscriptions", "taskIds"] as const) {
    const asked = requested[list]
    if (asked === undefined || asked.length === 0) continue
    const given = Array.isArray(granted[list]) ? new Set(granted[list]) : new Set<string>()
    if (!asked.some((item) => given.has(item))) missing.push(list)
  }
  return missing
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
    const discoverTimeoutMs = Duration.toMillis(
      Duration.decode(config.discoverTimeout ?? options.discoverTimeout ?? DEFAULT_DISCOVER_TIMEOUT_MS)
    )
    const mode: Protocol.ProtocolMode = config.protocol ?? options.protocol ?? "auto"
    const maxPages = options.maxPages ?? 100
    const handlers = options.handlers
    const tasksDeclared = (options.extensions ?? []).includes(Tasks.EXTENSION)
    const extensions = (options.extensions ?? []).length === 0
      ? {}
      : { extensions: Object.fromEntries((options.extensions ?? []).map((id) => [id, {}])) }
    const identity: Protocol.ClientIdentity = {
      clientInfo: options.clientInfo,
      capabilities: { ...Handlers.capabilities(handlers, "modern"), ...extensions },
      legacyCapabilities: Handlers.capabilities(handlers, "legacy")
    }
    // A fixed value needs no effect per request.
    const fixedHostMeta: Record<string, unknown> | undefined = options.requestMeta === undefined
      ? {}
      : Effect.isEffect(options.requestMeta)
      ? undefined
      : options.requestMeta
    const hostMeta: Effect.Effect<Record<string, unknown>> = fixedHostMeta === undefined
      ? options.requestMeta as Effect.Effect<Record<string, unknown>>
      : Effect.succeed(fixedHostMeta)
    let logLevel: McpSchema.LoggingLevel | undefined
    const clock = yield* Effect.clock

    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    interface Listen {
      readonly acknowledge: (granted: Record<string, unknown>) => void
      readonly end: () => void
      readonly queue: NotificationQueue.NotificationQueue<RequestError | CapabilityError>
    }
    const listens = new Map<number, Listen>()
    const cache = ResultCache.make()
    const listKeys: Record<ListKey, string> = {
      tools: "tools/list",
      prompts: "prompts/list",
      resources: "resources/list",
      resourceTemplates: "resources/templates/list"
    }
    const readKey = (uri: string) => `resources/read ${uri}`

    // The one notification router of this server: the client's own bookkeeping (caches) runs
    // before the host's listeners, so a listener that re-lists always re-fetches.
    const onNotification = (method: string, received: Params) => {
      // Server log lines reach listeners and the local log escaped and bounded.
      const params = method === "notifications/message" ? LogMessage.sanitize(received) : received
      // 1. Subscription bookkeeping: an acknowledgement, or a server-side teardown.
      const meta = isObject(params?._meta) ? params._meta : undefined
      const subscriptionId = meta?.[Protocol.MetaKey.subscriptionId]
      const subscription = typeof subscriptionId === "number" ? listens.get(subscriptionId) : undefined
      if (subscription !== undefined && method === "notifications/subscriptions/acknowledged") {
        subscription.acknowledge(isObject(params?.notifications) ? params.notifications : {})
      }
      if (method === "notifications/cancelled" && typeof params?.requestId === "number") {
        listens.get(params.requestId)?.end()
      }
      // 2. Cache invalidation (below), then the subscription's queue, then host listeners.
      if (method === "notifications/message") {
        const line = `${server}${typeof params?.logger === "string" ? ` [${params.logger}]` : ""}: ${
          String(params?.data)
        }`
        runFork(Effect.logDebug(line))
      }
      switch (method) {
        case "notifications/tools/list_changed":
          cache.delete(listKeys.tools)
          break
        case "notifications/prompts/list_changed":
          cache.delete(listKeys.prompts)
          break
        case "notifications/resources/list_changed":
          cache.delete(listKeys.resources)
          cache.delete(listKeys.resourceTemplates)
          break
        case "notifications/resources/updated":
          if (typeof params?.uri === "string") cache.delete(readKey(params.uri))
          break
      }
      // 3. The subscription's own consumer (queued: it never runs here), 4. host listeners.
      if (subscription !== undefined && method !== "notifications/subscriptions/acknowledged") {
        subscription.queue.offer(method, params)
      }
      options.onNotification(server, method, params)
    }

    const onRequest: RpcPeer.RequestHandler = (method, params) => {
      if (method === "ping") return Effect.succeed({})
      const served = Handlers.serve(handlers, method, params ?? {}, "legacy")
      if (served === undefined) return undefined
      return Effect.catchAll(served, (error) =>
        error instanceof Handlers.InvalidInputRequest
          ? Effect.fail(new ServerError({ server, method, code: -32602, message: error.message }))
          : Effect.zipRight(
            Effect.logWarning(`${server}: the ${method} handler failed: ${String(error)}`),
            Effect.fail(new ServerError({ server, method, code: -32603, message: "Internal error" }))
          ))
    }

    let live: Session | undefined
    // Sessions live in a scope of their own, closed after `closed` is set: what fails because the
    // host closed the connection (a listen stream, say) sees that it was closed, not that it crashed.
    const sessionsScope = yield* Scope.fork(parentScope, ExecutionStrategy.sequential)
    let closed = false
    yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)))
    const lock = yield* Effect.makeSemaphore(1)
    const candidates = [{ kind: config.kind, transport: config.transport }, ...(config.fallbacks ?? [])]
    // Once a candidate worked (auto-detection), reopening uses it alone.
    let chosen: number | undefined
    let kind = config.kind
    // The era is remembered for the life of the connection; a reopen after a failure probes again.
    const openWith = (candidate: number) =>
      Effect.gen(function*() {
        const scope = yield* Scope.fork(sessionsScope, ExecutionStrategy.sequential)
        return yield* Effect.gen(function*() {
          const peer = yield* RpcPeer.make({
            server,
            transport: candidates[candidate]!.transport,
            defaultTimeoutMs,
            onNotification,
            onRequest
          })
          const negotiated = yield* Protocol.detect(server, peer, identity, {
            mode: candidates[candidate]!.kind === "sse" ? "legacy" : mode,
            discoverTimeoutMs,
            timeoutMs: defaultTimeoutMs
          })
          if (config.keepAlive !== undefined) {
            yield* pingWith(peer, negotiated).pipe(
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
      if (closed) return yield* new ConnectionError({ server, message: "the connection is closed" })
      if (live !== undefined) {
        yield* Scope.close(live.scope, Exit.void)
        live = undefined
        cache.clear()
      }
      const order = chosen !== undefined ? [chosen] : candidates.map((_, i) => i)
      let opened: Session | undefined
      for (let i = 0; opened === undefined; i++) {
        const candidate = order[i]!
        const last = i === order.length - 1
        const attempt = openWith(candidate)
        // A server that answered with a revision we cannot speak is not a transport mismatch.
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

    const peerOptions = (requestOptions: RequestOptions | undefined): RpcPeer.RequestOptions | undefined =>
      requestOptions === undefined ? undefined : {
        timeoutMs: timeoutOf(requestOptions),
        onProgress: requestOptions.onProgress
      }

    const isHttp = () => kind === "streamable_http" || kind === "http"

    /**
     * One request on the current session. On 2026-07-28 it carries the per-request `_meta`
     * and headers, the era's errors are typed, and a broken response stream is re-issued once
     * with a new id (closing the stream was the cancellation, so this is safe even for a tool).
     */
    const send = (...args: Parameters<typeof sendNow>): Effect.Effect<unknown, ConnectError> =>
      Effect.suspend(() => sendNow(...args))

    /** `send` for a caller already running: evaluated at once (every step of an effect costs CPU per call). */
    const sendNow = (
      method: string,
      params: Params,
      requestOptions?: RequestOptions,
      extraHeaders?: Record<string, string>,
      onAuthorization?: (sha256: string | undefined) => void,
      onId?: (id: number) => void
    ): Effect.Effect<unknown, ConnectError> => {
      const options: RpcPeer.RequestOptions | undefined = onAuthorization !== undefined
        ? { ...peerOptions(requestOptions), onId, hints: { onAuthorization } }
        : onId !== undefined
        ? { ...peerOptions(requestOptions), onId }
        : peerOptions(requestOptions)
      const attempt = () =>
        live !== undefined && live.peer.isOpen() ? onSession(live) : Effect.flatMap(session, onSession)
      const onSession = (s: Session): Effect.Effect<unknown, ConnectError> => {
        if (s.negotiated.era === "legacy") return s.peer.request(method, params, options)
        const withHost = (host: Record<string, unknown>) => {
          const meta = {
            ...host,
            ...(isObject(params?._meta) ? params._meta : {}),
            ...Protocol.requestMeta(identity, s.negotiated.protocolVersion, logLevel)
          }
          const headers = { ...Protocol.modernHeaders(method, s.negotiated.protocolVersion), ...extraHeaders }
          const once = s.peer.request(method, { ...params, _meta: meta }, {
            ...options,
            hints: { modern: true, headers, onAuthorization }
          })
          // A listen's broken stream is the subscription's to re-open (backoff, re-acknowledgement).
          const reissued = method === "subscriptions/listen"
            ? once
            : Effect.catchTag(once, "ResponseStreamClosedError", () => once)
          // `modernError` changes only a ServerError (and `catchIf`, unlike `mapError`, costs
          // nothing on success).
          return Effect.catchIf(
            reissued,
            (error): error is ServerError => error instanceof ServerError,
            (error) => Effect.fail(Protocol.modernError(error))
          )
        }
        return fixedHostMeta !== undefined ? withHost(fixedHostMeta) : Effect.flatMap(hostMeta, withHost)
      }
      // An expired HTTP session: re-sent once on a new session, unless it is a tool call,
      // which may have had effects — that fails so the caller decides.
      return method === "tools/call"
        ? attempt()
        : Effect.catchTag(attempt(), "SessionExpiredError", () => Effect.suspend(attempt))
    }

    const pingWith = (peer: RpcPeer.RpcPeer, negotiated: Protocol.Negotiated) =>
      negotiated.era === "legacy"
        ? peer.request("ping", undefined)
        : peer.request("server/discover", {
          _meta: Protocol.requestMeta(identity, negotiated.protocolVersion)
        }, { hints: { modern: true, headers: Protocol.modernHeaders("server/discover", negotiated.protocolVersion) } })

    const gated = (
      method: string,
      params: Params,
      requestOptions?: RequestOptions
    ): Effect.Effect<unknown, ConnectError | CapabilityError> =>
      Effect.flatMap(session, (s): Effect.Effect<unknown, ConnectError | CapabilityError> => {
        const refused = Protocol.legacy.gate(server, s.negotiated, method)
        return refused !== undefined ? Effect.fail(refused) : send(method, params, requestOptions)
      })

    const complete = (method: string, result: unknown): Effect.Effect<unknown, RequestError> =>
      Protocol.resultTypeOf(result) === "complete"
        ? Effect.succeed(result)
        : Effect.fail(Protocol.invalidResult(server, method, result))

    // Multi-round-trip requests (DIGEST §5): each round answers every input request with the
    // host's handlers and retries with a new id, `inputResponses` and the echoed state.
    const withInput = (
      ...args: Parameters<typeof withInputNow>
    ): Effect.Effect<unknown, ConnectError | InputRequiredError> => Effect.suspend(() => withInputNow(...args))

    /** `withInput` for a caller already running. */
    const withInputNow = (
      method: string,
      params: Record<string, unknown>,
      requestOptions: RequestOptions | undefined,
      headers: Record<string, string> | undefined,
      start?: { readonly inputResponses: Record<string, unknown>; readonly requestState: string | undefined },
      onComplete?: (retried: boolean) => void,
      onAuthorization?: (sha256: string | undefined) => void
    ): Effect.Effect<unknown, ConnectError | InputRequiredError> => {
      const startedAt = clock.unsafeCurrentTimeMillis()
      const round = (
        n: number,
        inputResponses: Record<string, unknown> | undefined,
        requestState: string | undefined
      ): Effect.Effect<unknown, ConnectError | InputRequiredError> =>
        Effect.flatMap(
          sendNow(
            method,
            inputResponses === undefined && requestState === undefined ? params : {
              ...params,
              ...(inputResponses === undefined ? {} : { inputResponses }),
              ...(requestState === undefined ? {} : { requestState })
            },
            requestOptions,
            headers,
            onAuthorization
          ),
          (result): Effect.Effect<unknown, ConnectError | InputRequiredError> => {
            const type = Protocol.resultTypeOf(result)
            if (type === "complete") {
              onComplete?.(inputResponses !== undefined || requestState !== undefined)
              return Effect.succeed(result)
            }
            // The tasks extension: only tools/call may answer with a task, and only when declared.
            if (
              type === "invalid" && method === "tools/call" && tasksDeclared && isObject(result) &&
              result.resultType === "task"
            ) return Effect.succeed(result)
            if (type === "invalid") return Effect.fail(Protocol.invalidResult(server, method, result))
            const r = result as Record<string, unknown>
            const state = typeof r.requestState === "string" ? r.requestState : undefined
            const requests = r.inputRequests
            const fail = (reason: string, resumable: boolean) =>
              Effect.fail(
                new InputRequiredError({
                  server,
                  method,
                  params,
                  inputRequests: requests,
                  requestState: state,
                  resumable,
                  reason
                })
              )
            if (n > MAX_INPUT_ROUNDS) return fail(`more than ${MAX_INPUT_ROUNDS} rounds`, true)
            if (requests === undefined) {
              if (state === undefined) {
                return fail("an input_required result with neither inputRequests nor requestState", false)
              }
              // Load shedding: only state came back. The host hook (or a growing pause) decides,
              // and the whole wait stays inside the request's timeout.
              const delayMs = Math.min(50 * 2 ** (n - 1), 2_000)
              return Effect.suspend(() => {
                const elapsedMs = clock.unsafeCurrentTimeMillis() - startedAt
                const decide = options.onInputRequiredWait === undefined
                  ? Effect.succeed<"retry" | "cancel" | number>(delayMs)
                  : options.onInputRequiredWait({ method, round: n, delayMs, requestState: state, elapsedMs })
                return Effect.flatMap(decide, (decision) => {
                  if (decision === "cancel") return fail("cancelled while the server was busy", true)
                  const pause = decision === "retry" ? 0 : Math.max(0, decision)
                  if (elapsedMs + pause > (timeoutOf(requestOptions) ?? defaultTimeoutMs)) {
                    return fail("the server stayed busy past the request's timeout", true)
                  }
                  return Effect.zipRight(
                    Effect.sleep(Duration.millis(pause)),
                    Effect.suspend(() => round(n + 1, undefined, state))
                  )
                })
              })
            }
            if (!isObject(requests)) {
              return fail("malformed inputRequests", false)
            }
            const entries = Object.entries(requests)
            for (const [, request] of entries) {
              if (
                !isObject(request) || typeof request.method !== "string" ||
                (request.params !== undefined && !isObject(request.params))
              ) {
                return fail("malformed inputRequests", false)
              }
            }
            return Effect.flatMap(
              Effect.forEach(entries, ([key, request]) => {
                const r = request as { method: string; params?: Record<string, unknown> }
                const served = Handlers.serve(handlers, r.method, r.params ?? {}, "modern")
                if (served === undefined) return fail(`no handler for ${r.method}`, true)
                return Effect.map(
                  Effect.catchAll(served, (error) =>
                    error instanceof Handlers.InvalidInputRequest
                      ? fail(`refused ${r.method}: ${error.message}`, false)
                      : Effect.zipRight(
                        Effect.logWarning(`${server}: the ${r.method} handler failed: ${String(error)}`),
                        fail(`the ${r.method} handler failed`, true)
                      )),
                  (answer) => [key, answer] as const
                )
              }),
              (answers) => round(n + 1, Object.fromEntries(answers), state)
            )
          }
        )
      return start === undefined ? round(1, undefined, undefined) : round(1, start.inputResponses, start.requestState)
    }

    // Tools whose x-mcp-header annotations are invalid cannot be called correctly over HTTP
    // on 2026-07-28: they are left out of the list, with a warning.
    const usable = (tools: ReadonlyArray<McpSchema.Tool>, s: Session) => {
      if (s.negotiated.era !== "modern" || !isHttp()) return Effect.succeed(tools)
      const kept: Array<McpSchema.Tool> = []
      const dropped: Array<string> = []
      for (const tool of tools) {
        const validation = HeaderParams.validate(tool.inputSchema)
        if (validation.valid) kept.push(tool)
        else dropped.push(`${tool.name.slice(0, 64)} (${validation.reason})`)
      }
      return dropped.length === 0 ? Effect.succeed(kept) : Effect.as(
        Effect.logWarning(`${server}: left out tools with invalid x-mcp-header annotations: ${dropped.join(", ")}`),
        kept
      )
    }

    /** The context cached results are bound to: effective `_meta` and the credential. */
    const cacheContext = (s: Session): Effect.Effect<ResultCache.CacheContext> =>
      s.negotiated.era === "legacy"
        ? Effect.map(s.peer.authorization, (authorization) => ({ meta: "", authorization }))
        : Effect.zipWith(hostMeta, s.peer.authorization, (host, authorization) => ({
          meta: JSON.stringify([host, logLevel ?? null]),
          authorization
        }))

    /**
     * Serves a cached result while fresh, else fetches and caches it. On a transient HTTP
     * failure an older copy is served with a warning ("MAY serve stale"); never on stdio or SSE.
     */
    const cached = <A>(
      key: string,
      fetch: (onAuthorization: (sha256: string | undefined) => void) => Effect.Effect<
        {
          readonly value: A
          readonly hints: { readonly ttlMs: number | undefined; readonly scope: "public" | "private" } | undefined
        },
        ConnectError | InputRequiredError
      >
    ): Effect.Effect<A, ConnectError | InputRequiredError> =>
      Effect.flatMap(session, (s) =>
        Effect.flatMap(cacheContext(s), (context) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const reuse = s.peer.reusableCache
            const hit = reuse ? cache.fresh(key, context, now) : undefined
            if (hit !== undefined) {
              return Effect.succeed(hit as A)
            }
            let sent = context.authorization
            return fetch((sha256) => (sent = sha256)).pipe(
              Effect.tap(({ hints, value }) =>
                Effect.sync(() =>
                  hints === undefined
                    ? cache.delete(key)
                    : cache.set(key, value, hints, { meta: context.meta, authorization: sent }, now)
                )
              ),
              Effect.map(({ value }) =>
                value
              ),
              Effect.catchIf(
                (error) =>
                  reuse && isHttp() && (error._tag === "TransientServerError" || error._tag === "ConnectionError") &&
                  cache.any(key, context) !== undefined,
                (error) =>
                  Effect.as(
                    Effect.logWarning(`${server}: serving a stale ${key} after ${error._tag}`),
                    cache.any(key, context) as A
                  )
              )
            )
          })))

    const listAll = <K extends ListKey, A>(
      method: string,
      key: K,
      decode: (server: string, method: string, value: unknown) => Effect.Effect<
        { readonly [P in K]: ReadonlyArray<A> } & { readonly nextCursor?: string | undefined },
        InvalidResponseError
      >,
      requestOptions: RequestOptions | undefined
    ): Effect.Effect<ReadonlyArray<A>, ConnectError> =>
      cached(listKeys[key], (onAuthorization) => {
        const items: Array<A> = []
        const seen = new Set<string>()
        let ttl = Infinity
        let hinted = false
        let scope: "public" | "private" = "public"
        let restarted = false
        // An invalid cursor (-32602) discards the pages collected so far: the walk restarts once.
        const restart = () => {
          items.length = 0
          seen.clear()
          ttl = Infinity
          hinted = false
          scope = "public"
          restarted = true
          return loop(undefined, 1)
        }
        const loop = (cursor: string | undefined, pages: number): Effect.Effect<ReadonlyArray<A>, ConnectError> =>
          Effect.flatMap(
            send(method, cursor === undefined ? undefined : { cursor }, requestOptions, undefined, onAuthorization),
            (raw) =>
              Effect.flatMap(complete(method, raw), () =>
                Effect.flatMap(decode(server, method, raw), (page) => {
                  if (isObject(raw) && ("ttlMs" in raw || "cacheScope" in raw)) {
                    hinted = true
                    ttl = Math.min(ttl, ResultCache.ttlOf(raw))
                    if (ResultCache.scopeOf(raw) === "private") scope = "private"
                  }
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
                  return Effect.catchIf(
                    loop(next, pages + 1),
                    (error) => !restarted && error._tag === "ServerError" && error.code === -32602,
                    restart
                  )
                }))
          )
        return Effect.map(loop(undefined, 1), (value) => ({
          value,
          // No hints (a legacy server): kept until list_changed. Otherwise the smallest ttlMs.
          hints: hinted ? { ttlMs: ttl === Infinity ? 0 : ttl, scope } : { ttlMs: undefined, scope }
        }))
      }) as Effect.Effect<ReadonlyArray<A>, ConnectError>

    // The definitions calls are made under: the last list fetched, whatever its freshness; a
    // -32020 mismatch is what refreshes them.
    let knownTools: ReadonlyArray<McpSchema.Tool> | undefined
    const listTools = (requestOptions?: RequestOptions): Effect.Effect<ReadonlyArray<McpSchema.Tool>, ConnectError> =>
      Effect.flatMap(
        Effect.tap(listAll("tools/list", "tools", decodeTools, requestOptions), (tools) =>
          Effect.sync(() => {
            knownTools = tools
          })),
        (tools) => Effect.flatMap(session, (s) => usable(tools, s))
      )

    /** Whether a call needs its tool's definition: for `Mcp-Param-*` headers (2026-07-28 HTTP). */
    const headersNeedDefinition = () => live?.negotiated.era === "modern" && isHttp()

    /**
     * The headers of a call: `Mcp-Name`, and the `Mcp-Param-*` ones from the tool's definition
     * (none off 2026-07-28 HTTP).
     */
    const callHeaders = (
      name: string,
      tool: McpSchema.Tool | undefined,
      args: Record<string, unknown> | undefined
    ): Record<string, string> | InvalidResponseError => {
      const headers = { "mcp-name": HeaderParams.encodeValue(name) }
      if (tool === undefined || !headersNeedDefinition()) return headers
      const validation = HeaderParams.validate(tool.inputSchema)
      if (!validation.valid) return headers
      const rendered = HeaderParams.render(validation.params, args ?? {})
      return "error" in rendered
        ? new InvalidResponseError({
          server,
          method: "tools/call",
          message: `arguments do not fit the tool's x-mcp-header parameters: ${rendered.error}`
        })
        : { ...headers, ...rendered as Record<string, string> }
    }

    const validation = options.validateStructuredContent ?? "warn"
    const jsonSchema = options.jsonSchema

    const findTool = (tools: ReadonlyArray<McpSchema.Tool>, name: string) => tools.find((t) => t.name === name)

    /** An input schema in a dialect the client cannot read refuses the call before it is sent. */
    const inputRefusal = (tool: McpSchema.Tool | undefined): ValidationError | undefined => {
      if (jsonSchema === undefined || tool === undefined) return undefined
      const dialect = jsonSchema.dialectOf(tool.inputSchema)
      return dialect._tag === "Supported" ? undefined : unsupportedDialect(tool.name, "input", dialect)
    }

    const unsupportedDialect = (
      tool: string,
      which: "input" | "output",
      dialect: { readonly dialect: string; readonly supported: ReadonlyArray<string> }
    ) =>
      new ValidationError({
        server,
        tool,
        message: `${tool}: the ${which} schema declares the JSON Schema dialect ${
          JSON.stringify(dialect.dialect)
        }: that dialect is not supported (supported: ${dialect.supported.join(", ")})`
      })

    /** Whether `checkOutput` has anything to check. */
    const checksOutput = (tool: McpSchema.Tool | undefined, result: McpSchema.CallToolResult) =>
      jsonSchema !== undefined && tool?.outputSchema !== undefined && result.isError !== true

    /** Structured content checked against the outputSchema of the definition the call went out under. */
    const checkOutput = (
      tool: McpSchema.Tool | undefined,
      result: McpSchema.CallToolResult,
      era: "legacy" | "modern"
    ): Effect.Effect<void, ValidationError> => {
      if (jsonSchema === undefined || tool?.outputSchema === undefined || result.isError === true) return Effect.void
      const violation = (message: string, errors?: ReadonlyArray<{ path: string; message: string }>) =>
        validation === "strict"
          ? Effect.fail(new ValidationError({ server, tool: tool.name, message, ...(errors ? { errors } : {}) }))
          : Effect.logWarning(`${server}: ${message}`)
      const structured = result.structuredContent
      // 2026-07-28 allows any JSON value; earlier revisions an object only.
      const present = era === "modern"
        ? "structuredContent" in result
        : typeof structured === "object" && structured !== null && !Array.isArray(structured)
      if (!present) return violation(`${tool.name} declares an outputSchema but returned no structured content`)
      return Effect.flatMap(
        jsonSchema.validate(tool.outputSchema, structured, {
          cacheKey: `${server}\u0000${tool.name}\u0000${JSON.stringify(tool.outputSchema)}`
        }),
        (outcome): Effect.Effect<void, ValidationError> => {
          const partial = "partial" in outcome && outcome.partial.length > 0
            ? Effect.logWarning(
              `${server}: validation of ${tool.name}'s output is partial: ${outcome.partial.join(", ")} only annotate`
            )
            : Effect.void
          switch (outcome._tag) {
            case "Valid":
              return partial
            case "Invalid":
              return Effect.zipRight(
                partial,
                violation(
                  `${tool.name} returned structured content that does not match its outputSchema: ${
                    outcome.errors.slice(0, 5).map((e) => `${e.path || "/"} ${e.message}`).join("; ")
                  }`,
                  outcome.errors.map((e) => ({ path: e.path, message: e.message }))
                )
              )
            case "UnsupportedDialect":
              return Effect.fail(unsupportedDialect(tool.name, "output", outcome))
            case "Timeout":
              return violation(`${tool.name}: validating its output ran past ${outcome.budgetMs} ms`)
            case "Unusable":
              return Effect.logWarning(
                `${server}: ${tool.name}'s outputSchema is unusable (${outcome.reason}); not validated`
              )
          }
        }
      )
    }

    const tasks = Tasks.make({
      server,
      handlers,
      declared: tasksDeclared,
      session: Effect.map(session, (s) => s.negotiated),
      send: (method, params, requestOptions, headers) => send(method, params, requestOptions, headers),
      decodeResult: (value) => decodeCallTool(server, "tools/call", value),
      checkOutput
    })

    /**
     * Legacy (2025-11-25) task augmentation: a tool that requires it is called as a task when
     * the server declares `tasks.requests.tools.call`.
     */
    const withTask = (params: Record<string, unknown>, tool: McpSchema.Tool | undefined) => {
      const negotiated = live?.negotiated
      const declared = negotiated?.era === "legacy" &&
        isObject(negotiated.capabilities.tasks) && isObject(negotiated.capabilities.tasks.requests) &&
        isObject(negotiated.capabilities.tasks.requests.tools) &&
        negotiated.capabilities.tasks.requests.tools.call !== undefined
      return declared && tool?.execution?.taskSupport === "required" ? { ...params, task: {} } : params
    }

    /**
     * Sends a `tools/call`: the definition it goes out under is the one its result is checked
     * against (a -32020 retry goes out, and is checked, under the refreshed one). One lookup of
     * the definition serves the input check, the headers and the output check.
     */
    const invokeTool = (
      name: string,
      args: Record<string, unknown> | undefined,
      requestOptions: RequestOptions | undefined,
      augment: (params: Record<string, unknown>, tool: McpSchema.Tool | undefined) => Record<string, unknown>
    ) => {
      // Plain functions until the request goes out: this runs on every call.
      const under = (tool: McpSchema.Tool | undefined): Effect.Effect<
        { readonly raw: unknown; readonly tool: McpSchema.Tool | undefined; readonly era: "legacy" | "modern" },
        ConnectError | InputRequiredError | ValidationError
      > => {
        const refused = inputRefusal(tool)
        if (refused !== undefined) return Effect.fail(refused)
        const headers = callHeaders(name, tool, args)
        if (headers instanceof InvalidResponseError) return Effect.fail(headers)
        return Effect.map(
          withInputNow("tools/call", augment(callToolParams(name, args), tool), requestOptions, headers),
          (raw) => ({ raw, tool, era: live?.negotiated.era ?? "legacy" })
        )
      }
      // The definition a call goes out under: the known list, fetched once when unknown.
      const call = Effect.suspend(() =>
        jsonSchema === undefined && !headersNeedDefinition()
          ? under(undefined)
          : knownTools !== undefined
          ? under(findTool(knownTools, name))
          : Effect.flatMap(listTools(), (tools) => under(findTool(tools, name)))
      )
      // -32020: the tool's definition may have changed: re-fetch it, recompute, retry once.
      return Effect.catchTag(call, "HeaderMismatchError", () =>
        Effect.zipRight(
          Effect.sync(() => {
            cache.delete(listKeys.tools)
            knownTools = undefined
          }),
          call
        ))
    }

    // A task-returning call is driven to its end transparently (polled at the server's pace,
    // input requests answered once each, bounded by the task's ttlMs).
    const callTool = (name: string, args: Record<string, unknown> | undefined, requestOptions?: RequestOptions) =>
      Effect.flatMap(invokeTool(name, args, requestOptions, withTask), ({ era, raw, tool }) =>
        Tasks.isCreated(raw, era)
          ? Effect.flatMap(tasks.created(raw, tool, era), (task) => tasks.complete(task, requestOptions))
          : toolResult(raw, tool, era))

    /** A plain `tools/call` result, checked, its structured content against the output schema. */
    const toolResult = (raw: unknown, tool: McpSchema.Tool | undefined, era: "legacy" | "modern") =>
      // The usual result needs no effect of its own: every step of one costs CPU per call.
      isPlainTextResult(raw) && !checksOutput(tool, raw)
        ? Effect.succeed(raw)
        : Effect.flatMap(decodeCallTool(server, "tools/call", raw), (result) =>
          Effect.as(checkOutput(tool, result, era), result))

    const callToolAsTask: ServerConnection["callToolAsTask"] = (name, args, taskOptions) =>
      Effect.flatMap(session, (s) => {
        const modern = s.negotiated.era === "modern"
        const ttl = taskOptions?.ttl === undefined ? {} : { ttl: Duration.toMillis(Duration.decode(taskOptions.ttl)) }
        return Effect.zipRight(
          tasks.gate("tools/call", ["requests", "tools", "call"]),
          Effect.flatMap(
            invokeTool(name, args, taskOptions, (params) => modern ? params : { ...params, task: ttl }),
            // A server that answers with the result at once yields a completed handle carrying it.
            ({ era, raw, tool }) =>
              Tasks.isCreated(raw, era)
                ? tasks.created(raw, tool, era)
                : Effect.map(toolResult(raw, tool, era), (result) =>
                  new Task({ taskId: "", server, status: "completed", result, tool }))
          )
        )
      })

    const resumeInputRequired: ServerConnection["resumeInputRequired"] = (error, inputResponses) =>
      withInput(error.method, isObject(error.params) ? error.params : {}, undefined, undefined, {
        inputResponses,
        requestState: error.requestState
      })

    const listen: ServerConnection["listen"] = (filter, listenOptions) =>
      Effect.gen(function*() {
        const s = yield* session
        if (s.negotiated.era !== "modern") {
          return yield* new CapabilityError({
            server,
            capability: "subscriptions/listen (2026-07-28)",
            method: "subscriptions/listen"
          })
        }
        // The filter is copied and frozen: later edits by the caller change nothing.
        const frozen = freezeFilter(filter)
        const queue = NotificationQueue.make<RequestError | CapabilityError>(
          Subscription.MAX_PENDING_NOTIFICATIONS,
          Subscription.MAX_PENDING_NOTIFICATION_BYTES
        )
        const acknowledged = yield* Deferred.make<Record<string, unknown>, RequestError | CapabilityError>()
        let id: number | undefined
        let active = false
        // Completed by the acknowledgement of the current request: the first one answers `listen`,
        // later ones the re-opens.
        let nextAck = yield* Deferred.make<void>()
        const clock = yield* Effect.clock
        let firstGranted: Record<string, unknown> | undefined
        const state: Listen = {
          acknowledge: (granted) => {
            // A re-opened stream is a new listen the server may grant less: a resource it no
            // longer names is no longer watched, and the subscription ends rather than report it.
            const first = firstGranted
            if (first !== undefined) {
              const now = Array.isArray(granted.resourceSubscriptions) ? granted.resourceSubscriptions : []
              const before = Array.isArray(first.resourceSubscriptions) ? first.resourceSubscriptions : []
              const lost = before.filter((uri) => !now.includes(uri))
              if (lost.length > 0) {
                active = false
                const error = new CapabilityError({
                  server,
                  capability: `resources.subscribe (${String(lost[0]).slice(0, 200)})`,
                  method: "subscriptions/listen"
                })
                queue.fail(error)
                if (id !== undefined) listens.delete(id)
                Deferred.unsafeDone(nextAck, Effect.void)
                return
              }
            }
            firstGranted ??= structuredClone(granted)
            active = true
            acknowledgedAt = clock.unsafeCurrentTimeMillis()
            resetBackoff = true
            Deferred.unsafeDone(acknowledged, Effect.succeed(structuredClone(granted)))
            Deferred.unsafeDone(nextAck, Effect.void)
          },
          end: () => {
            active = false
            queue.end()
          },
          queue
        }
        const onId = (next: number) => {
          if (id !== undefined) {
            listens.delete(id)
          }
          id = next
          listens.set(next, state)
        }
        // `false` waits for ever, like an infinite duration.
        const ackSetting = listenOptions?.ackTimeout === false ? Duration.infinity : listenOptions?.ackTimeout
        const ackTimeoutMs = ackSetting === undefined
          ? defaultTimeoutMs
          : Duration.toMillis(Duration.decode(ackSetting))
        let acknowledgedAt = -Infinity
        // The re-open backoff grows with failures and starts over after each acknowledgement.
        const backoff = yield* Schedule.driver(REOPEN_BACKOFF)
        let resetBackoff = false
        const failWith = (error: RequestError | CapabilityError) =>
          Effect.sync(() => {
            queue.fail(error)
            Deferred.unsafeDone(acknowledged, Effect.fail(error))
          })
        // One listen request: resolves when the server ends it (or fails).
        const once = send(
          "subscriptions/listen",
          { notifications: frozen },
          { timeout: Duration.infinity },
          undefined,
          undefined,
          onId
        )
        const isReopenable = (error: { readonly _tag: string }) =>
          error._tag === "ResponseStreamClosedError" || error._tag === "TransientServerError" ||
          error._tag === "ConnectionError"
        // Fails once `ack` is still pending after ackTimeout; never succeeds.
        const acknowledgedWithin = (ack: Deferred.Deferred<void>) =>
          Effect.zipRight(
            Effect.timeoutFail(Deferred.await(ack), {
              duration: Duration.millis(ackTimeoutMs),
              onTimeout: () =>
                new RequestTimeoutError({ server, method: "subscriptions/listen", timeoutMs: ackTimeoutMs })
            }),
            Effect.never
          )
        // A dropped stream (or a restarted stdio process) is a new listen: the server keeps no
        // subscription state. Re-opened with backoff; each re-open must be acknowledged within
        // ackTimeout (the first one is bounded by `listen` itself); a drop right after an
        // acknowledgement (a crash loop) ends it, and so does the host closing the connection.
        const loop = (reopen: boolean): Effect.Effect<void> =>
          Effect.suspend(() => {
            const ack = Deferred.unsafeMake<void>(FiberId.none)
            nextAck = ack
            return Effect.matchEffect(reopen ? Effect.raceFirst(once, acknowledgedWithin(ack)) : once, {
              onSuccess: (result) =>
                Protocol.resultTypeOf(result) === "complete"
                  ? Effect.sync(() => state.end())
                  : failWith(Protocol.invalidResult(server, "subscriptions/listen", result)),
              onFailure: (error): Effect.Effect<void> => {
                active = false
                const acknowledgedOnce = acknowledgedAt !== -Infinity
                if (closed) return acknowledgedOnce ? Effect.sync(() => state.end()) : failWith(error as RequestError)
                // Before any acknowledgement only an HTTP stream's failure (a 5xx, a drop) is retried.
                const retry = isReopenable(error) && (acknowledgedOnce
                  ? clock.unsafeCurrentTimeMillis() - acknowledgedAt >= RESTART_MIN_INTERVAL_MS
                  : error._tag !== "ConnectionError")
                if (!retry) return failWith(error as RequestError)
                return Effect.gen(function*() {
                  if (resetBackoff) {
                    resetBackoff = false
                    yield* backoff.reset
                  }
                  // Sleeps the next delay; the schedule never ends.
                  yield* Effect.orDie(backoff.next(undefined))
                  const s = yield* Effect.either(session)
                  if (closed) {
                    return yield* (acknowledgedOnce
                      ? Effect.sync(() => state.end())
                      : failWith(error as RequestError))
                  }
                  if (s._tag === "Left") return yield* failWith(s.left as RequestError)
                  if (s.right.negotiated.era !== "modern") {
                    return yield* failWith(
                      new CapabilityError({
                        server,
                        capability: "subscriptions/listen (2026-07-28)",
                        method: "subscriptions/listen"
                      })
                    )
                  }
                  return yield* loop(true)
                })
              }
            })
          })
        const request = loop(false).pipe(
          Effect.ensuring(Effect.sync(() => {
            active = false
            if (id !== undefined) listens.delete(id)
          }))
        )
        const fiber = yield* Effect.forkScoped(request)
        // A `listen` still waiting for its acknowledgement fails rather than waits for one.
        const close = Effect.asVoid(Effect.zipRight(
          Fiber.interrupt(fiber),
          Effect.sync(() => {
            state.end()
            Deferred.unsafeDone(
              acknowledged,
              Effect.fail(new ConnectionError({ server, message: "the subscription was closed" }))
            )
          })
        ))
        yield* Effect.addFinalizer(() => close)
        const ackTimeout = Duration.millis(ackTimeoutMs)
        const granted = yield* Deferred.await(acknowledged).pipe(
          Effect.timeoutFail({
            duration: ackTimeout,
            onTimeout: () =>
              new RequestTimeoutError({
                server,
                method: "subscriptions/listen",
                timeoutMs: Duration.toMillis(ackTimeout)
              })
          }),
          Effect.tapError(() => close)
        )
        const acknowledgedFilter = deepFreeze(granted) as Subscription.Filter
        return {
          server,
          filter: frozen,
          acknowledged: acknowledgedFilter,
          unsupported: unsupportedOf(frozen, acknowledgedFilter),
          notifications: Stream.repeatEffectOption(queue.take),
          isActive: () => active,
          pendingNotifications: queue.pending,
          pendingNotificationBytes: queue.pendingBytes,
          droppedNotifications: queue.dropped,
          close
        } satisfies Subscription.Subscription
      })

    const connection: ServerConnection = {
      name: server,
      get kind() {
        return kind
      },
      negotiated: () => live?.negotiated,
      connect: Effect.map(session, (s) => s.negotiated),
      ping: (requestOptions) =>
        Effect.asVoid(Effect.flatMap(session, (s) =>
          s.negotiated.era === "legacy"
            ? send("ping", undefined, requestOptions)
            : send("server/discover", undefined, requestOptions))),
      listTools,
      listPrompts: (requestOptions) => listAll("prompts/list", "prompts", decodePrompts, requestOptions),
      listResources: (requestOptions) => listAll("resources/list", "resources", decodeResources, requestOptions),
      listResourceTemplates: (requestOptions) =>
        listAll("resources/templates/list", "resourceTemplates", decodeTemplates, requestOptions),
      callTool,
      callToolAsTask,
      getTask: tasks.get,
      getTaskResult: tasks.result,
      waitForTask: (task, waitOptions) =>
        tasks.wait(task, { ...waitOptions, waitTimeout: waitOptions?.timeout, timeout: undefined }),
      cancelTask: tasks.cancel,
      updateTask: tasks.update,
      listTasks: (requestOptions) => tasks.list(maxPages, requestOptions),
      getPrompt: (name, args, requestOptions) =>
        Effect.flatMap(
          withInput("prompts/get", args === undefined ? { name } : { name, arguments: args }, requestOptions, {
            "mcp-name": HeaderParams.encodeValue(name)
          }),
          (raw) => decodeGetPrompt(server, "prompts/get", raw)
        ),
      readResource: (uri, requestOptions) =>
        cached(readKey(uri), (onAuthorization) => {
          let retried = false
          return withInput(
            "resources/read",
            { uri },
            requestOptions,
            { "mcp-name": HeaderParams.encodeValue(uri) },
            undefined,
            (wasRetried) => (retried = wasRetried),
            onAuthorization
          ).pipe(
            Effect.flatMap((raw) =>
              Effect.map(decodeReadResource(server, "resources/read", raw), (value) => ({
                value,
                // Only a positive ttlMs makes a read reusable, and never a result that answered
                // inputResponses or requestState.
                hints: ResultCache.ttlOf(raw) > 0 && !retried
                  ? { ttlMs: ResultCache.ttlOf(raw), scope: ResultCache.scopeOf(raw) }
                  : undefined
              }))
            )
          )
        }),
      cacheInfo: (kind, uri) =>
        Effect.map(
          Clock.currentTimeMillis,
          (now) => cache.info(kind === "read" ? readKey(uri ?? "") : listKeys[kind], now)
        ),
      resumeInputRequired,
      listen,
      notifyRootsChanged: Effect.suspend(() => {
        const s = live
        if (
          s === undefined || !s.peer.isOpen() || s.negotiated.era !== "legacy" || kind === "http" ||
          identity.legacyCapabilities?.roots === undefined
        ) return Effect.void
        return Effect.ignore(s.peer.notify("notifications/roots/list_changed"))
      }),
      setLogLevel: (level, requestOptions) =>
        Effect.flatMap(session, (s): Effect.Effect<void, ConnectError | CapabilityError> => {
          if (s.negotiated.capabilities.logging === undefined) {
            return Effect.fail(new CapabilityError({ server, capability: "logging", method: "logging/setLevel" }))
          }
          // 2026-07-28 has no logging/setLevel: the level rides on every request's _meta.
          const set = s.negotiated.era === "modern"
            ? Effect.sync(() => {
              logLevel = level
            })
            : Effect.asVoid(send("logging/setLevel", { level }, requestOptions))
          return Effect.zipRight(Deprecations.warnOnce("logging"), set)
        }),
      subscribeResource: (uri, requestOptions) =>
        Effect.flatMap(session, (s): Effect.Effect<void, ConnectError | CapabilityError> =>
          s.negotiated.era === "legacy"
            ? Effect.asVoid(gated("resources/subscribe", { uri }, requestOptions))
            : watchResource(uri)),
      unsubscribeResource: (uri, requestOptions) =>
        Effect.flatMap(session, (s): Effect.Effect<void, ConnectError | CapabilityError> => {
          if (s.negotiated.era === "legacy") {
            return Effect.asVoid(gated("resources/unsubscribe", { uri }, requestOptions))
          }
          const watch = watches.get(uri)
          watches.delete(uri)
          return watch === undefined ? Effect.void : Scope.close(watch, Exit.void)
        }),
      complete: (completeRequest, requestOptions) =>
        Effect.flatMap(
          gated("completion/complete", { ...completeRequest }, requestOptions),
          (raw) => decodeComplete(server, "completion/complete", raw)
        )
    }

    // 2026-07-28 has no resources/subscribe: a watch is a listen stream naming the URI, kept
    // in a scope of its own until unsubscribeResource. It answers only once the server's
    // acknowledgement names the URI; its updates reach host listeners through the router.
    const watches = new Map<string, Scope.CloseableScope>()
    const watchResource = (uri: string): Effect.Effect<void, ConnectError | CapabilityError> =>
      Effect.suspend(() => {
        if (watches.has(uri)) return Effect.void
        return Effect.flatMap(Scope.fork(parentScope, ExecutionStrategy.sequential), (scope) =>
          Effect.gen(function*() {
            const subscription = yield* listen({ resourceSubscriptions: [uri] })
            if (!(subscription.acknowledged.resourceSubscriptions ?? []).includes(uri)) {
              return yield* new CapabilityError({
                server,
                capability: `resources.subscribe (${uri})`,
                method: "subscriptions/listen"
              })
            }
            // Updates go to host listeners via the router; the queue is drained here. A watch that
            // ended (the server closed it, or a re-open lost the URI) is forgotten, so subscribing
            // again opens a new one instead of reporting a dead one as watched.
            watches.set(uri, scope)
            yield* Effect.forkScoped(
              Effect.ignore(Stream.runDrain(subscription.notifications)).pipe(
                Effect.ensuring(Effect.sync(() => watches.get(uri) === scope && watches.delete(uri)))
              )
            )
          }).pipe(
            Scope.extend(scope),
            Effect.onError(() => Scope.close(scope, Exit.void))
          ))
      })

    yield* connection.connect
    return connection
  })
