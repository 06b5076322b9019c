// Edit of a 50 MB file: one replacement in the middle, through EditTool.call (checks, lock,
// decode, match, atomic write, patch), against plain Node read + replace + write. Each side runs
// in its own process so that its peak RSS is its own.
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
  if (kind === "edit") {
    const { createToolUseContext, EditTool } = await import("../dist/bundle/index.js");
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
} finally {
  rmSync(dir, { recursive: true, force: true });
}
