// The suite removes what it creates: each test file's config dir (test/setup-env.ts) is removed
// when the file ends, and once more here when the whole run has ended — a child process a test
// started may still write into it (a crash record, a trust store) after its file is done.
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TEST_CONFIG_PREFIX = "armature-test-config-";

export function setup(): () => Promise<void> {
  const run = randomBytes(4).toString("hex");
  // Inherited by the test processes: their config dirs carry this run's name.
  process.env.ARMATURE_TEST_RUN = run;
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const prefix = `${TEST_CONFIG_PREFIX}${run}-`;
    for (const name of readdirSync(tmpdir())) if (name.startsWith(prefix)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  };
}
