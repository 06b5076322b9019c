// Path identity for shell commands (issue 8, class 6). A path is judged as the shell's process
// will see it, not the engine's: `/proc/self/cwd/.env` is the shell's `./.env`, `/proc/self/root/x`
// is `/x`, `/dev/fd/N` is whatever the command's redirection opened (itself a target), another
// process's `/proc/PID/cwd` is not knowable. And a recursive reader that follows symlinks reads
// wherever the links below its roots point: those targets are found by walking the tree at
// decision time, bounded.
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { posix } from "node:path";

/** What a shell path written as `/proc/…` or `/dev/fd/…` names in the shell's process. */
export type ProcPath =
  /** Not a process path: judge it as written. */
  | { kind: "plain" }
  /** The same file as another path (relative paths are the shell's cwd's). */
  | { kind: "alias"; path: string }
  /** A descriptor the command itself opened (its redirection is a target) or inherited (a pipe). */
  | { kind: "descriptor" }
  /** Another process's view, or a descriptor's subtree: not knowable. */
  | { kind: "unknown" };

const SELF = String.raw`/proc/(?:self|thread-self|self/task/\d+|thread-self/task/\d+)`;
const SELF_CWD = new RegExp(`^${SELF}/cwd(?=/|$)(.*)$`, "s");
const SELF_ROOT = new RegExp(`^${SELF}/root(?=/|$)(.*)$`, "s");
const SELF_FD = new RegExp(`^(?:${SELF}/fd/\\d+|/dev/fd/\\d+|/dev/std(?:in|out|err))$`);
const SELF_FD_BELOW = new RegExp(`^(?:${SELF}/(?:fd|map_files)|/dev/fd|/dev/std(?:in|out|err))/`);
const OTHER_PROCESS = /^\/proc\/\d+(?:\/task\/\d+)?\/(?:cwd|root|fd|map_files|exe)(?=\/|$)/;

/**
 * Reads an absolute, lexically normalised path as the shell's process sees it. Applied again
 * to an alias's result, since `/proc/self/root/proc/self/cwd/x` nests.
 */
export function procPath(absolute: string): ProcPath {
  // `.` and doubled slashes change nothing; `..` is left to the kernel (after a symlink it is not lexical).
  let path = absolute.replace(/\/(\.\/)+/g, "/").replace(/\/\/+/g, "/").replace(/\/\.$/, "");
  if (!/^\/(proc|dev)\//.test(path)) {
    // `/x/../proc/self/cwd`: reaching a process path through `..` is not judged further.
    return /^\/(proc|dev)\/(self|thread-self|\d+|fd|std)/.test(posix.normalize(path)) ? { kind: "unknown" } : { kind: "plain" };
  }
  let aliased = false;
  for (let i = 0; i < 8; i++) {
    const root = SELF_ROOT.exec(path);
    if (root) {
      // The root's `..` is the root itself.
      path = `/${root[1] ?? ""}`.replace(/\/\/+/g, "/").replace(/^(\/\.\.)+(?=\/|$)/, "") || "/";
      aliased = true;
      continue;
    }
    const cwd = SELF_CWD.exec(path);
    if (cwd) return { kind: "alias", path: `.${cwd[1] ?? ""}` };
    if (SELF_FD.test(path)) return { kind: "descriptor" };
    if (SELF_FD_BELOW.test(path) || OTHER_PROCESS.test(path)) return { kind: "unknown" };
    break;
  }
  return aliased ? { kind: "alias", path } : { kind: "plain" };
}

/** How many directory entries the symlink walk looks at for one decision. */
export const LINK_WALK_MAX_ENTRIES = 20_000;
/** How deep it descends. */
export const LINK_WALK_MAX_DEPTH = 64;

export interface LinkWalk {
  /** Where the links below the roots lead (canonical), each once. */
  targets: string[];
  /** Directories among them: read with everything below them too. */
  directories: string[];
  /** The walk stopped at its bound: what lies beyond is not known. */
  truncated: boolean;
}

/** One entry met by `walkTree`: its path on disk as reached, and its name below the root it was reached from. */
export interface WalkEntry {
  root: string;
  /** Below the root, `/`-separated (through followed links, by the links' names). */
  relative: string;
  path: string;
  entry: Dirent;
}

/**
 * Walks the trees below `roots` (directories; a root that is not one contributes nothing),
 * bounded by LINK_WALK_MAX_ENTRIES entries and LINK_WALK_MAX_DEPTH levels, each directory once.
 * `visit` sees every entry; for a symlink it may return a directory to descend into as if it
 * were the link (a link-following reader), else the link is a leaf. Returns whether it stopped
 * at its bound (what lies beyond is not known).
 */
export function walkTree(roots: readonly string[], visit: (e: WalkEntry) => string | undefined | void): { truncated: boolean } {
  const seenDirs = new Set<string>();
  let entries = 0;
  const stack: Array<{ root: string; dir: string; relative: string; depth: number }> = [];
  const pushDir = (root: string, dir: string, relative: string, depth: number): void => {
    if (seenDirs.has(dir)) return;
    seenDirs.add(dir);
    stack.push({ root, dir, relative, depth });
  };
  for (const r of roots) if (isDirectory(r)) pushDir(r, r, "", 0);
  while (stack.length > 0) {
    const { root, dir, relative, depth } = stack.pop()!;
    if (depth > LINK_WALK_MAX_DEPTH) return { truncated: true };
    let list: Dirent[];
    try {
      list = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable to us: the command cannot read it either (same user), or it vanished
    }
    entries += list.length;
    if (entries > LINK_WALK_MAX_ENTRIES) return { truncated: true };
    for (const e of list) {
      const path = dir === "/" ? `/${e.name}` : `${dir}/${e.name}`;
      const rel = relative === "" ? e.name : `${relative}/${e.name}`;
      const into = visit({ root, relative: rel, path, entry: e });
      if (e.isDirectory()) pushDir(root, path, rel, depth + 1);
      else if (e.isSymbolicLink() && typeof into === "string") pushDir(root, into, rel, depth + 1);
    }
  }
  return { truncated: false };
}

/**
 * Walks the trees below `roots` (canonical directories) and returns the canonical targets of
 * every symlink met, following links to directories (each directory once). A root that is a
 * file or does not exist contributes nothing beyond itself.
 */
export function walkLinks(roots: readonly string[], canonicalize: (p: string) => string): LinkWalk {
  const out: LinkWalk = { targets: [], directories: [], truncated: false };
  const seenTargets = new Set<string>();
  const walk = walkTree(roots, ({ path, entry }) => {
    if (!entry.isSymbolicLink()) return;
    const target = canonicalize(path);
    if (!seenTargets.has(target)) {
      seenTargets.add(target);
      out.targets.push(target);
    }
    if (!isDirectory(target)) return;
    if (!out.directories.includes(target)) out.directories.push(target);
    return target;
  });
  out.truncated = walk.truncated;
  return out;
}

/** Whether `path` is a directory now (symlinks followed); false when it cannot be stat'ed. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The real path of `path`, or `path` itself when it cannot be resolved (missing, no access). */
export function realPathOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
