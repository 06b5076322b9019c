import { defineConfig } from "vitest/config";

// `npm run test:ecosystem`: the packed package installed beside each supported major of the SDKs
// (and `latest`) in empty projects (test/ecosystem.test.ts), kept out of `npm test` for the
// installs' time. .ci/run runs it after the suite.
export default defineConfig({
  test: {
    include: ["test/ecosystem.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: "forks",
    setupFiles: ["./test/setup-env.ts"],
    reporters: ["default", "./test/plain-summary-reporter.ts"],
  },
});
