#!/usr/bin/env node
// Lint step: our tool and parameter descriptions must not repeat the reference agent's wording.
// The checker lives in the shared folder beside the clone (../shared/tools/prose-overlap.py); where
// that folder or python3 is missing the step says so and passes, so a bare clone still lints.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const checker = join(root, "..", "shared", "tools", "prose-overlap.py");
if (!existsSync(checker)) {
  console.log(`prose-overlap: skipped (${checker} not found)`);
  process.exit(0);
}
const run = spawnSync("python3", [checker, "src"], { cwd: root, stdio: "inherit" });
if (run.error) {
  console.log(`prose-overlap: skipped (python3 could not run: ${run.error.message})`);
  process.exit(0);
}
process.exit(run.status ?? 1);
