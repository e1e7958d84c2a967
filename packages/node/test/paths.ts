import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** The built fake server executable (`npm test` builds before testing). */
export const fakeServerBin = path.join(root, "packages/testing/bundle/fake-server.js")
export const everythingBin = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
export const filesystemBin = path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
