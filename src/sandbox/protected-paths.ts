// What stays read-only inside a writable directory, in every boundary: the protected-path table
// the permission engine reads too (one list, src/fs/protected-names.ts), with each version-control
// directory narrowed to the parts that run programs, so that `git commit` still writes objects and refs.
import { lstatSync, readdirSync, rmdirSync, rmSync } from "node:fs";
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

/**
 * The names at the top of `dir`, to skip looking up protected paths whose first part is not
 * there (one readdir instead of seventy lookups per writable root). Undefined when unreadable:
 * then every path is looked up.
 */
export function topNames(dir: string): ReadonlySet<string> | undefined {
  try {
    return new Set(readdirSync(dir));
  } catch {
    return undefined;
  }
}

/** Whether `rel`'s first part is among `names` (always, when the names are not known). */
export function mayExist(names: ReadonlySet<string> | undefined, rel: string): boolean {
  if (names === undefined) return true;
  const slash = rel.indexOf("/");
  return names.has(slash < 0 ? rel : rel.slice(0, slash));
}

const RELATIVE = protectedRelativePaths();

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
    const names = topNames(root);
    for (const rel of RELATIVE) {
      const vcs = Object.keys(VCS_INTERNALS).find((name) => rel.startsWith(`${name}/`));
      if (vcs !== undefined && (!mayExist(names, vcs) || !isDirectory(join(root, vcs)))) continue;
      const path = join(root, rel);
      // A first part missing from the listing: the path and its parents below the root are missing.
      if (mayExist(names, rel) && exists(path)) continue;
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
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
