import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Tests never read or write the user's own ~/.armature (settings, trust.json): each test file gets its own.
// Named after the run (test/global-teardown.ts removes the run's once more at its end).
const configDir = mkdtempSync(join(tmpdir(), `armature-test-config-${process.env.ARMATURE_TEST_RUN ?? "solo"}-`));
process.env.ARMATURE_CONFIG_DIR = configDir;
const removeConfigDir = (): void => rmSync(configDir, { recursive: true, force: true });
afterAll(removeConfigDir);
// Again as the test file's process ends: a session or child that closes late may have written
// into it after afterAll (a crash record, a trust store), which would leave it in $TMPDIR.
process.on("exit", removeConfigDir);

// The tests' commits need an author on a machine with no git identity configured (an empty HOME,
// no ~/.gitconfig): through the environment, it reaches the git the tests run themselves and the
// git their commands run through armature's Bash tool or CLI (they inherit this environment).
Object.assign(process.env, {
  GIT_AUTHOR_NAME: "armature tests",
  GIT_AUTHOR_EMAIL: "tests@armature.invalid",
  GIT_COMMITTER_NAME: "armature tests",
  GIT_COMMITTER_EMAIL: "tests@armature.invalid",
});
