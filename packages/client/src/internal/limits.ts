/**
 * The bounds the client puts on what a server controls (DESIGN §10, `docs/untrusted.md`), with
 * their defaults, in one place. Each is enforced by the layer that reads those bytes or runs
 * that loop (named on each line); an option that overrides one says so where it is read.
 * Two families live elsewhere because they are public or loaded apart: the notification queue
 * of a subscription (`Subscription.MAX_PENDING_NOTIFICATIONS` / `…_BYTES`), and JSON Schema
 * evaluation (`jsonSchema/limits.ts`, which the validation worker loads without the client).
 *
 * @internal
 */

// --- Wire and transports ---------------------------------------------------------------------

/** A stdio message (one line), unless `Stdio.Options.maxMessageBytes` says otherwise (`Stdio.ts`). */
export const MAX_STDIO_MESSAGE_BYTES = 256 * 1024 * 1024
/** A line of a server's stderr, as logged (`Stdio.ts`). */
export const MAX_STDERR_LINE = 2_000
/** An HTTP body after decompression, unless `maxDecompressedBodyBytes` says otherwise (`http/http.ts`). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024
/** The body of an HTTP error answer, read for its JSON-RPC error (`StreamableHttp.ts`). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024
/** An SSE event id; a longer one is never echoed in `Last-Event-ID` (`http/http.ts`, `wire/sse.ts`). */
export const MAX_EVENT_ID_LENGTH = 256
/** The lowest reconnect delay a server's `retry:` can ask for, unless `sseRetryFloor` says otherwise. */
export const SSE_RETRY_FLOOR = "100 millis"
/** Redirects followed by one request (`http/http.ts`). */
export const MAX_REDIRECTS = 5
/** Failed attempts in a row at the optional GET stream before it is given up (`StreamableHttp.ts`). */
export const MAX_GET_FAILURES = 10
/** Any response body of the OAuth peers: metadata, registration, tokens (`auth/oauthHttp.ts`). */
export const MAX_OAUTH_BODY_BYTES = 256 * 1024

// --- JSON-RPC --------------------------------------------------------------------------------

/** Server requests answered at once, unless `maxConcurrentServerRequests` says otherwise (`rpc/rpcPeer.ts`). */
export const MAX_CONCURRENT_SERVER_REQUESTS = 16

// --- Connection ------------------------------------------------------------------------------

/** `input_required` rounds of one request (`connection/requests.ts`). */
export const MAX_INPUT_ROUNDS = 10
/** Pages one list call follows, unless `maxPages` says otherwise (`connection/lists.ts`). */
export const MAX_PAGES = 100
/** Entries of a connection's result cache; the oldest goes first (`connection/resultCache.ts`). */
export const MAX_CACHE_ENTRIES = 512
/** A server log message, escaped, as it reaches listeners and the log (`connection/logMessage.ts`). */
export const MAX_LOG_MESSAGE = 8_192
/** A listen stream dropped sooner than this after its acknowledgement is a crash loop (`connection/subscriptions.ts`). */
export const RESTART_MIN_INTERVAL_MS = 1_000

// --- Tasks -----------------------------------------------------------------------------------

/** A task is polled no faster than this, whatever the server asks (`tasks/wait.ts`)… */
export const MIN_POLL_MS = 100
/** …and no slower. */
export const MAX_POLL_MS = 10_000
