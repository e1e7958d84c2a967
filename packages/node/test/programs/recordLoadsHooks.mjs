// Module hooks of recordLoads.mjs.
import { appendFileSync } from "node:fs";

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.RECORD_LOADS, `${url}\n`);
  return nextLoad(url, context);
}
