// Start-up, measured in fresh processes (median of 5 each), beside `node -e 0` as the baseline:
// import + createSession (≤ 150 ms), the first turn of 10 × 50 ms concurrency-safe tools
// (≤ 70 ms), `exec` of one Read turn (≤ 350 ms wall), `exec` of one Bash `echo hi` turn
// (≤ 450 ms wall) and `permissions check` of a Read call (≤ 300 ms wall). The warm figure beside
// each cold one is the same work again in the same process.
// ARMATURE_BENCH_ROOT=/path/to/another/checkout measures that build instead (before/after).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median, report } from "./util.js";

const RUNS = 5;
const root = resolve(process.env.ARMATURE_BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
// The file the package's import resolves to (package.json exports), as a user gets it.
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const entry = pathToFileURL(join(root, pkg.exports?.["."]?.import ?? pkg.main)).href;
const bin = join(root, "bin", "armature.js");
const dir = mkdtempSync(join(tmpdir(), "armature-bench-startup-"));
const file = join(dir, "a.txt");
writeFileSync(file, "one\ntwo\nthree\n");

/**
 * CPU time (user + system) of the waited-for children so far, in ms (Linux /proc; 10 ms
 * resolution), or undefined. Less sensitive than wall time to a machine shared with other work.
 */
function childrenCpuMs() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** Wall time of a fresh process, in ms; throws when it fails. */
function wall(args, input) {
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { input, encoding: "utf8", cwd: dir });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const c1 = childrenCpuMs();
  return { ms, cpu: c0 === undefined || c1 === undefined ? undefined : c1 - c0, stdout: r.stdout };
}

function medianWall(args, input) {
  const times = [];
  const cpus = [];
  let stdout = "";
  for (let i = 0; i < RUNS; i++) {
    const r = wall(args, input);
    times.push(r.ms);
    if (r.cpu !== undefined) cpus.push(r.cpu);
    stdout = r.stdout;
  }
  return { ms: median(times), cpu: cpus.length > 0 ? median(cpus) : undefined, stdout };
}

const cpuNote = (r) => (r.cpu === undefined ? "" : ` | process CPU ${r.cpu} ms (node -e 0: ${baselineCpu} ms)`);

/** Runs `body` (an ES module's text) in fresh processes; it prints one JSON line of figures. */
function medianFigures(body) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(JSON.parse(wall(["--input-type=module", "-e", body]).stdout.trim().split("\n").pop()));
  const out = {};
  for (const key of Object.keys(runs[0])) out[key] = median(runs.map((r) => r[key]));
  return out;
}

const baselineRun = medianWall(["-e", "0"]);
const baseline = baselineRun.ms;
const baselineCpu = baselineRun.cpu;
const base = { baseline, baselineName: "node -e 0", unit: "ms" };

// import + createSession, then a second createSession (warm).
const session = medianFigures(`
  const t0 = performance.now();
  const m = await import(${JSON.stringify(entry)});
  m.createSession({ cwd: ${JSON.stringify(dir)}, tools: m.builtinTools() });
  const cold = performance.now() - t0;
  const t1 = performance.now();
  m.createSession({ cwd: ${JSON.stringify(dir)}, tools: m.builtinTools() });
  console.log(JSON.stringify({ cold, warm: performance.now() - t1 }));
`);
report({ name: "import + createSession (in a fresh process)", value: session.cold, ...base, target: "≤ 150 ms", ok: session.cold <= 150 });
console.log(`  cold ${session.cold.toFixed(1)} ms | warm (a second createSession) ${session.warm.toFixed(2)} ms`);

// The first turn of 10 concurrency-safe 50 ms tools, then a second turn (warm).
const turns = medianFigures(`
  const m = await import(${JSON.stringify(entry)});
  const { z } = await import(${JSON.stringify(pathToFileURL(join(root, "node_modules", "zod", "index.js")).href)});
  const nap = m.buildTool({ name: "Nap", description: "sleeps 50 ms", inputSchema: z.object({}), isReadOnly: () => true,
    isConcurrencySafe: () => true, call: () => new Promise((r) => setTimeout(() => r({ data: "ok" }), 50)) });
  const s = m.createSession({ cwd: ${JSON.stringify(dir)}, tools: [...m.builtinTools(), nap] });
  const blocks = (t) => Array.from({ length: 10 }, (_, i) => ({ type: "tool_use", id: t + i, name: "Nap", input: {} }));
  const t0 = performance.now();
  await s.runTurn(blocks("a"));
  const cold = performance.now() - t0;
  const t1 = performance.now();
  await s.runTurn(blocks("b"));
  console.log(JSON.stringify({ cold, warm: performance.now() - t1 }));
`);
report({ name: "first turn of 10 × 50 ms concurrency-safe tools", value: turns.cold, ...base, target: "≤ 70 ms", ok: turns.cold <= 70 });
console.log(`  cold (first turn) ${turns.cold.toFixed(1)} ms | warm (second turn) ${turns.warm.toFixed(1)} ms`);

// exec: whole processes. Warm: the same turn twice in one process, the second line's share.
const readTurn = JSON.stringify([{ type: "tool_use", id: "r1", name: "Read", input: { file_path: file } }]);
const bashTurn = JSON.stringify([{ type: "tool_use", id: "b1", name: "Bash", input: { command: "echo hi" } }]);
for (const [name, turn, target, args] of [
  ["exec, one Read turn (wall)", readTurn, 350, []],
  ["exec, one Bash `echo hi` turn (wall)", bashTurn, 450, ["--allow", "Bash(echo *)"]],
]) {
  const once = medianWall([bin, "exec", "-", ...args], `${turn}\n`);
  if (!once.stdout.includes('"tool_result"')) throw new Error(`${name}: no tool_result in ${once.stdout}`);
  if (turn === bashTurn && !once.stdout.includes("hi")) throw new Error(`${name}: unexpected ${once.stdout}`);
  const twice = medianWall([bin, "exec", "-", ...args], `${turn}\n${turn.replaceAll('"r1"', '"r2"').replaceAll('"b1"', '"b2"')}\n`);
  report({ name, value: once.ms, ...base, target: `≤ ${target} ms`, ok: once.ms <= target });
  console.log(`  cold ${once.ms.toFixed(0)} ms | warm (one more turn in the same process) ${Math.max(0, twice.ms - once.ms).toFixed(0)} ms${cpuNote(once)}`);
}

const check = medianWall([bin, "permissions", "check", "--tool", "Read", "--input", JSON.stringify({ file_path: file })]);
report({ name: "permissions check of a Read call (wall)", value: check.ms, ...base, target: "≤ 300 ms", ok: check.ms <= 300 });
console.log(`  cold ${check.ms.toFixed(0)} ms${cpuNote(check)}`);

rmSync(dir, { recursive: true, force: true });
