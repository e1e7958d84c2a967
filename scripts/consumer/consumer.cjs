// The same packages from CommonJS (require of an ES module, Node ≥ 20.19).
const { connect } = require("@mcp-effect/node");

const main = async () => {
  const client = await connect([process.execPath, process.argv[2]]);
  const tools = await client.listTools();
  const echoed = await client.callTool("echo", { message: "hi" });
  await client.close();
  console.log(JSON.stringify({ tools: tools.map((tool) => tool.name), echoed: echoed.content }));
};

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
