// The library's installed size (issue 22: ≤ 50 MB; 145 MB and 124 packages before): the packed
// tarball installed into an empty project with production dependencies only
// (bench/install-size.js). The figure is the space on disk, as `du` counts it; the files' own
// bytes are printed beside it. Needs the npm registry, or a cache `npm ci` has filled.
import { rmSync } from "node:fs";
import { BASELINE, TARGET_MB, packAndInstall } from "./install-size.js";
import { report } from "./util.js";

const r = packAndInstall({ offline: process.env.ARMATURE_BENCH_ONLINE !== "1" });
try {
  report({ name: "installed size (on disk)", value: r.diskMb, unit: "MB", baseline: BASELINE.mb, baselineName: "before (2e3b5ea)", target: `≤ ${TARGET_MB} MB`, ok: r.diskMb <= TARGET_MB });
  console.log(`  against the target: ${(r.diskMb / TARGET_MB).toFixed(2)}× of ${TARGET_MB} MB; files' own bytes ${r.mb.toFixed(1)} MB; tarball ${(r.packed.size / 1024 / 1024).toFixed(1)} MB`);
  report({ name: "installed packages", value: r.packages.length, unit: "packages", baseline: BASELINE.packages, baselineName: "before (2e3b5ea)" });
  console.log(`  largest: ${r.largest.map((p) => `${p.name} ${p.mb.toFixed(1)} MB`).join(", ")}`);
} finally {
  rmSync(r.dir, { recursive: true, force: true });
}
