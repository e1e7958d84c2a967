/**
 * The client the official conformance referee (`@modelcontextprotocol/conformance`) drives.
 *
 * The referee plays the server: per scenario it starts a mock MCP server on localhost and runs
 * this program with the server URL as the last argument, naming the scenario in
 * `MCP_CONFORMANCE_SCENARIO` (plus `MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios,
 * `MCP_CONFORMANCE_CONTEXT` as JSON). The program does what the scenario expects of a client,
 * using only the public Promise facade of `@mcp-effect/node`, and exits by itself: 0 when every
 * step worked, 1 otherwise (the referee's checks, not this exit code, decide the verdict).
 *
 * Environment knobs of our own: `MCP_EFFECT_LOG_LEVEL` (`All` … `None`, default `Warning`).
 *
 * @since 0.1.0
 */
import { type Client, connect, type ConnectOptions } from "@mcp-effect/node/Connect"
import { makeOAuth, type Options as OAuthOptions } from "@mcp-effect/node/NodeOAuth"
import * as Predicate from "effect/Predicate"

/** The referee kills a client at its `--timeout` (the runner says when); give up a little earlier, with a message. */
const deadlineMs = Number(process.env["MCP_EFFECT_DRIVER_DEADLINE_MS"] ?? 25_000)

/** How long `close()` may leave the event loop busy before the driver exits anyway. */
const exitGraceMs = 2_000

const logLevels = ["All", "Debug", "Info", "Warning", "Error", "None"] as const

type LogLevel = typeof logLevels[number]

const isLogLevel = (value: string | undefined): value is LogLevel =>
  value !== undefined && (logLevels as ReadonlyArray<string>).includes(value)

/**
 * What one run of a scenario knows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Run {
  readonly scenario: string
  readonly url: string
  /** The wire revision the referee runs the scenario at (a hint: the client negotiates). */
  readonly protocolVersion: string | undefined
  readonly context: Readonly<Record<string, unknown>> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Scenario = (run: Run) => Promise<void>

const log = (message: string): void => {
  process.stderr.write(`[mcp-effect driver] ${message}\n`)
}

const connectOptions = (): ConnectOptions => {
  const level = process.env["MCP_EFFECT_LOG_LEVEL"]
  return {
    // Every referee mock speaks Streamable HTTP, several of them at a URL without `/mcp`
    // (`http://localhost:PORT`), which the detection table would send to auto-detection.
    transport: "streamable_http",
    // The referee serves every scenario from one process while all the drivers start at once:
    // on a loaded 2-core machine an answer can take well over 10 s to come back.
    readTimeout: "30 seconds",
    // The referee starts every scenario at once: on a loaded 2-core machine the era probe
    // needs room (a legacy server answers it at once anyway).
    discoverTimeout: "20 seconds",
    // Each scenario judges what the client sends: no era remembered from another scenario or run.
    eraCache: false,
    clientInfo: { name: "mcp-effect-conformance", version: "0.1.0" },
    logLevel: isLogLevel(level) ? level : "Warning"
  }
}

/** Connects, runs `use`, and closes the client whether `use` worked or not. */
const withClient = async (
  run: Run,
  use: (client: Client) => Promise<void>,
  extra?: Partial<ConnectOptions>
): Promise<void> => {
  const client = await connect(run.url, { ...connectOptions(), ...extra })
  for (const server of client.servers) {
    log(`connected to ${server.name}: era ${server.era ?? "?"}, protocol ${server.protocolVersion ?? "?"}`)
  }
  let failure: { readonly error: unknown } | undefined
  try {
    await use(client)
  } catch (error) {
    failure = { error }
  }
  try {
    await client.close()
    log("closed")
  } catch (error) {
    if (failure === undefined) throw error
    log(`close failed too: ${describe(error)}`)
  }
  if (failure !== undefined) throw failure.error
}

