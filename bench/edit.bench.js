// Edit of a 50 MB file: one replacement in the middle, through EditTool.call (checks, lock,
// decode, match, atomic write, patch), against plain Node read + replace + write. Each side runs
// in its own process so that its peak RSS is its own. Then Write rewriting every line of a file
// (0.5 MB and 50 MB), where the result's diff used to be quadratic: target ≤ 1 s for the call.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { median, report } from "./util.js";

const RUNS = 8;
const MARK_A = "UNIQUE_MARKER_ALPHA";
const MARK_B = "UNIQUE_MARKER_BRAVO";

async function child(kind, path, runs, start) {
  const times = [];
  let loadedRssKb = process.memoryUsage().rss / 1024;
  if (kind === "rewrite") {
    const [{ createToolUseContext }, { WriteTool }] = await Promise.all([import("../dist/tool/index.js"), import("../dist/tools/write/index.js")]);
    const context = createToolUseContext({ cwd: tmpdir() });
    const original = readFileSync(path, "utf8");
    for (let i = 0; i < runs; i++) {
      context.readFileState.set(path, { contentHash: "", mtimeMs: statSync(path).mtimeMs, partial: false, recordedAt: Date.now() });
      // Every line changes (the numbers shift), and the next run changes them back.
      const content = (start + i) % 2 === 0 ? original.replace(/compute\((\d+)/g, "compute($1 + 1") : original;
      const t0 = performance.now();
      await WriteTool.call({ file_path: path, content }, context, () => {});
      times.push(performance.now() - t0);
    }
  } else if (kind === "diff") {
    // The result's diff alone (dist/ holds the compiled modules beside the bundle).
    const { diffWrite } = await import("../dist/fs/patch.js");
    const original = readFileSync(path, "utf8");
    const content = original.replace(/compute\((\d+)/g, "compute($1 + 1");
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      diffWrite(original, content);
      times.push(performance.now() - t0);
    }
  } else if (kind === "write") {
    const original = readFileSync(path, "utf8");
    for (let i = 0; i < runs; i++) {
      const content = (start + i) % 2 === 0 ? original.replace(/compute\((\d+)/g, "compute($1 + 1") : original;
      const t0 = performance.now();
      writeFileSync(path, content);
      times.push(performance.now() - t0);
    }
  } else if (kind === "edit") {
    const [{ createToolUseContext }, { EditTool }] = await Promise.all([import("../dist/tool/index.js"), import("../dist/tools/edit/index.js")]);
    loadedRssKb = process.memoryUsage().rss / 1024;
    const context = createToolUseContext({ cwd: tmpdir() });
    // As after a full Read: same mtime, so the freshness check needs no hash.
    context.readFileState.set(path, { contentHash: "", mtimeMs: statSync(path).mtimeMs, partial: false, recordedAt: Date.now() });
    for (let i = 0; i < runs; i++) {
      const [from, to] = (start + i) % 2 === 0 ? [MARK_A, MARK_B] : [MARK_B, MARK_A];
      const t0 = performance.now();
      await EditTool.call({ file_path: path, old_string: from, new_string: to }, context, () => {});
      times.push(performance.now() - t0);
    }
  } else {
    for (let i = 0; i < runs; i++) {
      const [from, to] = (start + i) % 2 === 0 ? [MARK_A, MARK_B] : [MARK_B, MARK_A];
      const t0 = performance.now();
      const text = readFileSync(path, "utf8");
      writeFileSync(path, text.replace(from, to));
      times.push(performance.now() - t0);
    }
  }
  process.stdout.write(JSON.stringify({ times, maxRssKb: process.resourceUsage().maxRSS, loadedRssKb }));
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "armature-edit-bench-"));
try {
  const path = join(dir, "big.ts");
  const fd = openSync(path, "w");
  const lines = 712_000;
  let batch = [];
  for (let n = 1; n <= lines; n++) {
    batch.push(n === lines / 2 ? `const marker = "${MARK_A}";\n` : `export const value${n} = compute(${n}, "some text to fill the line");\n`);
    if (batch.length === 20_000) {
      writeSync(fd, batch.join(""));
      batch = [];
    }
  }
  if (batch.length) writeSync(fd, batch.join(""));
  closeSync(fd);
  const size = statSync(path).size;
  const sizeMb = size / 1024 / 1024;
  console.log(`file: ${sizeMb.toFixed(1)} MiB`);

  const run = (kind, runs, start = 0) => {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", kind, path, String(runs), String(start)], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${kind} child failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  // Time: several runs in one process (A→B, B→A, … so the file ends as it began).
  const plain = run("plain", RUNS);
  const edit = run("edit", RUNS);
  // Peak RSS: one edit in a fresh process each (later runs would add uncollected garbage).
  const plainOnce = run("plain", 1);
  run("plain", 1, 1);
  const editOnce = run("edit", 1);
  run("edit", 1, 1);
  const plainMs = median(plain.times.slice(1));
  const editMs = median(edit.times.slice(1));
  report({ name: "Edit of a 50 MB file", value: editMs, unit: "ms", baseline: plainMs, baselineName: "read+replace+write", target: "≤ 3×", ok: editMs <= 3 * plainMs });
  const rssMb = editOnce.maxRssKb / 1024;
  report({
    name: "Edit peak RSS (whole process)",
    value: rssMb,
    unit: "MB",
    baseline: plainOnce.maxRssKb / 1024,
    baselineName: "plain",
    target: `≤ 4× file (${(4 * sizeMb).toFixed(0)} MB)`,
    ok: rssMb <= 4 * sizeMb,
  });
  const aboveMb = (editOnce.maxRssKb - editOnce.loadedRssKb) / 1024;
  const plainAboveMb = (plainOnce.maxRssKb - plainOnce.loadedRssKb) / 1024;
  report({
    name: "  peak RSS above the process before the edit",
    value: aboveMb,
    unit: "MB",
    baseline: plainAboveMb,
    baselineName: "plain",
    target: `≤ 4× file (${(4 * sizeMb).toFixed(0)} MB)`,
    ok: aboveMb <= 4 * sizeMb,
  });
  if (!readFileSync(path, "utf8").includes(`"${MARK_A}"`)) throw new Error("the edits did not land");

  // Write rewriting every line: 50 MB (no diff: the result gives sizes) and 0.5 MB (a bounded diff).
  const bigWrite = median(run("rewrite", 4).times);
  const plainWrite = median(run("write", 4).times);
  const bigDiff = median(run("diff", 4).times);
  report({ name: "Write rewriting every line of a 50 MB file (the whole call)", value: bigWrite, unit: "ms", baseline: plainWrite, baselineName: "writeFileSync (no fsync)" });
  report({ name: "  its result's diff (sizes only: over the diff limit)", value: bigDiff, unit: "ms", target: "≤ 1000 ms", ok: bigDiff <= 1000 });
  const small = join(dir, "half-mb.ts");
  writeFileSync(small, readFileSync(path, "utf8").slice(0, 512 * 1024).replace(/[^\n]*$/, ""));
  const smallRun = (kind) => {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", kind, small, "4", "0"], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${kind} child failed: ${r.stderr}`);
    return median(JSON.parse(r.stdout).times);
  };
  const smallWrite = smallRun("rewrite");
  const smallDiff = smallRun("diff");
  report({ name: "Write rewriting every line of a 0.5 MB file (diff in the result)", value: smallWrite, unit: "ms", baseline: smallRun("write"), baselineName: "writeFileSync", target: "≤ 1000 ms", ok: smallWrite <= 1000 });
  report({ name: "  its result's diff (Myers cut off at 50 ms, then the coarse hunk)", value: smallDiff, unit: "ms", target: "≤ 1000 ms", ok: smallDiff <= 1000 });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
