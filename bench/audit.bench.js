// `armature permissions audit` on 100,000 recorded calls (target ≤ 10 s, peak RSS ≤ 200 MB),
// printed beside `permissions check --batch` deciding the same calls (its baseline: the
// decisions alone, one JSON line in and out per call).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { report } from "./util.js";

const N = Number(process.env.ARMATURE_BENCH_AUDIT_CALLS ?? 100_000);
const bin = fileURLToPath(new URL("../bin/armature.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "armature-bench-audit-"));
const project = join(dir, "project");
mkdirSync(join(project, "src"), { recursive: true });
writeFileSync(join(project, "src", "a.ts"), "export const a = 1;\n");

// A transcript in the reference's shape: each call in an assistant entry, its result in a user
// entry, with the everyday mix of an agent's session (mostly shell and reads, some edits).
const commands = ["git status", "npm test", "ls -la src", "rg -n TODO src", "git diff --stat", "npm run build", "rm -rf dist", "git push origin main", "cat package.json | jq .scripts", "python3 -m pytest -q"];
const transcript = join(dir, "session.jsonl");
const batch = join(dir, "batch.jsonl");
const t = createWriteStream(transcript);
const b = createWriteStream(batch);
for (let i = 0; i < N; i++) {
  const k = i % 20;
  const [name, input] =
    k < 10 ? ["Bash", { command: commands[k], description: "step" }] : k < 15 ? ["Read", { file_path: join(project, "src", `f${k}.ts`) }] : k < 18 ? ["Edit", { file_path: join(project, "src", "a.ts"), old_string: "1", new_string: "2" }] : ["Grep", { pattern: "TODO", path: project }];
  const id = `toolu_${i}`;
  const meta = { sessionId: "bench", version: "2.1.332", userType: "external", cwd: project, timestamp: "2026-12-01T00:00:00Z" };
  t.write(`${JSON.stringify({ ...meta, type: "assistant", uuid: `a${i}`, message: { role: "assistant", content: [{ type: "tool_use", id, name, input }] } })}\n`);
  t.write(`${JSON.stringify({ ...meta, type: "user", uuid: `u${i}`, permissionDecision: { decision: "accept", source: "config", reasonType: "mode" }, message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] } })}\n`);
  b.write(`${JSON.stringify({ tool: name, input, cwd: project })}\n`);
}
await Promise.all([new Promise((r) => t.end(r)), new Promise((r) => b.end(r))]);

/** Wall time and peak RSS of one CLI run (GNU time's %M where present). */
function run(args) {
  const time = "/usr/bin/time";
  const withTime = spawnSync(time, ["--version"], { encoding: "utf8" }).status === 0;
  const t0 = performance.now();
  const r = withTime
    ? spawnSync(time, ["-f", "MAXRSS_KB %M", process.execPath, bin, ...args], { encoding: "utf8", maxBuffer: 1 << 30 })
    : spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 3 && r.status !== 4) throw new Error(`armature ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const rss = /MAXRSS_KB (\d+)/.exec(r.stderr ?? "");
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : undefined, out: r.stdout };
}

const policy = ["--cwd", project, "--deny", "Bash(rm *)", "--deny", "Bash(git push *)", "--allow", "Bash(npm test *)"];
const checked = run(["permissions", "check", "--batch", batch, ...policy]);
const audited = run(["permissions", "audit", transcript, ...policy, "--json"]);
const r = JSON.parse(audited.out);
if (r.calls !== N) throw new Error(`audit counted ${r.calls} calls, expected ${N}`);
console.log(`  ${N} calls: allow ${r.decisions.allow}, ask ${r.decisions.ask}, deny ${r.decisions.deny}; would have stopped ${r.wouldHaveStopped.count}`);
report({ name: `permissions audit of ${N} recorded calls (wall)`, value: audited.ms, unit: "ms", baseline: checked.ms, baselineName: "permissions check --batch, same calls", target: "≤ 10,000 ms", ok: audited.ms <= 10_000 });
report({ name: "per call", value: (audited.ms * 1000) / N, unit: "µs" });
if (audited.rssMb !== undefined) {
  report({ name: "peak RSS of the audit", value: audited.rssMb, unit: "MB", baseline: checked.rssMb, baselineName: "check --batch", target: "≤ 200 MB", ok: audited.rssMb <= 200 });
}
rmSync(dir, { recursive: true, force: true });
