// `armature exec` on a turn of 4 Reads of small files: the tool phase (target ≤ 10 ms) and the
// process start, reported apart. Baseline: the same 4 files read with fs.readFile directly.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { builtinTools } from "../dist/bundle/index.js";
import { median, report } from "./util.js";

if (!builtinTools().some((t) => t.name === "Read")) {
  console.log("exec: skipped (the Read tool is not registered in this build)");
  process.exit(0);
}
const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "armature.js");
const dir = mkdtempSync(join(tmpdir(), "armature-bench-exec-"));
const files = [0, 1, 2, 3].map((i) => {
  const f = join(dir, `f${i}.ts`);
  writeFileSync(f, Array.from({ length: 50 }, (_, l) => `export const v${l} = ${l * i};`).join("\n"));
  return f;
});
const turn = JSON.stringify(files.map((f, i) => ({ type: "tool_use", id: `r${i}`, name: "Read", input: { file_path: f } })));

const phases = [];
const startups = [];
const walls = [];
for (let run = 0; run < 12; run++) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, "exec", "-", "--cwd", dir], { input: turn, encoding: "utf8", env: { ...process.env, ARMATURE_TIMING: "1" } });
  walls.push(performance.now() - t0);
  if (r.status !== 0) throw new Error(r.stderr);
  const lines = r.stderr.trim().split("\n").map((l) => JSON.parse(l));
  startups.push(lines[0].startupMs);
  phases.push(lines[1].toolPhaseMs);
}
const direct = [];
for (let run = 0; run < 50; run++) {
  const t0 = performance.now();
  for (const f of files) readFileSync(f, "utf8");
  direct.push(performance.now() - t0);
}
const phase = median(phases.slice(2));
report({ name: "exec, a turn of 4 Reads: tool phase", value: phase, unit: "ms", baseline: median(direct), baselineName: "4 × fs.readFileSync", target: "≤ 10 ms", ok: phase <= 10 });
console.log(`  process start to first turn: ${median(startups).toFixed(1)} ms; whole process: ${median(walls).toFixed(1)} ms (reported apart)`);
rmSync(dir, { recursive: true, force: true });
