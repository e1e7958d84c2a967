/**
 * Telling a request a browser refused for CORS from other failures: `fetch` gives both the same
 * bare `TypeError` and keeps the reason in the console, out of the page's reach.
 *
 * @internal
 */

/** The origin of the page this code runs in, if it runs in one. */
const pageOrigin = (): string | undefined => {
  const location = (globalThis as { readonly location?: { readonly origin?: unknown } }).location
  return typeof location?.origin === "string" && location.origin !== "null" ? location.origin : undefined
}

/**
 * The page's origin when a failed request to `url` was likely refused for CORS: it ran in a page,
 * went to another origin, and failed with a `TypeError` that names no network code.
 *
 * @internal
 */
export const suspectedBy = (url: string, cause: unknown): string | undefined => {
  const page = pageOrigin()
  if (page === undefined || !(cause instanceof TypeError) || "code" in cause) return undefined
  try {
    return new URL(url).origin === page ? undefined : page
  } catch {
    return undefined
  }
}
