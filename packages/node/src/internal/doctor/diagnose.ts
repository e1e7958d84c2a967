/**
 * The doctor's order of steps, and its last three (era, auth, tools), which connect with the
 * client itself.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as McpError from "@mcp-effect/client/McpError"
import type * as Protocol from "@mcp-effect/client/Protocol"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Target from "@mcp-effect/client/Target"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Options, Report, Step, StepName } from "../../NodeDoctor.js"
import * as Http from "./http.js"
import * as Network from "./network.js"
import { fail, ok, run, safe, skipped } from "./step.js"

/** A URL without its query and credentials (tokens live in both). */
const shown = (url: URL) => `${url.protocol}//${url.host}${url.pathname}`

const tokenHint = "pass a token (an Authorization header), or sign in once with --oauth; the doctor never signs in"

const isAuthError = (error: unknown) =>
  error instanceof McpError.AuthorizationRequiredError || error instanceof McpError.AuthError

const connectHint = (error: unknown): string => {
  if (isAuthError(error)) return tokenHint
  if (error instanceof McpError.UnsupportedProtocolVersionError) {
    return "the server speaks no protocol version this client knows"
  }
  return "the server did not complete the handshake: run with --verbose, and check its logs"
}

const notRun = (names: ReadonlyArray<StepName>): ReadonlyArray<Step> =>
  names.map((name) => skipped(name, "not run: an earlier step failed"))

const failed = (name: StepName, detail: string, hint: string): Step => ({ ...fail(detail, hint), name, ms: 0 })

const eraText = (negotiated: Protocol.Negotiated | undefined) =>
  negotiated === undefined
    ? "connected"
    : `${negotiated.era} era (${negotiated.era === "modern" ? "server/discover" : "initialize"}), protocol `
      + `${safe(negotiated.protocolVersion, 40)}, ${safe(negotiated.serverInfo.name, 80)} `
      + safe(negotiated.serverInfo.version, 40)

/** era → auth → tools, over one connection. */
const session = (
  config: ServerConfig<Target.Requirements>,
  timeout: Duration.Duration,
  auth: string
): Effect.Effect<ReadonlyArray<Step>, never, Target.Requirements> =>
  Effect.scoped(Effect.gen(function*() {
    let connection: ServerConnection.ServerConnection | undefined
    let authRefused = false
    const opening = Effect.flatMap(
      ServerConnection.make(config, {
        clientInfo: { name: "mcp-effect-doctor", version: "1" },
        onNotification: () => {}
      }),
      (opened) => {
        connection = opened
        return Effect.map(opened.connect, () => ok(eraText(opened.negotiated())))
      }
    ).pipe(Effect.tapError((error) => Effect.sync(() => (authRefused = isAuthError(error)))))
    const era = yield* run("era", timeout, opening, connectHint)
    if (era.status === "fail" || connection === undefined) {
      return [
        era,
        authRefused
          ? failed("auth", "the server refused the connection without a token", tokenHint)
          : notRun(["auth"])[0]!,
        ...notRun(["tools"])
      ]
    }
    const open = connection
    const tools = yield* run(
      "tools",
      timeout,
      Effect.map(open.listTools(), (list) => ok(`${list.length} tool${list.length === 1 ? "" : "s"}`)),
      () => "tools/list failed: the server's logs say why"
    )
    return [era, { name: "auth" as const, status: "ok" as const, ms: 0, detail: auth }, tools]
  }))

interface NetworkResult {
  readonly steps: ReadonlyArray<Step>
  /** Set when every step passed: what the HTTP step saw. */
  readonly probe?: Http.Probe | undefined
}

const AFTER: ReadonlyArray<StepName> = ["dns", "tcp", "tls", "http", "metadata", "era", "auth", "tools"]
const after = (name: StepName) => AFTER.slice(AFTER.indexOf(name) + 1)

/** dns → tcp → tls → http → metadata; stops at the first failure. */
const network = (
  url: URL,
  options: Options,
  timeout: Duration.Duration
): Effect.Effect<NetworkResult, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const steps: Array<Step> = []
    const stopped = (step: Step): NetworkResult | undefined =>
      step.status === "fail" ? { steps: [...steps, step, ...notRun(after(step.name))] } : (steps.push(step), undefined)
    let address = ""
    const dns = yield* run(
      "dns",
      timeout,
      Effect.map(Network.dns(url), (found) => {
        address = found.address
        return found.outcome
      }),
      Network.dnsHint
    )
    const afterDns = stopped(dns)
    if (afterDns !== undefined) return afterDns
    const port = Network.portOf(url)
    const afterTcp = stopped(yield* run("tcp", timeout, Network.tcp(address, port), Network.tcpHint(address, port)))
    if (afterTcp !== undefined) return afterTcp
    const tls = url.protocol === "https:"
      ? yield* run("tls", timeout, Network.tls(address, url), Network.tlsHint)
      : skipped("tls", "http: has no TLS")
    const afterTls = stopped(tls)
    if (afterTls !== undefined) return afterTls
    let probe: Http.Probe | undefined
    const http = yield* run(
      "http",
      timeout,
      Effect.map(Http.probe(url.href, options.headers ?? {}), (seen) => {
        probe = seen
        return seen.outcome
      }),
      () => "the HTTP request failed: a proxy (HTTPS_PROXY) in the way, or the server closing connections?"
    )
    const afterHttp = stopped(http)
    if (afterHttp !== undefined || probe === undefined) return afterHttp ?? { steps }
    const seen = probe
    const metadata = yield* run("metadata", timeout, Http.metadata(url.href, seen), () =>
      "the metadata could not be fetched")
    return stopped(metadata) ?? { steps, probe: seen }
  })

const hasAuthorization = (headers: Options["headers"]) =>
  Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "authorization")

const summary = (target: string, steps: ReadonlyArray<Step>): Report => ({
  target,
  ok: steps.every((step) => step.status !== "fail"),
  steps
})

const overHttp = (
  url: URL,
  config: ServerConfig<Target.Requirements>,
  options: Options,
  timeout: Duration.Duration
) =>
  Effect.gen(function*() {
    const first = yield* network(url, options, timeout)
    if (first.probe === undefined) return summary(shown(url), first.steps)
    const credentials = hasAuthorization(options.headers)
    if (first.probe.status === 401 && !credentials) {
      return summary(shown(url), [
        ...first.steps,
        skipped("era", "not run: the server wants authorization first"),
        failed("auth", "401: the server wants a token", tokenHint),
        ...notRun(["tools"])
      ])
    }
    const auth = credentials ? "the Authorization header given was accepted" : "not required"
    return summary(shown(url), [...first.steps, ...(yield* session(config, timeout, auth))])
  })

/** @internal */
export const diagnose = (
  target: Target.Target,
  options: Options = {}
): Effect.Effect<Report, never, HttpClient.HttpClient | Target.Requirements> =>
  Effect.gen(function*() {
    const timeout = Duration.decode(options.timeout ?? Duration.seconds(10))
    const written = typeof target === "string" ? target : target.join(" ")
    const config = options.config === undefined
      ? yield* Effect.either(Target.toConfig(target, { headers: options.headers }))
      : { _tag: "Right" as const, right: options.config }
    if (config._tag === "Left") {
      return summary(safe(written), [
        failed("era", safe(config.left.message), "check the target: a URL or a command line")
      ])
    }
    const detected = Target.detect(target)
    if (detected.transport === "stdio") {
      return summary(safe(written), yield* session(config.right, timeout, "not applicable (stdio)"))
    }
    return yield* overHttp(new URL(detected.url), config.right, options, timeout)
  })
