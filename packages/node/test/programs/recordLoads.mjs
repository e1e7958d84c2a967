// Registered with `--import`: records the URL of every module loaded, one line each, in the file
// named by RECORD_LOADS (the hooks run on the loader's thread, so they append to a file).
import { register } from "node:module";

register(new URL("./recordLoadsHooks.mjs", import.meta.url));
