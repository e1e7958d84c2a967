// Which transport and OAuth modules are loaded at each step of a facade user's life, one line
// per step (needs `--import ./recordLoads.mjs` and RECORD_LOADS):
//   node --import ./recordLoads.mjs transportsLoaded.mjs <fake server bin> <url of a Streamable HTTP server>
import { connect } from "@mcp-effect/node/Connect";
import { readFileSync } from "node:fs";

const [fakeServer, url] = process.argv.slice(2);
const watched = ["internal/http/streamable.js", "internal/http/legacySse.js", "NodeOAuth.js", "oauth4webapi"];
const loaded = () => {
  const urls = readFileSync(process.env.RECORD_LOADS, "utf8");
  return watched.filter((name) => urls.includes(name)).join(",") || "none";
};

console.log(`import ${loaded()}`);
const stdio = await connect([process.execPath, fakeServer]);
await stdio.callTool("echo", { message: "hi" });
console.log(`stdio ${loaded()}`);
await stdio.close();
const http = await connect(url);
await http.listTools();
console.log(`http ${loaded()}`);
await http.close();
