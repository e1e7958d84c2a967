// What is loaded at each step of a facade user's life, one line per step (import of the package's
// index, then a stdio client's call, then an HTTP client's listTools): whether undici is, and
// which of the HTTP transports' connection modules and OAuth's flows are (these need
// `--import ./recordLoads.mjs` and RECORD_LOADS). undici is the npm package: the first HTTP
// connection uses Node's own (behind `fetch`), whose start-up Node decides (Node 22 sets its
// global dispatcher while the platform's modules load, Node 20 on first use). Node loads the
// packages' bundles, where each of those is a chunk named after its module (`streamable-<hash>.js`).
//   node --import ./recordLoads.mjs whatLoads.mjs <fake server bin> <url of a Streamable HTTP server>
import { connect } from "@mcp-effect/node";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as Path from "node:path";

const [fakeServer, url] = process.argv.slice(2);
const cache = createRequire(import.meta.url).cache;
const watched = {
  streamable: /\/streamable(-\w+)?\.js$/m,
  legacySse: /\/legacySse(-\w+)?\.js$/m,
  oauthFlows: /\/oauth(-\w+)?\.js$/m,
  oauth4webapi: /\/oauth4webapi\//m,
};
const loaded = () => {
  const urls = readFileSync(process.env.RECORD_LOADS, "utf8");
  const undici = Object.keys(cache).some((file) => file.includes(`${Path.sep}node_modules${Path.sep}undici${Path.sep}`))
    || urls.includes("/node_modules/undici/");
  const names = Object.keys(watched).filter((name) => watched[name].test(urls));
  const bundles = ["client", "node"].every((pkg) => urls.includes(`/${pkg}/bundle/`));
  return `bundles=${bundles} undici=${undici} modules=${names.join(",") || "none"}`;
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
