/**
 * The `mcp-effect` command, run by `bin.ts`.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Cli from "./Cli.js"

/**
 * Ends the process once stdout and stderr are written. Whatever the command opened is closed by
 * now; what could still hold the process is not ours to wait for (Node 20 and 22 finish the
 * WebAssembly tier-up of undici's HTTP parser before exiting: up to a second on a busy machine
 * after a command over HTTP).
 */
const exitFlushed = (code: number) => process.stdout.write("", () => process.stderr.write("", () => process.exit(code)))

Cli.run(process.argv).pipe(
  Effect.provide(NodeMcpClient.platform),
  // Cli.run reports its own failures and logs to stderr; the runtime only sets the exit status
  // (its pretty logger would write log lines to stdout, among a command's output). An interrupt
  // (Ctrl-C, SIGTERM) exits with 130.
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit) => exitFlushed(Cli.exitCode(exit))
  })
)
