// A command hook's overhead: runner.run() for one PreToolUse hook against a bare spawn of the
// same command (bash -c, JSON on stdin, output read). Target: ≤ 15 ms over the bare spawn.
// Also: the cost of has(), the check every tool call pays. (A negative overhead is noise: the two are interleaved.)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createHookRunner } from "../dist/bundle/index.js";
import { median, report, timeRuns } from "./util.js";

const dir = mkdtempSync(join(tmpdir(), "armature-hooks-bench-"));
const hook = join(dir, "hook.sh");
writeFileSync(hook, `#!/usr/bin/env bash\ncat > /dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'\n`);
chmodSync(hook, 0o755);

const input = {
  session_id: "bench",
  transcript_path: join(dir, "transcript.jsonl"),
  cwd: dir,
  hook_event_name: "PreToolUse",
  permission_mode: "default",
  tool_name: "Bash",
  tool_input: { command: "git status" },
  tool_use_id: "toolu_bench",
};
const body = JSON.stringify(input);

function bareSpawn() {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", hook], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (out += c));
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve(JSON.parse(out)));
    child.stdin.end(body);
  });
}

const runner = createHookRunner([{ source: "bench", config: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] } }], { projectDir: dir });
async function viaRunner() {
  const out = await runner.run("PreToolUse", input, "Bash");
  if (out.permissionDecision !== "allow" || out.errors.length > 0) throw new Error(`unexpected outcome ${JSON.stringify(out)}`);
}

// Interleave the two so machine noise hits both alike.
const bare = [];
const hooked = [];
for (let round = 0; round < 5; round++) {
  bare.push(...(await timeRuns(bareSpawn, { runs: 10, warmup: 2 })));
  hooked.push(...(await timeRuns(viaRunner, { runs: 10, warmup: 2 })));
}
const bareMs = median(bare);
const hookMs = median(hooked);
const overhead = hookMs - bareMs;
report({ name: "command hook (run) median", value: hookMs, unit: "ms", baseline: bareMs, baselineName: "bare spawn", target: "≤ bare + 15 ms", ok: overhead <= 15 });
report({ name: "command hook overhead over a bare spawn", value: overhead, unit: "ms", target: "≤ 15 ms", ok: overhead <= 15 });

// has(): 50 settings groups with exact and regex matchers, a tool name that matches none.
const groups = Array.from({ length: 50 }, (_, i) => ({ matcher: i % 2 ? `Tool${i}|Other${i}` : `^mcp__srv${i}__.*`, hooks: [{ type: "command", command: `true ${i}` }] }));
const big = createHookRunner([{ source: "bench", config: { PreToolUse: groups } }], { projectDir: dir });
const empty = createHookRunner([], { projectDir: dir });
const N = 200_000;
let hits = 0;
let t0 = performance.now();
for (let i = 0; i < N; i++) if (big.has("PreToolUse", "Read")) hits++;
const hasNs = ((performance.now() - t0) * 1e6) / N;
t0 = performance.now();
for (let i = 0; i < N; i++) if (empty.has("PreToolUse", "Read")) hits++;
const emptyNs = ((performance.now() - t0) * 1e6) / N;
if (hits !== 0) throw new Error("has() matched unexpectedly");
report({ name: "has() with 50 groups, no match", value: hasNs, unit: "ns", baseline: emptyNs, baselineName: "no hooks", target: "≤ 5000 ns", ok: hasNs <= 5000 });

rmSync(dir, { recursive: true, force: true });
