// Runs every bench/*.bench.js in its own process (so one's heap does not skew another's) and
// passes its output through. Each bench prints its figure and its ratio against its baseline.
// `npm run bench -- pipeline` runs only the benches whose file name contains "pipeline".
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? "";
const files = readdirSync(here).filter((f) => f.endsWith(".bench.js") && f.includes(filter)).sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const r = spawnSync(process.execPath, ["--expose-gc", join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
