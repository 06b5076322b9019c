// Read: 100 lines at line 1,000,000 of a ~1 GB file (streamed: time and peak RSS against sed),
// and one turn of 4 Reads of small files through createSession.runTurn (the tool phase).
// ARMATURE_BENCH_READ_MB sets the big file's size (default 1024).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, rmSync, writeSync, closeSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
// ReadTool and createToolUseContext are internal: the tsc output (one module graph with dist/index.js).
import { createSession } from "../dist/index.js";
import { createToolUseContext } from "../dist/tool/index.js";
import { ReadTool } from "../dist/tools/read/index.js";
import { median, report, timeRuns } from "./util.js";

const OFFSET = 1_000_000;
const LIMIT = 100;

if (process.argv[2] === "--child") {
  // One measured Read in a fresh process, so its peak RSS is the tool's own.
  const [, , , path, runs] = process.argv;
  const context = createToolUseContext({ cwd: tmpdir() });
  const times = [];
  let out;
  for (let i = 0; i < Number(runs); i++) {
    const t0 = performance.now();
    out = await ReadTool.call({ file_path: path, offset: OFFSET, limit: LIMIT }, context, () => {});
    times.push(performance.now() - t0);
  }
  const first = out.data.file.content.split("\n")[0];
  process.stdout.write(JSON.stringify({ times, maxRssKb: process.resourceUsage().maxRSS, first }));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "armature-read-bench-"));
try {
  const megabytes = Number(process.env.ARMATURE_BENCH_READ_MB ?? 1024);
  const totalLines = OFFSET + 50_000;
  const lineBytes = Math.max(16, Math.floor((megabytes * 1024 * 1024) / totalLines));
  const big = join(dir, "big.log");
  const fd = openSync(big, "w");
  const pad = "x".repeat(lineBytes);
  let batch = [];
  for (let n = 1; n <= totalLines; n++) {
    const head = `line ${n} `;
    batch.push(head + pad.slice(0, lineBytes - head.length - 1) + "\n");
    if (batch.length === 20_000) {
      writeSync(fd, batch.join(""));
      batch = [];
    }
  }
  if (batch.length) writeSync(fd, batch.join(""));
  closeSync(fd);
  const sizeMb = (lineBytes * totalLines) / 1024 / 1024;
  console.log(`big file: ${totalLines.toLocaleString("en-US")} lines of ${lineBytes} bytes, ${sizeMb.toFixed(0)} MiB`);

  const sed = () =>
    new Promise((resolve, reject) => {
      const p = spawn("sed", ["-n", `${OFFSET},${OFFSET + LIMIT - 1}p;${OFFSET + LIMIT - 1}q`, big], { stdio: ["ignore", "ignore", "inherit"] });
      p.on("error", reject);
      p.on("close", resolve);
    });
  const tailHead = () =>
    new Promise((resolve, reject) => {
      const p = spawn("sh", ["-c", `tail -n +${OFFSET} "$1" | head -${LIMIT}`, "sh", big], { stdio: ["ignore", "ignore", "inherit"] });
      p.on("error", reject);
      p.on("close", resolve);
    });
  const sedMs = median(await timeRuns(sed, { runs: 7, warmup: 2 }));
  const tailMs = median(await timeRuns(tailHead, { runs: 7, warmup: 1 }));

  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", big, "8"], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
  const { times, maxRssKb, first } = JSON.parse(child.stdout);
  if (first !== `line ${OFFSET} ${pad.slice(0, lineBytes - `line ${OFFSET} `.length - 1)}`) throw new Error(`wrong first line: ${first.slice(0, 40)}`);
  const readMs = median(times.slice(1));
  report({ name: "Read 100 lines at line 1,000,000", value: readMs, unit: "ms", baseline: sedMs, baselineName: "sed -n", target: "≤ 2× sed", ok: readMs <= 2 * sedMs });
  report({ name: "  (same, against tail -n +N | head)", value: readMs, unit: "ms", baseline: tailMs, baselineName: "tail|head" });
  const rssMb = maxRssKb / 1024;
  report({ name: "Read peak RSS (whole process)", value: rssMb, unit: "MB", target: "≤ 100 MB", ok: rssMb <= 100 });

  // A turn of 4 Reads of small files through the whole pipeline.
  const small = [];
  for (let i = 0; i < 4; i++) {
    const path = join(dir, `small${i}.ts`);
    writeFileSync(path, Array.from({ length: 200 }, (_, n) => `export const v${n} = ${n * i}; // line ${n + 1}`).join("\n") + "\n");
    small.push(path);
  }
  const session = createSession({ cwd: dir, tools: [ReadTool] });
  let id = 0;
  const turn = async () => {
    const results = await session.runTurn(small.map((file_path) => ({ type: "tool_use", id: `t${id++}`, name: "Read", input: { file_path } })));
    if (results.some((r) => r.is_error)) throw new Error(JSON.stringify(results[0]));
  };
  const turnMs = median(await timeRuns(turn, { runs: 50, warmup: 10 }));
  // Baseline: the same four files read and numbered by hand, in parallel.
  const plain = async () => {
    await Promise.all(
      small.map(async (p) => (await readFile(p, "utf8")).split("\n").map((l, i) => `${i + 1}\t${l}`).join("\n")),
    );
  };
  const plainMs = median(await timeRuns(plain, { runs: 50, warmup: 10 }));
  report({ name: "Turn of 4 Reads (runTurn, tool phase)", value: turnMs, unit: "ms", baseline: plainMs, baselineName: "4× readFile+number", target: "≤ 5 ms", ok: turnMs <= 5 });
  await session.close();
  // Keep the context import used (the child uses it); also a direct single Read for reference.
  const ctx = createToolUseContext({ cwd: dir });
  const directMs = median(await timeRuns(() => ReadTool.call({ file_path: small[0] }, ctx, () => {}), { runs: 50, warmup: 10 }));
  report({ name: "  one Read of a small file (tool.call)", value: directMs, unit: "ms" });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
