/**
 * The faults the soak's servers inject, and how one is chosen: a pure function of the run's
 * seed, the call's token and how often this server process has seen the token, so the same seed
 * injects the same faults into the same calls whatever the scheduling and however often a stdio
 * server was restarted.
 *
 * @since 0.1.0
 */

/**
 * What a server does with one `tools/call`:
 * - `none`: answers it;
 * - `drop`: starts the answer and drops the connection (HTTP) mid-response;
 * - `crash`: writes half the answer line and exits (stdio);
 * - `burst5xx`: answers 503 to this and the next few requests (HTTP);
 * - `expire`: forgets the session and answers 404 (HTTP, 2025-11-25);
 * - `stall`: never answers (the client's deadline must fire);
 * - `garbage`: sends non-JSON lines / events before the answer;
 * - `duplicate`: sends the answer twice;
 * - `unsolicited`: sends responses to ids the client never used before the answer;
 * - `rpcError`: answers with a JSON-RPC error.
 *
 * @since 0.1.0
 */
export type Fault =
  | "none"
  | "drop"
  | "crash"
  | "burst5xx"
  | "expire"
  | "stall"
  | "garbage"
  | "duplicate"
  | "unsolicited"
  | "rpcError"

/** @since 0.1.0 */
export type Era = "2025-11-25" | "2026-07-28"

/** @since 0.1.0 */
export type TransportKind = "stdio" | "http"

/** Per-mille weights of each fault; what is left is `none`. */
const weights: Record<TransportKind, Partial<Record<Fault, number>>> = {
  stdio: { crash: 3, stall: 2, garbage: 10, duplicate: 10, unsolicited: 10, rpcError: 5 },
  http: { drop: 8, burst5xx: 4, expire: 3, stall: 2, garbage: 10, duplicate: 10, unsolicited: 10, rpcError: 5 }
}

/** 32-bit FNV-1a of a string. */
export const hash = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/**
 * mulberry32: a small seeded PRNG; each call of the returned function gives a number in [0, 1).
 *
 * @since 0.1.0
 */
export const prng = (seed: number): () => number => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The random stream of one receipt of one token.
 *
 * @since 0.1.0
 */
export const streamFor = (seed: number, token: string, receipt: number): () => number =>
  prng(hash(`${seed}:${token}:${receipt}`))

/**
 * The fault for one receipt of a `tools/call`, drawn from `random`. `expire` exists only where
 * there are sessions (HTTP, 2025-11-25). `scale` multiplies every fault's weight (0: none).
 *
 * @since 0.1.0
 */
export const choose = (transport: TransportKind, era: Era, random: () => number, scale = 1): Fault => {
  let draw = Math.floor(random() * 1000)
  for (const [fault, weight] of Object.entries(weights[transport]) as Array<[Fault, number]>) {
    if (fault === "expire" && era !== "2025-11-25") continue
    if (draw < weight * scale) return fault
    draw -= weight * scale
  }
  return "none"
}

/**
 * Whether a later receipt of the same token is allowed after this one: only after the server
 * itself broke a 2026-07-28 HTTP response, which that revision treats as the request's
 * cancellation and for which it requires the client to re-issue the request with a new id.
 *
 * @since 0.1.0
 */
export const excusesReissue = (transport: TransportKind, era: Era, fault: Fault): boolean =>
  transport === "http" && era === "2026-07-28" && fault === "drop"

/**
 * Lines a `garbage` fault sends: not JSON, truncated JSON, JSON that is no JSON-RPC message.
 *
 * @since 0.1.0
 */
export const garbage = (random: () => number): ReadonlyArray<string> => {
  const samples = [
    "\u0000\u0001binary\u00ff",
    "{\"jsonrpc\":\"2.0\",\"id\":",
    "[1,2,3]",
    "not json at all",
    "{}",
    "null"
  ]
  const count = 1 + Math.floor(random() * 3)
  return Array.from({ length: count }, () => samples[Math.floor(random() * samples.length)]!)
}

/**
 * Responses to ids the client never sends (its ids are small integers).
 *
 * @since 0.1.0
 */
export const unsolicited = (random: () => number, token: string): ReadonlyArray<string> => {
  const n = Math.floor(random() * 1_000_000)
  return [
    JSON.stringify({
      jsonrpc: "2.0",
      id: `soak-unsolicited-${n}`,
      result: { content: [{ type: "text", text: `${token}-stray` }] }
    }),
    JSON.stringify({ jsonrpc: "2.0", id: 2 ** 40 + n, result: { content: [{ type: "text", text: `stray-${n}` }] } }),
    JSON.stringify({ jsonrpc: "2.0", id: -1 - n, error: { code: -32603, message: "unsolicited" } })
  ]
}
