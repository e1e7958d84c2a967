// What is loaded at each step of a facade user's life, one line per step (import of the package's
// index, then a stdio client's call, then an HTTP client's listTools): whether undici is, and
// which of the HTTP transports' connection modules, OAuth's flows and the configuration file
// formats are (these need `--import ./recordLoads.mjs` and RECORD_LOADS).
//   node --import ./recordLoads.mjs whatLoads.mjs <fake server bin> <url of a Streamable HTTP server>
import { connect } from "@mcp-effect/node";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as Path from "node:path";

const [fakeServer, url] = process.argv.slice(2);
const cache = createRequire(import.meta.url).cache;
const watched = [
  "internal/http/http.js",
  "internal/http/streamable.js",
  "internal/http/legacySse.js",
  "internal/auth/oauth.js",
  "oauth4webapi",
  "client/dist/McpConfig.js",
];
const loaded = () => {
  const undici = Object.keys(cache).some((file) => file.includes(`${Path.sep}undici${Path.sep}`));
  const urls = readFileSync(process.env.RECORD_LOADS, "utf8");
  return `undici=${undici} modules=${watched.filter((name) => urls.includes(name)).join(",") || "none"}`;
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