const listTools = async (client: Client): Promise<ReadonlySet<string>> => {
  const tools = await client.listTools()
  log(`tools/list: ${tools.length} tool(s)${tools.length > 0 ? ` (${tools.map((tool) => tool.name).join(", ")})` : ""}`)
  return new Set(tools.map((tool) => tool.name))
}

/** One tool call a scenario expects, with the text its mock server answers. */
interface ExpectedCall {
  readonly name: string
  readonly arguments: Record<string, unknown>
  readonly text: string
  readonly timeoutMs?: number
}

const callExpected = async (client: Client, tools: ReadonlySet<string>, call: ExpectedCall): Promise<void> => {
  if (!tools.has(call.name)) throw new Error(`the server does not list the tool "${call.name}"`)
  const started = performance.now()
  const result = await client.callTool(
    call.name,
    call.arguments,
    call.timeoutMs === undefined ? undefined : { timeout: call.timeoutMs }
  )
  const elapsed = Math.round(performance.now() - started)
  const text = result.content.flatMap((block) => block.type === "text" ? [block.text] : []).join("\n")
  log(`tools/call ${call.name} answered in ${elapsed} ms: ${JSON.stringify(text)}`)
  if (result.isError === true) throw new Error(`tool "${call.name}" returned isError: ${text}`)
  if (!text.includes(call.text)) throw new Error(`tool "${call.name}" answered ${JSON.stringify(text)}`)
}

/** `initialize`: the handshake (protocolVersion, clientInfo) is what is checked; then list and close. */
const initialize: Scenario = (run) =>
  withClient(run, async (client) => {
    await listTools(client)
  })

/** `tools_call`: the mock records the `tools/call` of `add_numbers` with numeric `a` and `b`. */
const toolsCall: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await listTools(client)
    await callExpected(client, tools, {
      name: "add_numbers",
      arguments: { a: 5, b: 3 },
      text: "The sum of 5 and 3 is 8"
    })
  })

/**
 * `sse-retry` (SEP-1699): the mock answers `tools/call test_reconnection` with an SSE stream
 * holding only a priming event (`id`, `retry: 500`), closes it after 50 ms without a response,
 * and delivers the result on the GET stream the client must open to resume — no earlier than
 * `retry` ms after the close, with `Last-Event-ID`. The call returning is that reconnection.
 */
const sseRetry: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await listTools(client)
    await callExpected(client, tools, {
      name: "test_reconnection",
      arguments: {},
      text: "Reconnection test completed successfully",
      timeoutMs: 30_000
    })
  })

/**
 * Scenarios whose context lists `toolCalls` (`http-custom-headers`, `http-invalid-tool-headers`):
 * each listed tool the client offers is called; a tool the client left out (an invalid
 * `x-mcp-header` annotation) is not.
 */
const contextToolCalls: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await listTools(client)
    // Without a list in the context, every offered tool is called with placeholder arguments.
    const offered = await client.listTools()
    const calls = Array.isArray(run.context?.toolCalls)
      ? run.context.toolCalls
      : offered.map((tool) => ({ name: tool.name, arguments: placeholderArguments(tool.inputSchema) }))
    for (const call of calls) {
      if (!Predicate.isRecord(call) || typeof call.name !== "string") continue
      if (!tools.has(call.name)) {
        log(`not calling ${call.name}: the client does not offer it`)
        continue
      }
      const args = Predicate.isRecord(call.arguments) ? call.arguments : {}
      try {
        const result = await client.callTool(call.name, args)
        log(`tools/call ${call.name}: ${result.isError === true ? "isError" : "ok"}`)
      } catch (error) {
        log(`tools/call ${call.name} failed: ${describe(error)}`)
      }
    }
  })

/** Arguments that satisfy a flat object schema: its required properties, typed placeholders. */
const placeholderArguments = (schema: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const properties = Predicate.isRecord(schema.properties) ? schema.properties : {}
  const placeholder = (property: unknown): unknown => {
    const type = Predicate.isRecord(property) ? property.type : undefined
    return type === "integer" || type === "number" ? 1 : type === "boolean" ? true : "test"
  }
  return Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, placeholder(property)]))
}

