import { defineConfig } from "vitest/config";

// `npm run fuzz`: the long sweeps (files named *.fuzz.test.ts), kept out of `npm test`.
export default defineConfig({
  test: {
    include: ["src/**/*.fuzz.test.ts", "test/**/*.fuzz.test.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
    pool: "forks",
    setupFiles: ["./test/setup-env.ts", "./test/setup-bash-grammar.ts"],
  },
});
