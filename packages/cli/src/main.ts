/**
 * The `mcp-effect` command, run by `bin.ts`.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Cli from "./Cli.js"

Cli.run(process.argv).pipe(
  Effect.provide(NodeMcpClient.platform),
  // Cli.run reports its own failures and logs to stderr; the runtime only sets the exit status
  // (its pretty logger would write log lines to stdout, among a command's output). An interrupt
  // (Ctrl-C, SIGTERM) exits with 130.
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(Cli.exitCode(exit))
  })
)
