/**
 * The facade's `listen`: a `subscriptions/listen` stream whose notifications go to a host
 * listener on the subscription's own fiber.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as McpClient from "../../McpClient.js"
import type * as Subscription from "../../Subscription.js"
import { callGuarded } from "./listeners.js"
import { closeScope } from "./run.js"
import type { Runner } from "./run.js"
import type { Client, SubscriptionHandle } from "./types.js"

export const listenOn =
  (service: McpClient.Service, runOn: Runner<McpClient.McpClient>): Client["listen"] =>
  async (filter, listener, o): Promise<SubscriptionHandle> => {
    const scope = Effect.runSync(Scope.make())
    const subscription = await runOn(Scope.extend(service.listen(filter, o), scope), o).catch(async (error) => {
      await closeScope(scope)
      throw error
    })
    const done = runOn(
      Stream.runForEach(
        subscription.notifications,
        (notification: Subscription.Notification) =>
          Effect.sync(() => callGuarded("subscription", () => listener(notification)))
      )
    )
    done.catch(() => {})
    return {
      acknowledged: subscription.acknowledged,
      unsupported: subscription.unsupported,
      isActive: subscription.isActive,
      pendingNotifications: subscription.pendingNotifications,
      droppedNotifications: subscription.droppedNotifications,
      done,
      close: () => closeScope(scope)
    }
  }
