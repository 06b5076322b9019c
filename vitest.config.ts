import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Long fuzzing runs have their own config (vitest.fuzz.config.ts, `npm run fuzz`).
    exclude: ["**/node_modules/**", "**/*.fuzz.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["./test/setup-env.ts", "./test/setup-bash-grammar.ts"],
    reporters: ["default", "./test/plain-summary-reporter.ts"],
  },
});
