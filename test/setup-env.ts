import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Tests never read or write the user's own ~/.armature (settings, trust.json): each test file gets its own.
const configDir = mkdtempSync(join(tmpdir(), "armature-test-config-"));
process.env.ARMATURE_CONFIG_DIR = configDir;
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
