/**
 * The content of the OAuth storage file: a plain JSON object of the entries, or, with a key
 * the host supplies, the entries sealed with AES-256-GCM in a versioned envelope:
 * `{ format, version: 1, cipher: "aes-256-gcm", iv, tag, data }` (base64), the header
 * authenticated with the entries.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Crypto from "node:crypto"

const FORMAT = "mcp-effect-oauth-storage"
const VERSION = 1
const CIPHER = "aes-256-gcm"

/** The header, authenticated with the entries: a file cannot be passed off as another version. */
const aad = Buffer.from(`${FORMAT}/${VERSION}/${CIPHER}`)

/** A 32-byte key from bytes or base64, or why it is refused. @internal */
export const keyOf = (key: Uint8Array | string): Buffer | string => {
  const bytes = typeof key === "string" ? Buffer.from(key, "base64") : Buffer.from(key)
  return bytes.length === 32 ? bytes : `the encryption key must be 32 bytes (AES-256), not ${bytes.length}`
}

/** @internal */
export const encode = (entries: Record<string, unknown>, key: Buffer | undefined): string => {
  const json = JSON.stringify(entries, null, key === undefined ? 2 : undefined)
  if (key === undefined) return json
  const iv = Crypto.randomBytes(12)
  const cipher = Crypto.createCipheriv(CIPHER, key, iv)
  cipher.setAAD(aad)
  const data = Buffer.concat([cipher.update(json, "utf8"), cipher.final()])
  return JSON.stringify({
    format: FORMAT,
    version: VERSION,
    cipher: CIPHER,
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64")
  })
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The entries of a file's content, or why they cannot be read. A plain file is read with or
 * without a key (the next write seals it when there is one); a sealed file needs its key.
 *
 * @internal
 */
export const decode = (text: string, key: Buffer | undefined): Either.Either<Record<string, unknown>, string> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Either.left("not JSON")
  }
  if (!isObject(parsed)) return Either.right({})
  if (parsed.format !== FORMAT) return Either.right(parsed)
  if (parsed.version !== VERSION || parsed.cipher !== CIPHER) {
    return Either.left(`unsupported format version ${String(parsed.version)} (${String(parsed.cipher)})`)
  }
  if (key === undefined) return Either.left("the file is encrypted and no encryption key was given")
  if (typeof parsed.iv !== "string" || typeof parsed.tag !== "string" || typeof parsed.data !== "string") {
    return Either.left("the encrypted file is damaged")
  }
  try {
    const decipher = Crypto.createDecipheriv(CIPHER, key, Buffer.from(parsed.iv, "base64"))
    decipher.setAAD(aad)
    decipher.setAuthTag(Buffer.from(parsed.tag, "base64"))
    const json = Buffer.concat([decipher.update(Buffer.from(parsed.data, "base64")), decipher.final()]).toString("utf8")
    const entries: unknown = JSON.parse(json)
    return Either.right(isObject(entries) ? entries : {})
  } catch {
    return Either.left("the file cannot be decrypted with this key (a wrong key, or a damaged file)")
  }
}
