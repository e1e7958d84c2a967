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
/** The last lines of a server's stderr a `ConnectionError` carries (`stdio/stderrTail.ts`)… */
export const STDERR_TAIL_LINES = 20
/** …each cut to this many characters. */
export const STDERR_TAIL_LINE = 500
/** Non-JSON lines on a server's stdout are logged as one warning per interval (`stdio/stdoutNoise.ts`). */
export const STDOUT_NOISE_INTERVAL = "5 seconds"
/**
 * A JSON HTTP body after decompression, and one SSE event (never a whole stream), unless
 * `maxDecompressedBodyBytes` says otherwise (`http/http.ts`, `wire/sse.ts`).
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024
/** The body of an HTTP error answer, read for its JSON-RPC error (`StreamableHttp.ts`). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024
/**
 * Unusable SSE events in a row (skipped as over the event cap, or not JSON) after which the stream
 * is closed as garbage; a usable event resets the count (`http/http.ts`).
 */
export const MAX_UNUSABLE_SSE_EVENTS = 32
/**
 * Bytes of skipped SSE events since the last usable one (or the stream's start) after which the
 * stream is closed as garbage, or 4 × the event cap when that is more (`http/http.ts`).
 */
export const MAX_SKIPPED_SSE_BYTES = 64 * 1024 * 1024
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

/** Server requests handled, and answers in the transport, at once, unless `maxConcurrentServerRequests` says otherwise (`rpc/serverRequests.ts`). */
export const MAX_CONCURRENT_SERVER_REQUESTS = 16
/** Refusals waiting for an answer slot, unless `maxQueuedRefusals` says otherwise; past it the transport stops reading (`rpc/serverRequests.ts`)… */
export const MAX_QUEUED_REFUSALS = 1_024
/** …and the characters of their string ids, which the server chooses. */
export const MAX_QUEUED_REFUSAL_ID_CHARS = 1024 * 1024
/** Refused server requests are logged as one summary line per interval (`rpc/serverRequests.ts`). */
export const REFUSAL_SUMMARY_INTERVAL = "5 seconds"

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
/** A lapsed `server/discover` is fetched again at most this often (`connection/session.ts`). */
export const MIN_REDISCOVERY_INTERVAL_MS = 60_000

// --- Tasks -----------------------------------------------------------------------------------

/** A task is polled no faster than this, whatever the server asks (`tasks/wait.ts`)… */
export const MIN_POLL_MS = 100
/** …and no slower. */
export const MAX_POLL_MS = 10_000
