// The long stdio fuzz of `armature mcp serve`: many seeds, each a fresh server fed seeded
// garbage and real requests; every server must still be running and answer a ping at the end.
// ARMATURE_FUZZ_SEEDS seeds (default 10) × ARMATURE_FUZZ_STDIO_MESSAGES lines (default 2,000).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { fuzzStdioServer } from "./raw-stdio.js";

const dir = mkdtempSync(join(tmpdir(), "armature-stdio-fuzz-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("mcp serve over stdio: 0 exits over every seed", async () => {
  const seeds = Number(process.env.ARMATURE_FUZZ_SEEDS ?? 10);
  const count = Number(process.env.ARMATURE_FUZZ_STDIO_MESSAGES ?? 2_000);
  const failures: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const r = await fuzzStdioServer(dir, seed, count);
    if (r.exited || !r.pingAnswered) failures.push(`seed ${seed}: exited=${r.exited} ping=${r.pingAnswered} ${r.stderr.slice(-500)}`);
  }
  console.log(`mcp serve stdio fuzz: ${seeds} seeds × ${count} lines, ${failures.length} servers exited or stopped answering`);
  expect(failures).toEqual([]);
});
