/**
 * Where an HTTP transport connects, as the tracing conventions name it (`Transport.address`).
 * Below the transports that report it.
 *
 * @internal
 */

/** The host and port of an HTTP URL (`server.address` / `server.port`). @internal */
export const addressOf = (url: string): { readonly host: string; readonly port: number } | undefined => {
  try {
    const parsed = new URL(url)
    const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80
    return { host: parsed.hostname, port }
  } catch {
    return undefined
  }
}
