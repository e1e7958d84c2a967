/**
 * `mcp-effect listen`: a 2026-07-28 `subscriptions/listen` stream, or on a legacy server its
 * `list_changed` notifications and `resources/subscribe` updates, as one stream.
 *
 * @internal
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpError from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type * as ServerConnection from "@mcp-effect/client/ServerConnection"
import type * as Subscription from "@mcp-effect/client/Subscription"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/** @internal */
export interface Listening {
  readonly server: string
  /** What the server does not offer of the filter. */
  readonly unsupported: ReadonlyArray<string>
  readonly notifications: Stream.Stream<Subscription.Notification, Subscription.SubscriptionError>
}

type Capabilities = McpSchema.ServerCapabilities & Record<string, unknown>

const declared = (capabilities: Capabilities, feature: "tools" | "prompts" | "resources", flag: string): boolean =>
  (capabilities[feature] as Record<string, unknown> | undefined)?.[flag] === true

/** What each field of a filter means on a legacy server, and the capability that offers it. */
const LEGACY = [
  { field: "toolsListChanged", method: "notifications/tools/list_changed", feature: "tools", flag: "listChanged" },
  {
    field: "promptsListChanged",
    method: "notifications/prompts/list_changed",
    feature: "prompts",
    flag: "listChanged"
  },
  {
    field: "resourcesListChanged",
    method: "notifications/resources/list_changed",
    feature: "resources",
    flag: "listChanged"
  },
  { field: "resourceSubscriptions", method: "notifications/resources/updated", feature: "resources", flag: "subscribe" }
] as const

const asked = (filter: Subscription.Filter, field: typeof LEGACY[number]["field"]): boolean =>
  field === "resourceSubscriptions" ? (filter.resourceSubscriptions ?? []).length > 0 : filter[field] === true

/** The legacy notifications a filter means, and the fields a legacy server does not declare. */
const legacyPlan = (filter: Subscription.Filter, capabilities: Capabilities) => {
  const wanted = LEGACY.filter((row) => asked(filter, row.field))
  const offered = (row: typeof LEGACY[number]) => declared(capabilities, row.feature, row.flag)
  return {
    methods: new Set<string>(wanted.filter(offered).map((row) => row.method)),
    unsupported: wanted.filter((row) => !offered(row)).map((row) => row.field)
  }
}

/**
 * On a legacy server: its `list_changed` notifications, and `resources/subscribe` for the
 * resources (unsubscribed when the scope closes).
 */
const legacy = (
  client: McpClient.Service,
  connection: ServerConnection.ServerConnection,
  filter: Subscription.Filter
) =>
  Effect.gen(function*() {
    const server = connection.name
    const plan = legacyPlan(filter, (connection.negotiated()?.capabilities ?? {}) as Capabilities)
    const uris = new Set(plan.methods.has("notifications/resources/updated") ? filter.resourceSubscriptions : [])
    const mailbox = yield* Mailbox.make<Subscription.Notification>()
    yield* client.onNotification((from, method, params) => {
      if (from !== server || !plan.methods.has(method)) return
      if (method === "notifications/resources/updated" && !uris.has(params?.uri as string)) return
      mailbox.unsafeOffer({ method, params })
    })
    for (const uri of uris) {
      yield* Effect.acquireRelease(
        client.subscribeResource(uri, { server }),
        () => Effect.ignore(client.unsubscribeResource(uri, { server }))
      )
    }
    return { server, unsupported: plan.unsupported, notifications: Mailbox.toStream(mailbox) } satisfies Listening
  })

/**
 * Listens on `{ server }` (or the only server): a subscription on a 2026-07-28 server, the
 * legacy notifications elsewhere.
 *
 * @internal
 */
export const listen = (
  client: McpClient.Service,
  filter: Subscription.Filter,
  server: string | undefined
): Effect.Effect<
  Listening,
  McpError.ConnectError | McpError.CapabilityError | McpError.ServerNotFoundError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const connection = server === undefined && client.servers.length === 1
      ? client.servers[0]!
      : server === undefined
      ? undefined
      : yield* client.server(server)
    if (connection !== undefined && (yield* connection.connect).era === "legacy") {
      return yield* legacy(client, connection, filter)
    }
    return yield* client.listen(filter, { server })
  })
