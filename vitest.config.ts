import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Long sweeps run with `npm run fuzz` (vitest.fuzz.config.ts).
    exclude: ["**/node_modules/**", "**/*.fuzz.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default", "./test/plain-summary-reporter.ts"],
  },
});
