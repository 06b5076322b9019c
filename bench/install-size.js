// What a user's install of the package weighs: `npm pack` of this checkout (already built: the
// caller builds first, as `npm run bench` and `npm test` do), then the tarball installed into an
// empty project with production dependencies only (what `npm install <the package>` gets: the
// dependencies and the required peer zod; optional peers and devDependencies not). Shared by
// bench/install-size.bench.js (prints the figure) and test/install-size.test.ts (asserts it).
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Issue 22's target for the library's install, and its measure before the change (2e3b5ea). */
export const TARGET_MB = 50;
export const BASELINE = { mb: 145, packages: 124 };
const MB = 1024 * 1024;

function npm(args, cwd, env = {}) {
  const r = spawnSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, shell: process.platform === "win32" });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

/**
 * Packs the checkout and installs the tarball into a new temp project. `offline`: prefer npm's
 * cache (`--prefer-offline`; after `npm ci` it holds every package). Throws, with npm's output,
 * when packing or installing fails, saying the registry may be unreachable.
 */
export function packAndInstall({ offline = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "armature-install-size-"));
  const pack = npm(["pack", "--json", "--pack-destination", dir], root, { ARMATURE_PACK_PREBUILT: "1" });
  if (pack.status !== 0) throw new Error(`npm pack failed (exit ${pack.status}):\n${pack.stderr.slice(-2000)}`);
  const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0];
  const project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "install-size-probe", version: "1.0.0", private: true, type: "module" })}\n`);
  const args = ["install", "--omit=dev", "--no-audit", "--no-fund", ...(offline ? ["--prefer-offline"] : []), join(dir, packed.filename)];
  const install = npm(args, project);
  if (install.status !== 0) {
    throw new Error(
      `npm ${args.join(" ")} failed (exit ${install.status}). It needs the npm registry (or a cache filled by \`npm ci\`): ` +
        `is the registry reachable from here?\n${install.stderr.slice(-2000)}`,
    );
  }
  return { dir, project, packed, installOutput: `${install.stdout}${install.stderr}`, ...measure(join(project, "node_modules")) };
}

/**
 * The installed tree: bytes of its files (apparent size), bytes on disk (allocated blocks, what
 * `du` counts), the packages in it (each folder with a package.json directly under a
 * node_modules, scoped or not), and the largest of them on disk.
 */
export function measure(nodeModules) {
  const packages = new Map();
  let bytes = 0;
  let diskBytes = 0;
  const walk = (path, owner) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      let pkg = owner;
      if (entry.isDirectory() && path.endsWith("node_modules") && !entry.name.startsWith(".")) {
        if (entry.name.startsWith("@")) {
          walk(full, owner);
          continue;
        }
        pkg = full.slice(nodeModules.length + 1);
      } else if (entry.isDirectory() && /node_modules[\\/]@[^\\/]+$/.test(path)) {
        pkg = full.slice(nodeModules.length + 1);
      }
      const st = lstatSync(full);
      bytes += st.isDirectory() ? 0 : st.size;
      diskBytes += st.blocks * 512;
      if (pkg) packages.set(pkg, (packages.get(pkg) ?? 0) + st.blocks * 512);
      if (entry.isDirectory()) walk(full, pkg);
    }
  };
  walk(nodeModules, undefined);
  const largest = [...packages].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([name, size]) => ({ name, mb: size / MB }));
  return { mb: bytes / MB, diskMb: diskBytes / MB, packages: [...packages.keys()].sort(), largest };
}
