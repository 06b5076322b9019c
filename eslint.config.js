import js from "@eslint/js";
import tseslint from "typescript-eslint";

// Layers (issue 19). src/shell reads commands (grammar, words, option tables, argv) and hands out
// facts; it sits below src/permissions and beside src/tools. Outside src/shell only its fact-level
// modules are imported (never the parser, words, getopt, option tables or tokenizers), and
// nothing outside src/shell reads a command's argv itself (no `.argv`, `.effective`, effectiveArgv): it reads facts.
// src/permissions and src/session never import src/tools. Tests may cross layers.
const SHELL_PUBLIC = ["index", "bash-rules", "shared", "glob-match", "glob-expand", "git-repo", "project-programs", "tree-contents", "tree-plan", "command-facts", "rule-may-match"];
const shellInternals = {
  group: ["**/shell/**", ...SHELL_PUBLIC.map((m) => `!**/shell/${m}.js`)],
  message: "Outside src/shell, import the shell's facts (src/shell/index.ts and its fact modules), not its parser, words or option tables.",
};
const noTools = { group: ["**/tools/**"], message: "src/permissions and src/session are below src/tools: move what both need down (src/fs, src/tasks, src/registry)." };
const noPermissions = { group: ["**/permissions/**"], message: "src/sandbox is below src/permissions (the shell reaches it): move what both need down (src/fs)." };
const restrict = (...patterns) => ["error", { patterns }];
const argvMessage = "Outside src/shell, read a command's facts (commandFacts in src/shell/command-facts.ts), not its argv or text: add what you need to the facts in src/shell.";
const argvAccess = [
  // `process.argv` is the CLI's own command line, not a shell command's.
  { selector: "MemberExpression[property.name='argv']:not([object.name='process'])", message: argvMessage },
  { selector: "MemberExpression[property.name='effective']", message: argvMessage },
  { selector: "CallExpression[callee.name='effectiveArgv']", message: argvMessage },
];
const TESTS = ["**/*.test.ts"];

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
  {
    files: ["src/**/*.ts"],
    ignores: ["src/shell/**", "src/permissions/**", "src/session/**", ...TESTS],
    rules: { "no-restricted-imports": restrict(shellInternals) },
  },
  {
    files: ["src/permissions/**/*.ts", "src/session/**/*.ts"],
    ignores: TESTS,
    rules: { "no-restricted-imports": restrict(shellInternals, noTools) },
  },
  {
    // Every module outside src/shell reads the shell's facts (src/shell/command-facts.ts), not a
    // command's argv or text. Not a command's argv, so not covered: `process.argv` (the CLI's own,
    // excluded by the selector) and the sandbox's bwrap argument lists (local variables).
    files: ["src/**/*.ts"],
    ignores: ["src/shell/**", ...TESTS],
    rules: { "no-restricted-syntax": ["error", ...argvAccess] },
  },
  {
    // The shell starts its helpers through the sandbox's engine process: the sandbox stays below the permission engine.
    files: ["src/sandbox/**/*.ts"],
    ignores: TESTS,
    rules: { "no-restricted-imports": restrict(shellInternals, noPermissions) },
  },
  {
    files: ["src/shell/**/*.ts"],
    ignores: TESTS,
    rules: {
      "no-restricted-imports": restrict({
        group: ["**/permissions/**", "**/tools/**", "**/session/**"],
        message: "src/shell is the bottom layer of the shell model: it may not import src/permissions, src/tools or src/session.",
      }),
    },
  },
);
