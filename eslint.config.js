import effect from "@effect/eslint-plugin";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const dprintConfig = {
  indentWidth: 2,
  lineWidth: 120,
  semiColons: "asi",
  quoteStyle: "alwaysDouble",
  trailingCommas: "never",
  operatorPosition: "maintain",
  "arrowFunction.useParentheses": "force",
};

// No-restricted-imports options replace each other per file, so every layer rule repeats these.
const barrels = [
  { name: "effect", message: "import modules by path, e.g. effect/Effect" },
  { name: "@effect/platform", message: "import modules by path, e.g. @effect/platform/Command" },
];

// The client's layers look only down: a folder never imports one above it (the diagram in
// docs/architecture.md). scripts/test/layers.test.ts checks that a violating import fails.
const client = "packages/client/src";
const above = (...folders) => folders.flatMap((f) => [`**/internal/${f}/*`, `../${f}/*`, `./${f}/*`]);
const layers = [
  {
    files: [`${client}/internal/wire/**/*.ts`],
    below: "the wire",
    forbidden: above("http", "rpc", "stdio", "connection", "tasks", "client", "auth", "jsonSchema"),
  },
  {
    files: [`${client}/internal/{http,rpc,stdio}/**/*.ts`],
    below: "a transport or the RPC peer",
    forbidden: above("connection", "tasks", "client"),
  },
  {
    files: [`${client}/internal/tasks/**/*.ts`],
    below: "the tasks driver",
    forbidden: above("connection", "client"),
  },
  {
    files: [`${client}/internal/connection/**/*.ts`],
    below: "the connection",
    forbidden: above("client"),
  },
  {
    files: [`${client}/{Protocol,RpcPeer,Transport,Http,StreamableHttp,Sse,Stdio,InMemory}.ts`],
    below: "the protocol, the RPC peer or a transport",
    forbidden: above("connection", "tasks", "client"),
  },
  {
    files: [`${client}/internal/*.ts`],
    ignores: [`${client}/internal/mcpConfig.ts`],
    below: "a shared leaf",
    forbidden: ["./*/*"],
  },
];

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/bundle/**",
      "packages/client/browser/**",
      ".browser-artifacts/**",
      "**/node_modules/**",
      "**/*.d.ts",
      ".bench/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: globals.node } },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  { files: ["scripts/**/*.mjs", "**/*.ts"], rules: { "@effect/dprint": ["error", { config: dprintConfig }] } },
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "no-restricted-imports": ["error", { paths: barrels }],
    },
  },
  ...layers.map(({ files, ignores = [], below, forbidden }) => ({
    files,
    ignores,
    rules: {
      "no-restricted-imports": ["error", {
        paths: barrels,
        patterns: [{
          group: forbidden,
          message: `${below} sits below it: layers only look down (docs/architecture.md)`,
        }],
      }],
    },
  })),
);
