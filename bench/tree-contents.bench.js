// Tree writers judged by what they will write: one permission decision for `tar xf` of a real
// archive (plain and gzip), `unzip -d` and `cp -r` of a real tree, each with 2,000 entries, and a
// 19,000-entry tar near the walk's bound. Baselines: the real tools listing the same data
// (`tar -tf`, `unzip -Z1`, `find`), each a fresh process, what a decision-time `tar -t` would cost.
// Cold: the first decision in a fresh process (the archive code loaded, nothing warmed).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { median, report, timeRuns } from "./util.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "armature-bench-tree-"));
const proj = join(dir, "proj");
mkdirSync(join(proj, "build"), { recursive: true });

function tree(root, dirs, files) {
  for (let d = 0; d < dirs; d++) {
    const sub = join(root, `pkg${d}`, "lib");
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < files; f++) writeFileSync(join(sub, `f${f}.js`), "module.exports = 1;\n");
  }
}
tree(join(dir, "small"), 100, 18); // 100 × (2 dirs + 18 files) = 2,000 entries
tree(join(dir, "large"), 500, 36); // 500 × 38 = 19,000 entries
execFileSync("tar", ["-cf", join(proj, "small.tar"), "-C", join(dir, "small"), "."]);
execFileSync("tar", ["-czf", join(proj, "small.tgz"), "-C", join(dir, "small"), "."]);
execFileSync("tar", ["-cf", join(proj, "large.tar"), "-C", join(dir, "large"), "."]);
execFileSync("zip", ["-qr", join(proj, "small.zip"), "."], { cwd: join(dir, "small") });
execFileSync("cp", ["-r", join(dir, "small"), join(proj, "tree")]);

// One decision, in this process or a fresh one (the same code either way).
const decideSource = `
import { analyzeCommand, buildTool, ensureBashGrammar, parseRuleLists, resolvePermission } from ${JSON.stringify(join(here, "..", "dist", "index.js"))};
import { z } from ${JSON.stringify(import.meta.resolve("zod"))};
await ensureBashGrammar();
const bash = buildTool({ name: "Bash", description: "bench", inputSchema: z.object({ command: z.string() }), call: async () => ({ data: "" }) });
const rules = parseRuleLists({}, "bench", ${JSON.stringify(proj)});
export function decide(command) {
  const facts = analyzeCommand(command);
  return resolvePermission({
    tool: bash, input: { command }, subject: { kind: "shell", facts }, toolPermission: { behavior: "allow" },
    permissionContext: { mode: "bypassPermissions", rules, additionalDirectories: [] },
    cwd: ${JSON.stringify(proj)}, projectDir: ${JSON.stringify(proj)}, readOnly: false,
  });
}
`;
const modulePath = join(dir, "decide.mjs");
writeFileSync(modulePath, decideSource);
const { decide } = await import(modulePath);

function cold(command) {
  const script = `const { decide } = await import(${JSON.stringify(modulePath)}); const t0 = performance.now(); const d = decide(${JSON.stringify(command)}); console.log(JSON.stringify({ ms: performance.now() - t0, behavior: d.behavior }));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", cwd: join(here, "..") });
  return JSON.parse(r.stdout.trim().split("\n").pop()).ms;
}

function toolTime(file, args) {
  const times = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    execFileSync(file, args, { cwd: proj, stdio: ["ignore", "ignore", "ignore"] });
    times.push(performance.now() - t0);
  }
  return median(times);
}

const cases = [
  ["tar xf small.tar -C build (2,000 entries)", "tar xf small.tar -C build", ["tar", ["-tf", "small.tar"]]],
  ["tar xzf small.tgz -C build (2,000 entries)", "tar xzf small.tgz -C build", ["tar", ["-tzf", "small.tgz"]]],
  ["unzip small.zip -d build (2,000 entries)", "unzip small.zip -d build", ["unzip", ["-Z1", "small.zip"]]],
  ["cp -r tree build (2,000 entries)", "cp -r tree build", ["find", ["tree"]]],
  ["tar xf large.tar -C build (19,000 entries)", "tar xf large.tar -C build", ["tar", ["-tf", "large.tar"]]],
];
for (const [name, command, [file, args]] of cases) {
  const d = decide(command);
  if (d.behavior !== "allow") throw new Error(`bench setup: ${command} → ${JSON.stringify(d)}`);
  const warm = median(await timeRuns(() => decide(command), { runs: 15, warmup: 3 }));
  const baseline = toolTime(file, args);
  report({ name: `decision, ${name} (median, warm)`, value: warm, unit: "ms", baseline, baselineName: `${file} ${args.join(" ")} (a fresh process)` });
  report({ name: `decision, ${name} (cold, fresh process)`, value: cold(command), unit: "ms", baseline, baselineName: `${file} ${args.join(" ")}` });
}
rmSync(dir, { recursive: true, force: true });
