import { defineConfig, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// The Chromium tests: a step of `npm test` of their own (scripts/test.mjs), never in the unit
// workspace; they load the built browser bundle, so `npm run build` comes first.
export default mergeConfig(
  shared,
  defineConfig({
    // One file at a time: the first installs Chromium when it is missing (one apt-get at a time).
    test: { name: "browser", root: import.meta.dirname, include: ["test-browser/**/*.test.ts"], fileParallelism: false }
  })
)
