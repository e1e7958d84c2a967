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

export default tseslint.config(
  { ignores: ["**/dist/**", "**/bundle/**", "**/node_modules/**", "**/*.d.ts", ".bench/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: globals.node } },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  },
  { files: ["scripts/**/*.mjs", "**/*.ts"], rules: { "@effect/dprint": ["error", { config: dprintConfig }] } },
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "no-restricted-imports": ["error", {
        paths: [
          { name: "effect", message: "import modules by path, e.g. effect/Effect" },
          { name: "@effect/platform", message: "import modules by path, e.g. @effect/platform/Command" },
        ],
      }],
    },
  },
);
