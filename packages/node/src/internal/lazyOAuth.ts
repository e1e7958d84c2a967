/**
 * `NodeOAuth` (OAuth's flows, token storage, the browser callback and oauth4webapi), imported
 * only for a server that uses OAuth.
 *
 * @internal
 */
export const load = () => import("../NodeOAuth.js")