/**
 * `sep-2322-client-request-state`: multi-round-trip tools answered with an elicitation; the
 * unrelated tool runs in parallel with one of them and must carry none of its state.
 */
const requestState: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await listTools(client)
    const call = async (name: string) => {
      if (!tools.has(name)) return log(`the server does not list ${name}`)
      const result = await client.callTool(name, {})
      log(`tools/call ${name}: ${JSON.stringify(result.content).slice(0, 200)}`)
    }
    await Promise.all([call("test_mrtr_echo_state"), call("test_mrtr_unrelated")])
    await call("test_mrtr_no_state")
    await call("test_mrtr_no_result_type")
  }, { elicitationHandler: () => ({ action: "accept", content: { confirmed: true } }) })

/**
 * The interactive step of the OAuth scenarios: the referee's mock authorization server approves
 * at once, so following the authorization URL without redirects yields the callback URL (with
 * `code`, `state` and possibly `iss`) in `Location`.
 */
const followAuthorization = async (url: URL): Promise<URL> => {
  // A browser would let the user reload: one more try when the connection itself failed.
  const response = await fetch(url, { redirect: "manual" }).catch(async () => {
    await new Promise((resolve) => setTimeout(resolve, 200))
    return fetch(url, { redirect: "manual" })
  })
  await response.body?.cancel()
  const location = response.headers.get("location")
  if (location === null) {
    throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`)
  }
  log(`authorization redirected to ${new URL(location, url).origin}`)
  return new URL(location, url)
}

/** The Client ID Metadata Document URL `auth/basic-cimd` expects. */
const conformanceClientIdMetadataUrl = "https://conformance-test.local/client-metadata.json"

const contextString = (run: Run, key: string): string | undefined => {
  const value = run.context?.[key]
  return typeof value === "string" ? value : undefined
}

/**
 * `auth/*`: the MCP server challenges with 401 (or 403 for step-up); the client discovers the
 * authorization server, registers (pre-registered credentials from the context, a Client ID
 * Metadata Document, or dynamic registration), authorizes, and retries. Listing and calling
 * `test-tool` exercises the token (and step-up on `tools/call`). Client credentials scenarios
 * get their secret or private key from the context, `auth/wif-jwt-bearer` its workload JWT, and
 * `auth/enterprise-managed-authorization` the identity provider and the user's ID token; the
 * `auth/dpop*` scenarios turn DPoP on (their context is empty).
 */
const oauthScenario: Scenario = async (run) => {
  const clientId = contextString(run, "client_id")
  const clientSecret = contextString(run, "client_secret")
  const issuer = contextString(run, "issuer")
  const grant = oauthGrant(run)
  const auth = await makeOAuth({
    serverUrl: run.url,
    redirectUri: "http://localhost:3000/callback",
    authorize: followAuthorization,
    clientIdMetadataUrl: conformanceClientIdMetadataUrl,
    clientMetadata: { clientName: "mcp-effect-conformance" },
    onWarning: (message) => log(`oauth: ${message}`),
    dpop: run.scenario.startsWith("auth/dpop"),
    ...(grant !== undefined ? { grant } : {}),
    ...(grant === undefined && clientId !== undefined && issuer !== undefined
      ? { preRegistered: { clientId, clientSecret, issuer } }
      : {})
  })
  const session = withClient(run, async (client) => {
    const tools = await listTools(client)
    for (const name of tools) {
      const result = await client.callTool(name, {})
      log(`tools/call ${name}: ${result.isError === true ? "isError" : "ok"}`)
    }
  }, {
    auth,
    // The first request carries the whole authorization flow (discovery, registration,
    // authorization, token): give the era probe room for it on a loaded machine.
    discoverTimeout: "20 seconds",
    readTimeout: "20 seconds"
  })
  if (!refusalExpected.has(run.scenario)) return session
  // Here the right outcome is a refusal: the authorization error is the scenario working.
  try {
    await session
  } catch (error) {
    if (isAuthFailure(error)) return log(`refused as expected: ${describe(error)}`)
    throw error
  }
  throw new Error(`${run.scenario}: the client should have refused to proceed`)
}

/** The grant without a browser a scenario's context provides for, if any. */
const oauthGrant = (run: Run): OAuthOptions["grant"] => {
  const clientId = contextString(run, "client_id")
  const clientSecret = contextString(run, "client_secret")
  const workloadJwt = contextString(run, "valid_jwt")
  const idToken = contextString(run, "idp_id_token")
  const idpIssuer = contextString(run, "idp_issuer")
  const idpClientId = contextString(run, "idp_client_id")
  if (run.scenario.startsWith("auth/client-credentials") && clientId !== undefined) {
    return {
      _tag: "ClientCredentials",
      clientId,
      clientSecret,
      privateKeyPem: contextString(run, "private_key_pem"),
      signingAlgorithm: contextString(run, "signing_algorithm")
    }
  }
  if (workloadJwt !== undefined) return { _tag: "JwtBearer", assertion: workloadJwt, clientId }
  if (idToken !== undefined && idpIssuer !== undefined && idpClientId !== undefined && clientId !== undefined) {
    return {
      _tag: "EnterpriseManaged",
      identityAssertion: idToken,
      identityProvider: {
        issuer: idpIssuer,
        tokenEndpoint: contextString(run, "idp_token_endpoint"),
        clientId: idpClientId
      },
      clientId,
      clientSecret
    }
  }
  return undefined
}

/**
 * Scenarios whose mock misbehaves on purpose (the referee's `allowClientError`): a mismatched
 * resource or issuer, a bad `iss`, a scope that can never be granted.
 */
const refusalExpected: ReadonlySet<string> = new Set([
  "auth/resource-mismatch",
  "auth/metadata-issuer-mismatch",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/scope-retry-limit"
])

const isAuthFailure = (error: unknown): boolean =>
  Predicate.isRecord(error) &&
  (error._tag === "AuthError" || error._tag === "InsufficientScopeError" || error._tag === "AuthorizationRequiredError")

/** Any other scenario, until it gets its own entry: connect, list tools, close. */
const connectAndList: Scenario = (run) =>
  withClient(run, async (client) => {
    await listTools(client)
  })

/**
 * `http-standard-headers`: every kind of request whose headers are checked — tools (listed and
 * called), resources (listed and read), prompts (listed and got).
 */
const everything: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await client.listTools()
    for (const tool of tools) {
      await client.callTool(tool.name, placeholderArguments(tool.inputSchema)).catch((error: unknown) =>
        log(`tools/call ${tool.name} failed: ${describe(error)}`)
      )
    }
    const resources = await client.listResources().catch(() => [])
    for (const resource of resources) {
      await client.readResource(resource.uri).catch((error: unknown) => log(`read ${resource.uri}: ${describe(error)}`))
    }
    const prompts = await client.listPrompts().catch(() => [])
    for (const prompt of prompts) {
      await client.getPrompt(prompt.name, {}).catch((error: unknown) =>
        log(`prompt ${prompt.name}: ${describe(error)}`)
      )
    }
  })

