// Bash command analysis, the frozen facts of every subcommand included (issue 19): a 1,000-line
// script (target ≤ 50 ms warm) and a typical one-liner after warm-up (target ≤ 0.15 ms), each
// with its cold figure (the first analysis in a fresh process) beside it. Also prints the one-time cost of loading the
// grammar (WASM), which a process pays on its first Bash command (never at import), and where
// the script's analysis time goes: the tree-sitter parse, the copy of the tree into JS, the
// walk, and the per-command facts (with the garbage collection they cause).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Language, Parser } from "web-tree-sitter";
// tsc's modules, not the bundle: the split below reads the analysis's internals, which must be
// the same module instances as the entry's (the code and its speed are the same either way).
import { analyzeCommand, ensureBashGrammar } from "../dist/index.js";
import { newWalkState } from "../dist/shell/command.js";
import { bashParseCounts, parseBashScript, parseBashScriptTreeSitter, parseBashTreeOnly } from "../dist/shell/parser.js";
import { judgeShellState } from "../dist/shell/shell-state.js";
import { walkScript } from "../dist/shell/walk.js";
import { median, report } from "./util.js";

const l0 = performance.now();
await ensureBashGrammar();
const loadMs = performance.now() - l0;
const f0 = performance.now();
analyzeCommand("echo hi");
const firstMs = performance.now() - f0;
// The stall the issue measured: timers held after the first parses while V8 recompiled the grammar.
const s0 = performance.now();
await Promise.all(Array.from({ length: 10 }, () => new Promise((r) => setTimeout(r, 50))));
const stallMs = performance.now() - s0 - 50;
report({ name: "bash grammar load (tree-sitter WASM, once per process, on first use)", value: loadMs, unit: "ms" });
console.log(`  first analysis after the load: ${firstMs.toFixed(1)} ms; 10 × 50 ms timers right after it ran ${stallMs.toFixed(0)} ms late`);

const lines = [
  "# build and report",
  "",
  'set -euo pipefail',
  'for f in src/*.ts; do wc -l "$f" | awk \'{print $1}\'; done',
  'if [ -f package.json ]; then jq -r .name package.json; else echo "no package"; fi',
  'git log --oneline -20 | grep -i fix | head -5',
  'find . -name "*.md" -not -path "./node_modules/*" | xargs grep -l TODO || true',
  'count=$(ls -1 | wc -l); echo "files: $count"',
  'sed -n "1,20p" README.md | tr a-z A-Z',
  'case "$1" in start) echo start;; stop) echo stop;; *) echo usage;; esac',
  'timeout 5 curl -fsS http://127.0.0.1:8080/health > /dev/null 2>&1 && echo up',
];
const script = Array.from({ length: 1000 }, (_, i) => lines[i % lines.length]).join("\n");
const scriptLines = script.split("\n").length;
const oneLiner = "git log --oneline -10 | grep -i fix && cat package.json | jq -r .version";
if (process.env.ARMATURE_BENCH_WARM === "1") {
  // Warm figures only, measured as below (the parent runs this with ARMATURE_BASH_FAST_PARSE=0:
  // tree-sitter for every parse).
  console.log(`warm ${timed(() => analyzeCommand(script))} ${oneLinerMs()}`);
  process.exit(0);
}
if (process.env.ARMATURE_BENCH_COLD === "1") {
  const o0 = performance.now();
  analyzeCommand(oneLiner);
  const oneMs = performance.now() - o0;
  const c0 = performance.now();
  analyzeCommand(script);
  console.log(`cold ${performance.now() - c0} ${oneMs}`);
  process.exit(0);
}

/** Median ms of `runs` calls of `fn` after `warmup` calls. */
/** The one-liner's median ms per call over 10 batches of 2,000, after 2,000 calls of warm-up. */
function oneLinerMs() {
  for (let i = 0; i < 2000; i++) analyzeCommand(oneLiner);
  const batches = [];
  for (let b = 0; b < 10; b++) {
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) analyzeCommand(oneLiner);
    batches.push((performance.now() - t0) / 2000);
  }
  return median(batches);
}

function timed(fn, { warmup = 40, runs = 30 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

// Cold: a fresh process loads the grammar, analyses `echo hi` (as a session's first Bash call
// would), then the script: its first analysis, before the JIT has seen the analysis code run.
const coldRuns = [];
const coldOneRuns = [];
for (let i = 0; i < 5; i++) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, ARMATURE_BENCH_COLD: "1" },
    encoding: "utf8",
  });
  const [, script, one] = /^cold (\S+) (\S+)/m.exec(r.stdout ?? "") ?? [];
  const ms = Number(script);
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`cold run failed: ${r.stderr}`);
  coldRuns.push(ms);
  coldOneRuns.push(Number(one));
}
const coldMs = median(coldRuns);

