import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "examples/**", "test/fixtures/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setImmediate: "readonly", URL: "readonly", AbortController: "readonly", AbortSignal: "readonly", performance: "readonly", TextDecoder: "readonly", TextEncoder: "readonly", queueMicrotask: "readonly", setInterval: "readonly", clearInterval: "readonly", structuredClone: "readonly", fetch: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-control-regex": "off",
    },
  },
);
