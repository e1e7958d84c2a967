/**
 * The names of the protocol extensions the client knows. Below the connection that checks what
 * a host declared and the tasks driver that needs the declaration.
 *
 * @internal
 */

/** The 2026-07-28 tasks extension. @internal */
export const TASKS = "io.modelcontextprotocol/tasks"
