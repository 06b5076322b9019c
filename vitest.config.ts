import { defineConfig } from "vitest/config";

// The adapters' own tests run twice: against the peers' current majors (the devDependencies `ai`
// and `@openai/agents`) and, in the `previous-peers` project, against the oldest supported ones
// (`ai-v6`, `openai-agents-v0.14`, npm aliases), with the adapters' imports redirected to them.
// (The projects do not `extends: true`: an extended project's `include` adds to the root's.)
const ADAPTER_TESTS = ["src/ai-sdk/**/*.test.ts", "src/openai-agents/**/*.test.ts"];
const common = {
  // Long fuzzing runs have their own config (vitest.fuzz.config.ts, `npm run fuzz`), and so do
  // the installs beside each SDK major (vitest.ecosystem.config.ts, `npm run test:ecosystem`).
  exclude: ["**/node_modules/**", "**/*.fuzz.test.ts", "test/ecosystem.test.ts"],
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  setupFiles: ["./test/setup-env.ts", "./test/setup-bash-grammar.ts"],
};

export default defineConfig({
  test: {
    reporters: ["default", "./test/plain-summary-reporter.ts"],
    globalSetup: ["./test/global-teardown.ts"],
    projects: [
      { test: { ...common, name: "armature", include: ["src/**/*.test.ts", "test/**/*.test.ts"], env: { ARMATURE_TEST_PEERS: "current" } } },
      {
        test: {
          ...common,
          name: "previous-peers",
          include: ADAPTER_TESTS,
          env: { ARMATURE_TEST_PEERS: "previous" },
          alias: [
            { find: /^ai$/, replacement: "ai-v6" },
            { find: /^ai\/test$/, replacement: "ai-v6/test" },
            { find: /^@openai\/agents$/, replacement: "openai-agents-v0.14" },
          ],
        },
      },
    ],
  },
});
