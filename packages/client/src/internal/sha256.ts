/**
 * SHA-256 through WebCrypto (`crypto.subtle`), the one digest of the platform-agnostic core:
 * every supported runtime has it (browsers on secure pages only).
 *
 * @internal
 */

const encoder = new TextEncoder()

/** The SHA-256 of `text`'s UTF-8 bytes, as lowercase hex. @internal */
export const sha256Hex = async (text: string): Promise<string> => {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text))
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
}

/** Whether this runtime offers `crypto.subtle` (an insecure browser page does not). @internal */
export const available = (): boolean => globalThis.crypto?.subtle !== undefined

/**
 * A random UUID (v4): `crypto.randomUUID` where the runtime offers it, else built from
 * `crypto.getRandomValues`, which insecure browser pages keep.
 *
 * @internal
 */
export const randomUuid = (): string => {
  if (typeof globalThis.crypto?.randomUUID === "function") return globalThis.crypto.randomUUID()
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
