// One way of using the client per mode, each ending with close(): prints "closed", then, a turn
// of the event loop at a time, what still keeps the process alive
// (`process.getActiveResourcesInfo()`, a JSON array per line), and must exit by itself.
//   node closeAndExit.mjs <facade|validate|layer|live> <fake server bin>
//   node closeAndExit.mjs http <url>
import * as McpClient from "@mcp-effect/client/McpClient";
import * as Stdio from "@mcp-effect/client/Stdio";
import { connect, McpClientLive, NodeMcpClient } from "@mcp-effect/node";
import * as Effect from "effect/Effect";

const [mode, target] = process.argv.slice(2);
const closed = () => process.stdout.write("closed\n");
const listTools = Effect.flatMap(McpClient.McpClient, (client) => client.listTools());

switch (mode) {
  case "facade": {
    const client = await connect([process.execPath, target]);
    await client.listTools();
    await client.close();
    break;
  }
  case "validate": {
    // A tool with an outputSchema: the JSON Schema worker starts for this call.
    const client = await connect([process.execPath, target]);
    await client.callTool("add", { a: 1, b: 2 });
    await client.close();
    break;
  }
  case "http": {
    const client = await connect(target);
    await client.listTools();
    await client.close();
    break;
  }
  case "layer":
    await listTools.pipe(
      Effect.provide(
        NodeMcpClient.layer({ servers: [Stdio.config({ name: "fake", command: process.execPath, args: [target] })] }),
      ),
      Effect.runPromise,
    );
    break;
  case "live":
    // MCP_CONFIG names the configuration file.
    await listTools.pipe(Effect.provide(McpClientLive), Effect.runPromise);
    break;
  default:
    throw new Error(`unknown mode ${mode}`);
}
closed();
let turns = 0;
const look = () => {
  const left = process.getActiveResourcesInfo().filter((r) => r !== "PipeWrap" && r !== "TTYWrap");
  process.stdout.write(`${JSON.stringify(left)}\n`);
  if (left.some((r) => r !== "Immediate") && ++turns < 20) setImmediate(look);
};
setImmediate(look);
