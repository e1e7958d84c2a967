/**
 * The timeouts, intervals and counts the client uses when nothing says otherwise, in one place.
 * The bounds on what a server controls live beside it in `limits.ts`; how the retries, re-issues
 * and reconnects built from these values behave is `policies.ts`. A value a user can set names
 * the option, whose JSDoc states the same default.
 *
 * @internal
 */

// --- Requests --------------------------------------------------------------------------------

/** A request's timeout, unless `ServerConfig.readTimeout` or the call's `timeout` says otherwise (`connection/core.ts`). */
export const REQUEST_TIMEOUT_MS = 30_000
/** The `server/discover` probe, unless `discoverTimeout` says otherwise (`connection/session.ts`). */
export const DISCOVER_TIMEOUT_MS = 5_000
/** The first pause when a server sheds load with an `input_required` carrying only state; doubles per round (`request/inputRounds.ts`)… */
export const INPUT_ROUND_PAUSE_MS = 50
/** …up to this. */
export const INPUT_ROUND_MAX_PAUSE_MS = 2_000
/** How long the `tasks/cancel` of an abandoned task-augmented call may take (`tasks/tasks.ts`). */
export const TASK_CANCEL_TIMEOUT = "10 seconds"
/** A task's poll interval when the server gives none, before `limits.ts` bounds it (`tasks/wait.ts`). */
export const TASK_POLL_MS = 1_000

// --- Connecting ------------------------------------------------------------------------------

/** With `lazy`, servers one request to every server connects at a time, unless `maxConcurrentConnects` says otherwise (`client/mcpClient.ts`). */
export const MAX_CONCURRENT_CONNECTS = 16

/** Between a tool's `toolPrefix` and its name (`github__create_issue`), unless `toolNameSeparator` says otherwise (`client/toolNames.ts`). */
export const TOOL_NAME_SEPARATOR = "__"

// --- Reconnects ------------------------------------------------------------------------------

/** A `ReconnectPolicy`'s first delay, unless `initialDelay` says otherwise (`ConnectionState.ts`)… */
export const RECONNECT_INITIAL_DELAY = "100 millis"
/** …its growth per attempt, unless `factor` says otherwise… */
export const RECONNECT_FACTOR = 2
/** …and its largest delay, unless `maxDelay` says otherwise. */
export const RECONNECT_MAX_DELAY = "30 seconds"
/** A dropped listen stream is re-opened after this, doubling per failure (`connection/subscriptions.ts`)… */
export const LISTEN_REOPEN_DELAY = "200 millis"
/** …and at most this long apart. */
export const LISTEN_REOPEN_MAX_DELAY = "30 seconds"

// --- Stdio -----------------------------------------------------------------------------------

/** The wait for an exit after closing stdin, and again after SIGTERM, unless `shutdownTimeout` says otherwise (`Stdio.ts`). */
export const STDIO_SHUTDOWN_TIMEOUT = "2 seconds"

// --- HTTP ------------------------------------------------------------------------------------

/** Attempts after the first for transport failures and 5xx, unless `retries` says otherwise (`http/http.ts`)… */
export const HTTP_RETRIES = 3
/** …the first of them after this, doubling per attempt, unless `retryBase` says otherwise. */
export const HTTP_RETRY_BASE = "200 millis"
/** The wait before resuming a broken response stream or re-opening the GET stream, when the server sent no `retry:` (`http/streamableGet.ts`)… */
export const SSE_RECONNECT_DELAY = "1 second"
/** …and the largest delay between failed GET stream attempts. */
export const GET_RECONNECT_MAX_DELAY = "30 seconds"
/** An old HTTP+SSE server's `endpoint` event, unless `readTimeout` says otherwise (`http/legacySse.ts`). */
export const LEGACY_ENDPOINT_TIMEOUT = "30 seconds"
/** How long connecting waits for the first GET stream's answer before going on without it (`http/streamable.ts`). */
export const FIRST_GET_WAIT_MS = 2_000
/**
 * In a browser, the long-lived streams (GET and listen streams) the connections of a page may
 * hold to one origin: 2 of HTTP/1.1's 6 connections per origin stay for calls
 * (`http/streamSlots.ts`). Elsewhere there is no limit unless `maxStreamsPerOrigin` sets one.
 */
export const BROWSER_STREAMS_PER_ORIGIN = 4
/** The session's `DELETE` at close (`http/streamable.ts`). */
export const SESSION_DELETE_TIMEOUT = "2 seconds"

// --- OAuth -----------------------------------------------------------------------------------

/** One request to an authorization server: metadata, registration, tokens (`auth/oauthHttp.ts`). */
export const OAUTH_REQUEST_TIMEOUT = "30 seconds"
/** Tries after the first for a transport failure of an idempotent OAuth request (`auth/oauthHttp.ts`)… */
export const OAUTH_RETRIES = 2
/** …the first after this, doubling. */
export const OAUTH_RETRY_BASE = "100 millis"
/** A token is refreshed this long before it expires, unless `refreshSkew` says otherwise (`auth/oauth.ts`). */
export const TOKEN_REFRESH_SKEW_MS = 60_000
/** A discovery kept in the OAuth storage is used by a later client (a refresh after a restart) this long (`auth/discovery.ts`). */
export const DISCOVERY_MAX_AGE_MS = 3_600_000
/** Re-authorizations for one set of scopes after `403 insufficient_scope`, unless `maxScopeAttempts` says otherwise (`auth/oauth.ts`). */
export const MAX_SCOPE_ATTEMPTS = 2
