// One way of using the client per mode, each ending with close(): prints "closed" and then must
// exit by itself (Exit.test.ts measures how long the process lives on after that line).
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