/**
 * `elicitation-sep1034-client-defaults`: the server elicits a form whose fields have defaults;
 * the host accepts without filling them, and the client applies the schema's defaults.
 */
const elicitationDefaults: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await client.listTools()
    for (const tool of tools) {
      const result = await client.callTool(tool.name, placeholderArguments(tool.inputSchema))
      log(`tools/call ${tool.name}: ${result.isError === true ? "isError" : "ok"}`)
    }
  }, { elicitationHandler: () => ({ action: "accept", content: {} }) })

/**
 * A host that hands a tool's schema back to its server (the referee's `json_schema_echo`)
 * shows what the client kept of it: the listed `inputSchema` goes back as it was received.
 */
const schemaEcho: Scenario = (run) =>
  withClient(run, async (client) => {
    const tools = await client.listTools()
    const focal = tools.find((tool) => tool.name !== "json_schema_echo")
    if (focal === undefined || !tools.some((tool) => tool.name === "json_schema_echo")) {
      throw new Error("the scenario's tools are missing")
    }
    const result = await client.callTool("json_schema_echo", { schema: focal.inputSchema })
    log(`tools/call json_schema_echo with ${focal.name}'s inputSchema: ${result.isError === true ? "isError" : "ok"}`)
  })

/**
 * The scenarios the driver knows, by the referee's name.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const scenarios: Readonly<Record<string, Scenario>> = {
  initialize,
  tools_call: toolsCall,
  "sse-retry": sseRetry,
  "http-custom-headers": contextToolCalls,
  "http-invalid-tool-headers": contextToolCalls,
  "sep-2322-client-request-state": requestState,
  "http-standard-headers": everything,
  "elicitation-sep1034-client-defaults": elicitationDefaults,
  "json-schema-2020-12-preservation": schemaEcho
}

const parseContext = (raw: string | undefined): Record<string, unknown> | undefined => {
  if (raw === undefined || raw === "") return undefined
  const parsed: unknown = JSON.parse(raw)
  if (!Predicate.isRecord(parsed)) throw new Error("MCP_CONFORMANCE_CONTEXT is not a JSON object")
  return parsed
}

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const fields = Object.fromEntries(
    Object.entries(error).filter(([key]) => key !== "message" && key !== "stack" && key !== "name")
  )
  let extra = ""
  try {
    const json = JSON.stringify(fields)
    if (json !== "{}") extra = ` ${json.length > 1000 ? `${json.slice(0, 1000)}…` : json}`
  } catch {
    // Fields that do not serialize are left out.
  }
  const cause = error.cause === undefined ? "" : `\n  caused by: ${describe(error.cause)}`
  return `${error.name}: ${error.message}${extra}${cause}`
}

const main = async (): Promise<number> => {
  const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
  const url = process.argv[process.argv.length - 1] ?? ""
  if (process.argv.length < 3 || !/^https?:\/\//.test(url)) {
    log("usage: driver.js <server url>  (normally run by the conformance referee)")
    return 2
  }
  const run: Run = {
    scenario,
    url,
    protocolVersion: process.env["MCP_CONFORMANCE_PROTOCOL_VERSION"],
    context: parseContext(process.env["MCP_CONFORMANCE_CONTEXT"])
  }
  const handler = scenarios[scenario] ?? (scenario.startsWith("auth/") ? oauthScenario : undefined)
  log(
    `scenario ${scenario === "" ? "(none)" : scenario}${
      handler === undefined ? " (default: connect, list tools)" : ""
    }` +
      ` at ${run.protocolVersion ?? "?"} against ${url}` +
      (run.context === undefined ? "" : ` with context keys ${Object.keys(run.context).join(", ")}`)
  )
  await (handler ?? connectAndList)(run)
  return 0
}

const deadline = setTimeout(() => {
  log(`gave up after ${deadlineMs} ms`)
  process.exit(1)
}, deadlineMs)
deadline.unref()

main().then(
  (code) => code,
  (error: unknown) => {
    log(`failed: ${describe(error)}`)
    return 1
  }
).then((code) => {
  process.exitCode = code
  // Nothing of ours may keep the event loop alive now: a closed client whose process lingers is a
  // failure (the runner reads "failed:" on stderr).
  setTimeout(() => {
    log(`failed: something still held the event loop ${exitGraceMs} ms after close()`)
    process.exit(1)
  }, exitGraceMs).unref()
})
