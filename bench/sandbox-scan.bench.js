// The walk a sandboxed call makes of the working directories (src/sandbox/tree-scan.ts): protected
// names at any depth and the paths Read rules hide, on a 30,000-file project (3,000 folders, nested
// repositories, a virtual environment, .env files). Target: ≤ 5 ms per call on a tree that did not
// change (the cached walk: one lstat per folder). Baseline: the same walk uncached (a readdir per
// folder, what a first call or a changed tree costs). Printed with the load average.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { resetTreeScanCache, scanTree } from "../dist/sandbox/tree-scan.js";
import { pathMarker } from "../dist/tools/bash/sandbox.js";
import { median, report } from "./util.js";

const root = mkdtempSync(join(tmpdir(), "armature-scan-bench-"));
try {
  let files = 0;
  for (let a = 0; a < 30; a++) {
    for (let b = 0; b < 10; b++) {
      for (let c = 0; c < 10; c++) {
        const dir = join(root, `pkg${a}`, `mod${b}`, `part${c}`);
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 10; f++) writeFileSync(join(dir, `file${f}.ts`), "");
        files += 10;
      }
    }
    if (a % 5 === 0) {
      execFileSync("git", ["init", "-q", join(root, `pkg${a}`)]);
      writeFileSync(join(root, `pkg${a}`, ".env"), "SECRET=1\n");
    }
  }
  mkdirSync(join(root, ".venv/lib/python3.11/site-packages"), { recursive: true });
  writeFileSync(join(root, ".venv/lib/python3.11/site-packages/x.pth"), "");
  const rules = ["Read(**/.env)", "Read(./secrets/**)", "Read(./.env.*)"].map((raw) => ({ behavior: "deny", toolName: "Read", ruleContent: raw.slice(5, -1), raw, source: "bench" }));
  const marker = pathMarker(rules, root, process.env.HOME ?? "/root");
  const options = { mark: marker.mark, markKey: marker.key };
  const check = scanTree([root], options);
  if (check.hidden.length !== 6 || !check.complete) throw new Error(`unexpected scan: ${check.hidden.length} hidden, complete ${check.complete}`);
  const warm = [];
  const cold = [];
  for (let i = 0; i < 30; i++) {
    resetTreeScanCache();
    let t0 = performance.now();
    scanTree([root], options);
    cold.push(performance.now() - t0);
    for (let j = 0; j < 3; j++) {
      t0 = performance.now();
      scanTree([root], options);
      warm.push(performance.now() - t0);
    }
  }
  const value = median(warm);
  const load = loadavg().map((l) => l.toFixed(2)).join(" ");
  console.log(`project: ${files.toLocaleString("en-US")} files, ${check.folders.size.toLocaleString("en-US")} folders; load average ${load}`);
  report({
    name: "sandbox walk per call, tree unchanged (median)",
    value,
    unit: "ms",
    baseline: median(cold),
    baselineName: "the same walk uncached",
    target: "≤ 5 ms",
    ok: value <= 5,
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
