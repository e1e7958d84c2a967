/**
 * OAuth for Node hosts: a Promise-friendly constructor of `OAuth.make` on undici, and a file
 * storage for tokens and registrations (created with 0600 permissions).
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { AuthError } from "@mcp-effect/client/McpError"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"

/**
 * The options of `OAuth.make` with a Promise-returning interactive step.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Omit<OAuth.Options, "authorize"> {
  /** Open `authorizationUrl`, resolve with the callback URL the authorization server redirected to. */
  readonly authorize?: ((authorizationUrl: URL) => Promise<URL>) | undefined
}

const httpLayer = Layer.provide(NodeHttpClient.layerUndiciWithoutDispatcher, NodeHttpClient.dispatcherLayerGlobal)

/**
 * `OAuth.make` for Promise code: the result goes into `connect(url, { auth })`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeOAuth = (options: Options): Promise<OAuth.OAuthClient> => {
  const { authorize, ...rest } = options
  return Effect.runPromise(
    OAuth.make({
      ...rest,
      ...(authorize === undefined ? {} : {
        authorize: (url: URL) =>
          Effect.tryPromise({
            try: () => authorize(url),
            catch: (e) =>
              new AuthError({
                server: options.serverUrl,
                reason: "authorization",
                message: e instanceof Error ? e.message : String(e)
              })
          })
      })
    }).pipe(Effect.provide(httpLayer))
  )
}

/**
 * Finishes an authorization that failed with `AuthorizationRequiredError`: `callbackUrl` is where
 * the authorization server redirected the user. Retry the MCP request afterwards.
 *
 * @since 0.1.0
 * @category utils
 */
export const completeAuthorization = (auth: OAuth.OAuthClient, callbackUrl: URL | string): Promise<void> =>
  Effect.runPromise(auth.complete(typeof callbackUrl === "string" ? new URL(callbackUrl) : callbackUrl))

/**
 * An `OAuthStorage` kept in one JSON file, readable by its owner only (0600). Writes replace the
 * file atomically.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFileStorage = (file: string): OAuth.OAuthStorage => {
  const read = Effect.tryPromise({
    try: async (): Promise<Record<string, unknown>> => {
      try {
        const parsed: unknown = JSON.parse(await Fs.readFile(file, "utf8"))
        return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? parsed as Record<string, unknown>
          : {}
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return {}
        throw e
      }
    },
    catch: (e) => new OAuth.OAuthStorageError({ message: `reading ${file}: ${String(e)}` })
  })
  const write = (data: Record<string, unknown>) =>
    Effect.tryPromise({
      try: async () => {
        await Fs.mkdir(Path.dirname(file), { recursive: true, mode: 0o700 })
        const temp = `${file}.${process.pid}.tmp`
        await Fs.writeFile(temp, JSON.stringify(data, null, 2), { mode: 0o600 })
        await Fs.chmod(temp, 0o600)
        await Fs.rename(temp, file)
      },
      catch: (e) => new OAuth.OAuthStorageError({ message: `writing ${file}: ${String(e)}` })
    })
  const semaphore = Effect.unsafeMakeSemaphore(1)
  return {
    get: (key) => Effect.map(read, (data) => data[key]),
    set: (key, value) => semaphore.withPermits(1)(Effect.flatMap(read, (data) => write({ ...data, [key]: value }))),
    remove: (key) =>
      semaphore.withPermits(1)(Effect.flatMap(read, (data) => {
        const { [key]: _removed, ...rest } = data
        return write(rest)
      }))
  }
}

/**
 * The file storage as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFileStorage = (file: string): Layer.Layer<OAuth.OAuthStorage> =>
  Layer.sync(OAuth.OAuthStorage, () => makeFileStorage(file))
