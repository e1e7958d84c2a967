import { assert, describe, it } from "@effect/vitest"
import * as policy from "../src/internal/auth/policy.js"

const publicServer = new URL("https://mcp.example.com/mcp")
const loopbackServer = new URL("http://localhost:3000/mcp")

describe("OAuth policy", () => {
  describe("WWW-Authenticate", () => {
    it("reads only the Bearer challenge's parameters", () => {
      assert.deepStrictEqual(
        policy.parseBearerChallenge(
          `Basic realm="x Bearer y", scope="basic-scope", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error_description="needs \\"b\\""`
        ),
        {
          resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
          scope: "a b",
          error: "insufficient_scope",
          errorDescription: `needs "b"`
        }
      )
    })

    it("finds nothing in a header without a Bearer challenge", () => {
      const parsed = policy.parseBearerChallenge(`Basic realm="Bearer", scope="admin"`)
      assert.strictEqual(parsed.scope, undefined)
      assert.strictEqual(parsed.resourceMetadata, undefined)
    })

    it("stops at the next scheme and accepts token values", () => {
      const parsed = policy.parseBearerChallenge(`Bearer scope=read, error=invalid_token, DPoP scope="admin"`)
      assert.strictEqual(parsed.scope, "read")
      assert.strictEqual(parsed.error, "invalid_token")
    })

    it("reads the DPoP challenge's parameters apart from the Bearer one's", () => {
      const header = `Bearer scope="read", DPoP error="use_dpop_nonce", algs="ES256", resource_metadata="https://m/x"`
      assert.deepStrictEqual(policy.parseChallenge(header, "dpop"), {
        resourceMetadata: "https://m/x",
        scope: undefined,
        error: "use_dpop_nonce",
        errorDescription: undefined
      })
      assert.strictEqual(policy.parseBearerChallenge(header).error, undefined)
    })

    it("takes DPoP nonces of printable characters without quotes or backslashes only", () => {
      assert.isTrue(policy.isDpopNonce("eyJ7S_9D-nonce.1"))
      assert.isFalse(policy.isDpopNonce(""))
      assert.isFalse(policy.isDpopNonce(`a"b`))
      assert.isFalse(policy.isDpopNonce("a b"))
      assert.isFalse(policy.isDpopNonce("x".repeat(1025)))
    })
  })

  describe("peer-advertised URLs (SSRF)", () => {
    it("refuses plain HTTP for a public server", () => {
      assert.isDefined(policy.checkPeerUrl("http://auth.example.com", publicServer))
    })

    it("refuses literal loopback, private and link-local hosts for a public server", () => {
      for (
        const url of [
          "https://127.0.0.1/.well-known/x",
          "https://localhost/x",
          "https://10.0.0.8/x",
          "https://172.20.1.1/x",
          "https://192.168.1.1/x",
          "https://169.254.169.254/latest/meta-data",
          "https://[::1]/x",
          "https://[fd00::1]/x",
          "https://[fe80::1]/x",
          "https://0.0.0.0/x",
          "https://metadata.internal/x"
        ]
      ) {
        assert.isDefined(policy.checkPeerUrl(url, publicServer), url)
      }
    })

    it("accepts HTTPS to a public host", () => {
      assert.isUndefined(policy.checkPeerUrl("https://auth.example.com/tenant", publicServer))
    })

    it("accepts plain-HTTP loopback only when the server is itself on loopback", () => {
      assert.isUndefined(policy.checkPeerUrl("http://127.0.0.1:9000", loopbackServer))
      assert.isUndefined(policy.checkPeerUrl("http://localhost:9000", loopbackServer))
      assert.isDefined(policy.checkPeerUrl("http://192.168.1.1:9000", loopbackServer))
      assert.isDefined(policy.checkPeerUrl("http://auth.example.com", loopbackServer))
    })

    it("refuses other schemes and URLs with credentials", () => {
      assert.isDefined(policy.checkPeerUrl("file:///etc/passwd", loopbackServer))
      assert.isDefined(policy.checkPeerUrl("https://user:pw@auth.example.com", publicServer))
      assert.isDefined(policy.checkPeerUrl("not a url", publicServer))
    })
  })

  describe("metadata locations", () => {
    it("tries the path-inserted resource metadata, then the root", () => {
      assert.deepStrictEqual(policy.resourceMetadataUrls(new URL("https://mcp.example.com/api/mcp/")), [
        "https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp",
        "https://mcp.example.com/.well-known/oauth-protected-resource"
      ])
      assert.deepStrictEqual(policy.resourceMetadataUrls(new URL("https://mcp.example.com")), [
        "https://mcp.example.com/.well-known/oauth-protected-resource"
      ])
    })

    it("orders authorization server metadata as the spec says", () => {
      assert.deepStrictEqual(policy.authorizationServerMetadataUrls(new URL("https://auth.example.com/tenant1")), [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration"
      ])
      assert.deepStrictEqual(policy.authorizationServerMetadataUrls(new URL("https://auth.example.com")), [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration"
      ])
    })
  })

  describe("resource identity", () => {
    it("accepts the server itself or its origin", () => {
      assert.isTrue(policy.resourceMatches("https://mcp.example.com/mcp", publicServer))
      assert.isTrue(policy.resourceMatches("https://mcp.example.com", publicServer))
    })

    it("refuses another origin, a sibling path or a fragment", () => {
      assert.isFalse(policy.resourceMatches("https://evil.example.com/mcp", publicServer))
      assert.isFalse(policy.resourceMatches("http://mcp.example.com/mcp", publicServer))
      assert.isFalse(policy.resourceMatches("https://mcp.example.com/other", publicServer))
      assert.isFalse(policy.resourceMatches("https://mcp.example.com/mc", publicServer))
      assert.isFalse(policy.resourceMatches("https://mcp.example.com/mcp#x", publicServer))
      assert.isFalse(policy.resourceMatches("/mcp", publicServer))
    })
  })

  describe("scopes", () => {
    const base = {
      challengeScope: undefined,
      resourceScopes: undefined,
      authorizationServerScopes: undefined,
      previous: [],
      offlineAccess: true
    }

    it("takes the challenge's scope first", () => {
      assert.deepStrictEqual(
        policy.selectScopes({ ...base, challengeScope: "mcp:basic", resourceScopes: ["mcp:read", "mcp:write"] }),
        ["mcp:basic"]
      )
    })

    it("falls back to the resource's scopes_supported, then to none", () => {
      assert.deepStrictEqual(policy.selectScopes({ ...base, resourceScopes: ["mcp:read", "mcp:write"] }), [
        "mcp:read",
        "mcp:write"
      ])
      assert.deepStrictEqual(policy.selectScopes(base), [])
    })

    it("asks for the host's configured scopes before the resource's, after the challenge's", () => {
      const configured = { ...base, configuredScopes: ["files:read"], resourceScopes: ["mcp:read"] }
      assert.deepStrictEqual(policy.selectScopes(configured), ["files:read"])
      assert.deepStrictEqual(policy.selectScopes({ ...configured, challengeScope: "mcp:basic" }), ["mcp:basic"])
    })

    it("asks for the union of earlier and challenged scopes on step-up", () => {
      assert.deepStrictEqual(
        policy.selectScopes({ ...base, challengeScope: "mcp:write mcp:basic", previous: ["mcp:basic", "mcp:read"] }),
        ["mcp:basic", "mcp:read", "mcp:write"]
      )
    })

    it("adds offline_access only when the authorization server lists it", () => {
      assert.deepStrictEqual(
        policy.selectScopes({ ...base, resourceScopes: ["mcp:basic"], authorizationServerScopes: ["offline_access"] }),
        ["mcp:basic", "offline_access"]
      )
      assert.deepStrictEqual(
        policy.selectScopes({ ...base, resourceScopes: ["mcp:basic"], authorizationServerScopes: ["mcp:basic"] }),
        ["mcp:basic"]
      )
      assert.deepStrictEqual(
        policy.selectScopes({
          ...base,
          resourceScopes: ["mcp:basic"],
          authorizationServerScopes: ["offline_access"],
          offlineAccess: false
        }),
        ["mcp:basic"]
      )
    })
  })

  describe("redirect URIs and metadata documents", () => {
    it("accepts loopback HTTP, HTTPS and private-use schemes", () => {
      assert.isUndefined(policy.checkRedirectUri("http://127.0.0.1:8976/callback"))
      assert.isUndefined(policy.checkRedirectUri("http://localhost/callback"))
      assert.isUndefined(policy.checkRedirectUri("https://app.example.com/callback"))
      assert.isUndefined(policy.checkRedirectUri("com.example.app:/callback"))
    })

    it("refuses remote HTTP, fragments and other schemes", () => {
      assert.isDefined(policy.checkRedirectUri("http://app.example.com/callback"))
      assert.isDefined(policy.checkRedirectUri("https://app.example.com/callback#x"))
      assert.isDefined(policy.checkRedirectUri("javascript:alert(1)"))
      assert.isDefined(policy.checkRedirectUri("myapp:/callback"))
    })

    it("checks Client ID Metadata Document URLs", () => {
      assert.isUndefined(policy.checkClientIdMetadataUrl("https://app.example.com/client.json"))
      assert.isDefined(policy.checkClientIdMetadataUrl("http://app.example.com/client.json"))
      assert.isDefined(policy.checkClientIdMetadataUrl("https://app.example.com/"))
      assert.isDefined(policy.checkClientIdMetadataUrl("https://app.example.com/a/../client.json"))
      assert.isDefined(policy.checkClientIdMetadataUrl("https://app.example.com/client.json#frag"))
    })
  })

  describe("authorization responses", () => {
    it("refuses a callback repeating any parameter", () => {
      assert.strictEqual(policy.repeatedParameter(new URL("http://127.0.0.1/cb?code=a&state=s&code=b")), "code")
      assert.strictEqual(policy.repeatedParameter(new URL("http://127.0.0.1/cb?code=a&state=s&x=1&x=2")), "x")
      assert.isUndefined(policy.repeatedParameter(new URL("http://127.0.0.1/cb?code=a&state=s&iss=i")))
    })

    it("validates iss per RFC 9207 as the MCP table says", () => {
      const issuer = "https://auth.example.com"
      assert.isDefined(policy.checkIss({ recordedIssuer: issuer, issParameterSupported: true, iss: undefined }))
      assert.isUndefined(policy.checkIss({ recordedIssuer: issuer, issParameterSupported: true, iss: issuer }))
      assert.isUndefined(policy.checkIss({ recordedIssuer: issuer, issParameterSupported: false, iss: undefined }))
      assert.isDefined(
        policy.checkIss({ recordedIssuer: issuer, issParameterSupported: false, iss: "https://evil.example.com" })
      )
      // Simple string comparison: a normalised variant is a mismatch.
      assert.isDefined(policy.checkIss({ recordedIssuer: issuer, issParameterSupported: true, iss: `${issuer}/` }))
    })

    it("builds the authorization URL keeping the endpoint's query, one parameter per name", () => {
      const url = policy.authorizationUrl("https://auth.example.com/authorize?tenant=t1&state=theirs", [
        ["response_type", "code"],
        ["state", "ours"]
      ])
      assert.strictEqual(url.searchParams.get("tenant"), "t1")
      assert.deepStrictEqual(url.searchParams.getAll("state"), ["ours"])
    })
  })

  describe("redirect URI of a request", () => {
    it("keeps the registered one, except a loopback redirect whose port changed", () => {
      const registered = "http://127.0.0.1:50123/callback"
      assert.strictEqual(policy.redirectUriFor(undefined, "http://127.0.0.1:1/callback"), "http://127.0.0.1:1/callback")
      assert.strictEqual(
        policy.redirectUriFor(registered, "http://127.0.0.1:50999/callback"),
        "http://127.0.0.1:50999/callback"
      )
      // Another path, host or scheme is another redirect URI: the registered one stands.
      assert.strictEqual(policy.redirectUriFor(registered, "http://127.0.0.1:50999/other"), registered)
      assert.strictEqual(policy.redirectUriFor(registered, "http://[::1]:50999/callback"), registered)
      assert.strictEqual(
        policy.redirectUriFor("https://app.example.com/cb", "https://app.example.com:8443/cb"),
        "https://app.example.com/cb"
      )
    })
  })
})