// The same analysis with tree-sitter for every parse (the fast parser off), for the ratio.
const slow = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
  env: { ...process.env, ARMATURE_BENCH_WARM: "1", ARMATURE_BASH_FAST_PARSE: "0" },
  encoding: "utf8",
});
const [, slowScript, slowOne] = /^warm (\S+) (\S+)/m.exec(slow.stdout ?? "") ?? [];
if (slow.status !== 0 || !Number.isFinite(Number(slowScript))) throw new Error(`tree-sitter-only run failed: ${slow.stderr}`);

// Warm: the WASM parser and the JIT settle over the first runs. GC is counted over these runs.
let gcMs = 0;
const gc = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
});
for (let i = 0; i < 40; i++) analyzeCommand(script);
gc.observe({ entryTypes: ["gc"] });
const scriptMs = timed(() => analyzeCommand(script), { warmup: 0 });
await new Promise((r) => setTimeout(r, 0));
gc.disconnect();
const gcPerRun = gcMs / 30;

// Where the time goes: each phase timed alone (each includes the ones before it), run one
// after the other in every round so that a busy machine skews them alike; the shares are
// medians of the per-round differences. The parse is the analysis's own (the fast parser when
// it knows every construct of the script, else tree-sitter's parse and copy); tree-sitter's
// parse alone and with its copy are timed beside it as the baseline the fast parser replaces.
const phases = { treeSitter: [], treeSitterCopy: [], parse: [], walk: [], facts: [] };
const lap = (fn) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};
const counts0 = bashParseCounts();
for (let i = 0; i < 40; i++) {
  const treeSitter = lap(() => parseBashTreeOnly(script));
  const treeSitterCopy = lap(() => parseBashScriptTreeSitter(script));
  const parse = lap(() => parseBashScript(script));
  const walk = lap(() => {
    const state = newWalkState();
    walkScript(script, state, false, 0);
    judgeShellState(state);
  });
  const all = lap(() => analyzeCommand(script));
  if (i < 10) continue;
  phases.treeSitter.push(treeSitter);
  phases.treeSitterCopy.push(treeSitterCopy);
  phases.parse.push(parse);
  phases.walk.push(walk - parse);
  phases.facts.push(all - walk);
}
const counts1 = bashParseCounts();
const parsedFast = counts1.fast - counts0.fast > 0 && counts1.treeSitter === counts0.treeSitter;
const parseMs = median(phases.treeSitter);

// What tiering the grammar up would give: the same parse with a grammar V8 may optimise (the
// analysis compiles it Liftoff-only, see parser.ts: letting it tier up stalls the timers).
const require = createRequire(import.meta.url);
const rawParser = new Parser();
rawParser.setLanguage(await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")));
const tieredMs = timed(() => rawParser.parse(script)?.delete());

report({
  name: `analysis of a ${scriptLines}-line script, ${script.length} chars, warm (median of 30)`,
  value: scriptMs,
  unit: "ms",
  baseline: parseMs,
  baselineName: "tree-sitter parse alone",
  target: "≤ 50 ms",
  ok: scriptMs <= 50,
});
report({
  name: "the same script with tree-sitter for every parse (ARMATURE_BASH_FAST_PARSE=0, warm)",
  value: Number(slowScript),
  unit: "ms",
  baseline: scriptMs,
  baselineName: "with the fast parser",
});
report({
  name: `the same script, cold (first analysis in a fresh process, median of 5)`,
  value: coldMs,
  unit: "ms",
  baseline: parseMs,
  baselineName: "tree-sitter parse alone (warm)",
});
const f = (v) => v.toFixed(1);
const ownParseMs = median(phases.parse);
const treeSitterCopyMs = median(phases.treeSitterCopy);
console.log(
  `  where the warm time goes: parse ${f(ownParseMs)} ms (${parsedFast ? "the fast JS parser" : "tree-sitter: the fast parser declined this script"}), ` +
    `walk ${f(median(phases.walk))} ms, per-command facts ${f(median(phases.facts))} ms; garbage collection within the analysis ${f(gcPerRun)} ms of it`,
);
console.log(
  `  the parse it replaces: tree-sitter (WASM, Liftoff) ${f(parseMs)} ms, with the copy into JS nodes ${f(treeSitterCopyMs)} ms ` +
    `(the fast parser ${(ownParseMs / treeSitterCopyMs).toFixed(2)}× of it)`,
);
console.log(`  the parse with the grammar left to tier up (not used: it stalls timers): ${f(tieredMs)} ms`);

const oneMs = oneLinerMs();
report({ name: "analysis of a typical one-liner after warm-up (median per call)", value: oneMs, unit: "ms", target: "≤ 0.15 ms", ok: oneMs <= 0.15 });
report({ name: "the same one-liner with tree-sitter for every parse (warm)", value: Number(slowOne), unit: "ms", baseline: oneMs, baselineName: "with the fast parser" });
report({ name: "the same one-liner, cold (after `echo hi` in a fresh process, median of 5)", value: median(coldOneRuns), unit: "ms", baseline: oneMs, baselineName: "warm" });
