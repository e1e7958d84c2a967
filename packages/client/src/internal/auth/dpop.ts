/**
 * DPoP (RFC 9449) for `OAuth.make`: the key a client proves possession of, the proofs sent to the
 * MCP server with each request, and what a bound token says about its key. Token requests get
 * their proofs (and keep the authorization server's nonces) from oauth4webapi's `DPoP` handle on
 * the same key; a proof for a resource request has to be made without sending the request, which
 * that handle does not offer, so it is signed here, the same way.
 *
 * @internal
 */
import * as oauth from "oauth4webapi"

/** A client's DPoP key. @internal */
export interface ProofKey {
  /** The JWS algorithm of the proofs (`ES256`, …). */
  readonly alg: string
  readonly keyPair: oauth.CryptoKeyPair
  /** The JWK SHA-256 thumbprint (RFC 7638) of the public key: what a bound token's `cnf.jkt` names. */
  readonly jkt: string
  /** oauth4webapi's handle on the same key, for token requests. */
  readonly handle: oauth.DPoPHandle
  /** The encoded protected header (`typ`, `alg`, `jwk`), the same in every proof. */
  readonly header: string
}

const encoder = new TextEncoder()

const base64url = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const fromBase64url = (text: string): string => {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/")
  const binary = atob(base64 + "=".repeat((4 - base64.length % 4) % 4))
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
}

const hashOfCurve = (curve: unknown): string | undefined =>
  curve === "P-256" ? "SHA-256" : curve === "P-384" ? "SHA-384" : curve === "P-521" ? "SHA-512" : undefined

/** The JWS algorithm of a signing key, as oauth4webapi names it; undefined for keys DPoP cannot use. */
const jwsAlgorithm = (key: oauth.CryptoKey): string | undefined => {
  const algorithm = key.algorithm as {
    readonly name: string
    readonly namedCurve?: string
    readonly hash?: { readonly name: string }
  }
  const bits = algorithm.hash?.name.replace("SHA-", "")
  switch (algorithm.name) {
    case "ECDSA": {
      const hash = hashOfCurve(algorithm.namedCurve)
      return hash === undefined ? undefined : `ES${hash.replace("SHA-", "")}`
    }
    case "RSA-PSS":
      return bits === undefined ? undefined : `PS${bits}`
    case "RSASSA-PKCS1-v1_5":
      return bits === undefined ? undefined : `RS${bits}`
    case "Ed25519":
      return "Ed25519"
    default:
      return undefined
  }
}

const signParams = (alg: string, key: oauth.CryptoKey) => {
  const algorithm = key.algorithm as { readonly name: string; readonly namedCurve?: string }
  if (alg.startsWith("ES")) return { name: "ECDSA", hash: hashOfCurve(algorithm.namedCurve)! }
  if (alg.startsWith("PS")) return { name: "RSA-PSS", saltLength: Number(alg.slice(2)) / 8 }
  return { name: algorithm.name }
}

/** The members of a public JWK that identify the key (RFC 7638 §3.2), nothing else. */
const publicJwk = (jwk: Record<string, unknown>): Record<string, unknown> => {
  switch (jwk.kty) {
    case "EC":
      return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }
    case "RSA":
      return { kty: jwk.kty, n: jwk.n, e: jwk.e }
    default:
      return { kty: jwk.kty, crv: jwk.crv, x: jwk.x }
  }
}

/**
 * The client's key: the host's, or a new one for `algorithm` (default `ES256`) whose private half
 * cannot be exported. Throws for keys no DPoP proof can be signed with.
 *
 * @internal
 */
export const makeKey = async (options: {
  readonly keyPair?: oauth.CryptoKeyPair | undefined
  readonly algorithm?: string | undefined
}): Promise<ProofKey> => {
  const keyPair = options.keyPair ?? await oauth.generateKeyPair(options.algorithm ?? "ES256")
  const alg = jwsAlgorithm(keyPair.privateKey)
  if (alg === undefined || jwsAlgorithm(keyPair.publicKey) !== alg) {
    throw new Error(`a DPoP key must be an ECDSA (P-256, P-384, P-521), RSA or Ed25519 key pair`)
  }
  const jwk = publicJwk(await crypto.subtle.exportKey("jwk", keyPair.publicKey) as Record<string, unknown>)
  const handle = oauth.DPoP({}, keyPair)
  return {
    alg,
    keyPair,
    jkt: await handle.calculateThumbprint(),
    handle,
    header: base64url(encoder.encode(JSON.stringify({ typ: "dpop+jwt", alg, jwk })))
  }
}

/**
 * Whether an authorization server's `dpop_signing_alg_values_supported` takes proofs of `alg`
 * (`EdDSA` is the older name of `Ed25519`).
 *
 * @internal
 */
export const accepts = (supported: ReadonlyArray<string>, alg: string): boolean =>
  supported.includes(alg) || (alg === "Ed25519" && supported.includes("EdDSA"))

/** The `htu` of a request: its URL without query and fragment (RFC 9449 §4.2). @internal */
export const htu = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/**
 * A proof for one request to a resource (RFC 9449 §4.2, §7): a new `jti`, the request's method
 * and URL, the hash of the access token it accompanies, and the server's nonce if it gave one.
 *
 * @internal
 */
export const proof = async (key: ProofKey, claims: {
  readonly htm: string
  readonly url: string
  /** Seconds since the epoch. */
  readonly iat: number
  readonly accessToken: string
  readonly nonce?: string | undefined
}): Promise<string> => {
  const ath = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(claims.accessToken))))
  const payload = {
    jti: base64url(crypto.getRandomValues(new Uint8Array(18))),
    htm: claims.htm.toUpperCase(),
    htu: htu(claims.url),
    iat: claims.iat,
    ath,
    ...(claims.nonce === undefined ? {} : { nonce: claims.nonce })
  }
  const input = `${key.header}.${base64url(encoder.encode(JSON.stringify(payload)))}`
  const privateKey = key.keyPair.privateKey
  const signature = await crypto.subtle.sign(signParams(key.alg, privateKey), privateKey, encoder.encode(input))
  return `${input}.${base64url(new Uint8Array(signature))}`
}

/**
 * The `cnf.jkt` of an access token that is a readable JWT, if any. The token stays opaque
 * otherwise: this only lets a token that names another key be refused.
 *
 * @internal
 */
export const boundThumbprint = (accessToken: string): string | undefined => {
  const parts = accessToken.split(".")
  if (parts.length !== 3) return undefined
  try {
    const claims: unknown = JSON.parse(fromBase64url(parts[1]!))
    if (typeof claims !== "object" || claims === null) return undefined
    const cnf = (claims as { readonly cnf?: unknown }).cnf
    if (typeof cnf !== "object" || cnf === null) return undefined
    const jkt = (cnf as { readonly jkt?: unknown }).jkt
    return typeof jkt === "string" ? jkt : undefined
  } catch {
    return undefined
  }
}
