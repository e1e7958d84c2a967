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
