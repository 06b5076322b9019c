// What stays read-only inside a writable directory, in every boundary: the protected-path table
// the permission engine reads too (one list, src/fs/protected-names.ts), with each version-control
// directory narrowed to the parts that run programs, so that `git commit` still writes objects and refs.
import { lstatSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_SEQUENCES } from "../fs/protected-names.js";

/**
 * Inside a VCS directory, only what names or holds programs: git's hooks, config (and the config
 * reached through commondir, worktrees and submodules), info/ (attributes name filters), hg's hgrc.
 */
const VCS_INTERNALS: Readonly<Record<string, readonly string[]>> = {
  ".git": ["hooks", "config", "commondir", "modules", "worktrees", "info"],
  ".hg": ["hgrc"],
  ".svn": [],
};

/** Paths relative to a writable directory that the sandbox mounts read-only where they exist. */
export function protectedRelativePaths(): string[] {
  const out: string[] = [];
  for (const { name } of PROTECTED_DIRS) {
    const internals = VCS_INTERNALS[name];
    if (internals) out.push(...internals.map((part) => `${name}/${part}`));
    else out.push(name);
  }
  for (const { name } of PROTECTED_FILES) out.push(name);
  for (const { segments } of PROTECTED_SEQUENCES) out.push(segments.join("/"));
  return [...new Set(out)];
}

/** Protected paths missing before a call, and the folders above them that were missing too. */
export interface AbsentProtected {
  paths: string[];
  parents: string[];
}

/**
 * The protected paths missing at the top of each working directory before a writable call (a
 * VCS directory's parts only where that directory exists: `git init` must still work). A mount
 * cannot hold a name that does not exist without creating it in the user's project, so what the
 * call creates there is removed once its processes are gone (removeCreatedProtectedPaths).
 */
export function absentProtectedPaths(roots: readonly string[]): AbsentProtected {
  const out: AbsentProtected = { paths: [], parents: [] };
  for (const root of roots) {
    for (const rel of protectedRelativePaths()) {
      const vcs = Object.keys(VCS_INTERNALS).find((name) => rel.startsWith(`${name}/`));
      if (vcs !== undefined && !isDirectory(join(root, vcs))) continue;
      const path = join(root, rel);
      if (exists(path)) continue;
      out.paths.push(path);
      for (let dir = dirname(path); dir.startsWith(root + sep) && !exists(dir); dir = dirname(dir)) if (!out.parents.includes(dir)) out.parents.push(dir);
    }
  }
  return out;
}

/**
 * Removes what exists now at paths that were absent (a file, a symlink — not its target — or a
 * folder with everything in it), then the folders above them that were absent too, if the call
 * left them empty. Returns the paths removed.
 */
export function removeCreatedProtectedPaths(absent: AbsentProtected): string[] {
  const removed: string[] = [];
  for (const path of absent.paths) {
    if (!exists(path)) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // what could not be removed is left; the next writable call's mounts hold it read-only
    }
  }
  for (const dir of absent.parents.filter((d) => removed.some((r) => r.startsWith(d + sep))).sort((x, y) => y.length - x.length)) {
    try {
      rmdirSync(dir);
    } catch {
      // gone already, or it holds something else, which stays
    }
  }
  return removed;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
