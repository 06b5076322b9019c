// The package.json that goes into the tarball has no `prepare` script. In the clone, `prepare`
// builds dist/ at `npm ci`; in a user's install it would do nothing (a tarball or registry
// package is installed built) but npm 11 still lists it among the "install scripts not yet
// covered by allowScripts" for a package installed from a file. So:
//   prepack:  build (unless ARMATURE_PACK_PREBUILT=1: the caller has just built, as `npm test`
//             and `npm run bench` do), keep package.json aside, write it without `prepare`;
//   postpack: put the kept package.json back.
// A pack that stopped between the two leaves the copy aside; the next prepack (or `postpack` by
// hand) puts it back first. Writes go through a rename, so a reader never sees half a file.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = join(root, "package.json");
const kept = join(root, ".package.json.packing");

function writeAtomically(file, text) {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

function restore() {
  if (existsSync(kept)) renameSync(kept, manifest);
}

const step = process.argv[2];
if (step === "prepack") {
  restore();
  if (process.env.ARMATURE_PACK_PREBUILT !== "1") {
    const npm = process.env.npm_execpath;
    const r = npm ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" }) : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  const text = readFileSync(manifest, "utf8");
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  writeAtomically(kept, text);
  writeAtomically(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (step === "postpack") {
  restore();
} else {
  process.stderr.write("usage: node scripts/pack-manifest.js prepack|postpack\n");
  process.exit(2);
}
