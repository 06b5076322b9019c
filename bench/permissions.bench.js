// Permission engine: one decision for a 10-subcommand Bash command against 500 rules, and
// loading every settings level. Baselines: the bare work a naive matcher cannot avoid (500
// regex tests per subcommand), and reading + JSON.parse of the same settings files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
// parseRuleLists and resolvePermission are internal: the tsc output (one module graph with dist/index.js).
import { analyzeCommand, buildTool, ensureBashGrammar, loadSettings } from "../dist/index.js";
import { parseRuleLists, resolvePermission } from "../dist/permissions/index.js";
import { median, report, timeRuns } from "./util.js";

const dir = mkdtempSync(join(tmpdir(), "armature-bench-perm-"));
const proj = join(dir, "proj");
mkdirSync(join(proj, "src"), { recursive: true });

// --- 500 rules: allow/ask/deny over many commands, some path and domain rules
const verbs = ["npm", "git", "cargo", "make", "docker", "kubectl", "python", "node", "go", "yarn", "pnpm", "pip", "terraform", "aws", "gcloud"];
const allow = [];
const ask = [];
const deny = [];
for (let i = 0; allow.length + ask.length + deny.length < 480; i++) {
  const v = verbs[i % verbs.length];
  const rule = `Bash(${v} sub${i} *)`;
  (i % 5 === 0 ? deny : i % 7 === 0 ? ask : allow).push(rule);
}
for (let i = 0; i < 10; i++) deny.push(`Read(secrets${i}/**)`);
for (let i = 0; i < 5; i++) allow.push(`Edit(src/gen${i}/**)`);
for (let i = 0; i < 5; i++) allow.push(`WebFetch(domain:*.site${i}.example.com)`);
// the rules the command needs, at the end so every earlier one is tried first
allow.push("Bash(npm run build *)", "Bash(npm test *)", "Bash(git status *)", "Bash(ls *)", "Bash(echo *)", "Bash(cat *)", "Bash(grep *)", "Bash(wc *)", "Bash(git log *)", "Bash(pwd)");
const rules = parseRuleLists({ allow, ask, deny }, "bench", proj);

const command = "npm run build && npm test && git status && ls -la && echo done && cat README.md | grep x && wc -l src/a.ts && git log --oneline -5 && pwd";
await ensureBashGrammar();
const facts = analyzeCommand(command);
const bash = buildTool({ name: "Bash", description: "bench", inputSchema: z.object({ command: z.string() }), call: async () => ({ data: "" }) });
const request = {
  tool: bash,
  input: { command },
  subject: { kind: "shell", facts },
  toolPermission: { behavior: "passthrough" },
  permissionContext: { mode: "default", rules, additionalDirectories: [] },
  cwd: proj,
  projectDir: proj,
  readOnly: facts.readOnly,
};
const first = resolvePermission(request);
if (facts.subcommands.length !== 10 || first.behavior !== "allow") {
  throw new Error(`bench setup: expected 10 subcommands and allow, got ${facts.subcommands.length} and ${JSON.stringify(first)}`);
}

function perCallMicros(fn, batch = 200, rounds = 60) {
  for (let i = 0; i < batch * 5; i++) fn();
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    times.push(((performance.now() - t0) * 1000) / batch);
  }
  return median(times);
}

const decision = perCallMicros(() => resolvePermission(request));
const regexes = rules.map((r) => new RegExp(`^${(r.ruleContent ?? "").replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`));
const texts = facts.subcommands.map((s) => s.text);
let sink = 0;
const naive = perCallMicros(() => {
  for (const t of texts) for (const re of regexes) if (re.test(t)) sink++;
});
report({ name: "decision, 10-subcommand Bash vs 500 rules (median)", value: decision, unit: "µs", baseline: naive, baselineName: "500 regex tests × 10 subcommands", target: "≤ 200 µs", ok: decision <= 200 });

// --- settings: managed, --settings file, local, project, user, each with 100 rules
const home = join(dir, "home");
const managedPath = join(dir, "etc", "managed-settings.json");
const files = [
  managedPath,
  join(dir, "cli-settings.json"),
  join(proj, ".armature", "settings.local.json"),
  join(proj, ".armature", "settings.json"),
  join(home, ".armature", "settings.json"),
];
files.forEach((file, n) => {
  mkdirSync(join(file, ".."), { recursive: true });
  const list = (b) => Array.from({ length: 34 }, (_, i) => `Bash(${verbs[i % verbs.length]} ${b}${n}x${i} *)`);
  writeFileSync(file, JSON.stringify({ permissions: { allow: list("a"), ask: list("k"), deny: list("d"), additionalDirectories: [`../d${n}`] }, env: { [`V${n}`]: "1" }, hooks: { PreToolUse: [] } }));
});
// A trusted project: its own allow rules, env and directories count (an untrusted one may only restrict).
const options = { cwd: proj, home, managedPath, trustProject: true, cli: { settingsFile: files[1], allow: ["Bash(ls *)"] } };
const loaded = await loadSettings(options);
if (loaded.rules.length !== 5 * 102 + 1) throw new Error(`bench setup: ${loaded.rules.length} rules`);
const loadTimes = await timeRuns(() => loadSettings(options), { runs: 200, warmup: 20 });
const rawTimes = await timeRuns(() => files.forEach((f) => JSON.parse(readFileSync(f, "utf8"))), { runs: 200, warmup: 20 });
const load = median(loadTimes);
report({ name: "load all settings levels (5 files, 511 rules, median)", value: load, unit: "ms", baseline: median(rawTimes), baselineName: "readFileSync + JSON.parse of the 5 files", target: "≤ 5 ms", ok: load <= 5 });

rmSync(dir, { recursive: true, force: true });
if (sink < 0) console.log(sink);
