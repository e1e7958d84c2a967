/**
 * The undici client's requests that leave its own exchange: stream bodies and
 * `UndiciRequestOptions` go through `@effect/platform-node`'s client (loaded when first needed),
 * and response headers and cookies read as undici reads them. On undici's global dispatcher
 * (Node's own, behind `fetch`) and on an `Agent` of the client's own.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import { BodyReaderTypeId } from "@mcp-effect/client/Http"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** A server that answers with the request's method and body, two cookies and a repeated header. */
const withServer = <A>(use: (url: string) => Promise<A>): Promise<A> => {
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      response.setHeader("Set-Cookie", ["a=1; Path=/", "b=2; Path=/"])
      response.setHeader("X-Twice", ["one", "two"])
      response.end(`${request.method} ${Buffer.concat(chunks).toString()}`)
    })
  })
  return new Promise<A>((resolve, reject) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      use(`http://127.0.0.1:${port}/`).then(resolve, reject).finally(() => server.close())
    })
  })
}

const layers: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["global dispatcher", UndiciHttpClient.layerGlobal],
  ["own Agent", UndiciHttpClient.layer]
]

describe.each(layers)("UndiciHttpClient (%s)", (_name, layer) => {
  // Untraced, as the MCP client's requests are (a traced request goes through the platform's client).
  const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) =>
    Effect.runPromise(Effect.scoped(Effect.provide(Effect.withTracerEnabled(effect, false), layer)))

  it("reads headers and cookies as undici does, through its own exchange [not-on-bun: on Bun the client is fetch, not an undici exchange]", () =>
    withServer((url) =>
      run(Effect.gen(function*() {
        const response = yield* HttpClient.post(url, { body: HttpBody.text("hi") })
        assert.isTrue(BodyReaderTypeId in response)
        assert.strictEqual(response.headers["x-twice"], "one, two")
        assert.deepStrictEqual(Object.keys(response.cookies.cookies).sort(), ["a", "b"])
        assert.strictEqual(yield* response.text, "POST hi")
      }))
    ))

  it("sends a stream body through the platform's client", () =>
    withServer((url) =>
      run(Effect.gen(function*() {
        const body = Stream.make(new TextEncoder().encode("str"), new TextEncoder().encode("eam"))
        const response = yield* HttpClient.post(url, { body: HttpBody.stream(body) })
        assert.isFalse(BodyReaderTypeId in response)
        assert.strictEqual(yield* response.text, "POST stream")
      }))
    ))

  // (The options' method and path are the request's own there.)
  it("sends a request with UndiciRequestOptions through the platform's client", () =>
    withServer((url) =>
      run(Effect.gen(function*() {
        const response = yield* HttpClient.get(url).pipe(
          Effect.provideService(NodeHttpClient.UndiciRequestOptions, { method: "GET", path: "/" })
        )
        assert.isFalse(BodyReaderTypeId in response)
        assert.deepStrictEqual(Object.keys(response.cookies.cookies).sort(), ["a", "b"])
        assert.strictEqual(yield* response.text, "GET ")
      }))
    ))
})
