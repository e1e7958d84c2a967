import { assert, describe, it } from "@effect/vitest"
import { classify } from "../src/internal/failure.js"

// The classifier on the shapes low-level failures take (the real sockets, processes and TLS
// servers are in packages/node/test/ConnectionFailures.test.ts): Node's system errors, undici's,
// fetch's `TypeError("fetch failed")` with a `cause`, an `AggregateError` of attempts.

const systemError = (code: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...extra })

describe("the classifier of connection failures", () => {
  it("names every address a refused connection tried", () => {
    const attempts = new AggregateError([
      systemError("ECONNREFUSED", "connect ECONNREFUSED ::1:3000", { address: "::1", port: 3000 }),
      systemError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:3000", { address: "127.0.0.1", port: 3000 })
    ])
    Object.assign(attempts, { code: "ECONNREFUSED" })
    const fetchFailed = new TypeError("fetch failed", { cause: attempts })
    assert.deepStrictEqual(classify(fetchFailed), {
      reason: "refused",
      detail: "ECONNREFUSED [::1]:3000, 127.0.0.1:3000"
    })
  })

  it("reads the host of a DNS failure, and each DNS code as dns", () => {
    for (const code of ["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME"]) {
      const error = systemError(code, `getaddrinfo ${code} example.invalid`, { hostname: "example.invalid" })
      assert.deepStrictEqual(classify({ cause: error }), { reason: "dns", detail: `${code} example.invalid` })
    }
  })

  it("gives the certificate problem of a TLS failure, without OpenSSL's own text", () => {
    assert.deepStrictEqual(classify(systemError("CERT_HAS_EXPIRED", "certificate has expired")), {
      reason: "tls",
      detail: "CERT_HAS_EXPIRED: certificate has expired"
    })
    assert.deepStrictEqual(
      classify(systemError("ERR_SSL_WRONG_VERSION_NUMBER", "C0A7:error:0A00010B:SSL routines:ssl3_get_record")),
      { reason: "tls", detail: "ERR_SSL_WRONG_VERSION_NUMBER" }
    )
    for (
      const code of [
        "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
        "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
        "SELF_SIGNED_CERT_IN_CHAIN",
        "DEPTH_ZERO_SELF_SIGNED_CERT",
        "ERR_TLS_CERT_ALTNAME_INVALID"
      ]
    ) assert.strictEqual(classify(systemError(code, "x")).reason, "tls", code)
  })

  it("tells timeouts, resets and proxies apart (a proxy's message names it, as the proxy-aware client fails)", () => {
    const undici = (code: string, message: string) => Object.assign(new Error(message), { code })
    assert.strictEqual(classify(undici("UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error")).reason, "timeout")
    assert.strictEqual(classify(systemError("ETIMEDOUT", "connect ETIMEDOUT")).reason, "timeout")
    for (const code of ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]) {
      assert.strictEqual(classify(undici(code, "other side closed")).reason, "reset", code)
    }
    const proxy = undici("EPROXY", "proxy http://127.0.0.1:8080 answered 407 Proxy Authentication Required")
    assert.deepStrictEqual(classify(new TypeError("fetch failed", { cause: proxy })), {
      reason: "proxy",
      detail: "proxy http://127.0.0.1:8080 answered 407 Proxy Authentication Required"
    })
  })

  it("without a known code: no reason, the innermost message (escaped), or the code and message", () => {
    assert.deepStrictEqual(classify(new TypeError("Failed to fetch")), { detail: "Failed to fetch" })
    assert.deepStrictEqual(classify(new Error("outer", { cause: new Error("inner\u001b[2J\nsecond line") })), {
      detail: "inner\\u001b[2J"
    })
    assert.deepStrictEqual(classify(systemError("EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.1:80")), {
      detail: "connect EHOSTUNREACH 10.0.0.1:80"
    })
    assert.deepStrictEqual(classify(undefined), { detail: "" })
  })

  it("survives a cycle in the chain", () => {
    const a: { cause?: unknown; code?: string } = {}
    a.cause = { cause: a }
    assert.deepStrictEqual(classify(a), { detail: "" })
  })
})
