// Bounded turns (issue 24): peak RSS of `armature exec` given one turn of 10,000 tool_use blocks
// (Read of a small file; calls past the 1,000-call limit are answered with an error, unrun).
// Baseline: the same process given a turn of one call.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report } from "./util.js";

const dir = await mkdtemp(join(tmpdir(), "armature-turn-limit-"));
await writeFile(join(dir, "small.txt"), "one\ntwo\nthree\n");
// Prints the process's peak RSS (kB) on stderr when it exits.
const probe = join(dir, "maxrss.mjs");
await writeFile(probe, `process.on("exit", () => process.stderr.write("MAXRSS " + process.resourceUsage().maxRSS + "\\n"));\n`);

async function peakMB(n) {
  const turn = Array.from({ length: n }, (_, i) => ({ type: "tool_use", id: `toolu_${i}`, name: "Read", input: { file_path: join(dir, "small.txt") } }));
  const file = join(dir, `turn-${n}.json`);
  await writeFile(file, JSON.stringify(turn));
  const out = spawnSync(process.execPath, ["--import", probe, "bin/armature.js", "exec", file, "--cwd", dir], { encoding: "utf8", maxBuffer: 1 << 30 });
  const rss = /MAXRSS (\d+)/.exec(out.stderr);
  if (out.status !== 0 || !rss) throw new Error(`exec failed (${out.status}): ${out.stderr.slice(0, 500)}`);
  const results = JSON.parse(out.stdout.trim().split("\n").pop()).content;
  const errors = results.filter((r) => r.is_error).length;
  return { mb: Number(rss[1]) / 1024, results: results.length, errors };
}

const one = await peakMB(1);
const big = await peakMB(10_000);
report({ name: "armature exec, one turn of 10,000 tool_use blocks: peak RSS", value: big.mb, unit: "MB", baseline: one.mb, baselineName: "a turn of one call", target: "≤ 200 MB", ok: big.mb <= 200 });
console.log(`  ${big.results} results, ${big.errors} of them errors for the calls past the limit`);
await rm(dir, { recursive: true, force: true });
