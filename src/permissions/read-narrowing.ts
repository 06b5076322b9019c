// Recursive readers that do not read everything below their root (issue 8 false positives):
// git prints only what is tracked or in its history (`git diff`, `git show HEAD`, `git log -p`,
// `git grep`), ripgrep, `tree` and `ls -R` skip hidden files. A Read rule that can only match
// paths such a reader skips does not make it ask. Checked on the file system and with the real
// git at decision time, bounded; anything unsure keeps the ask.
import { execFileSync } from "node:child_process";
import { engineCommand } from "../sandbox/engine-process.js";
import { existsSync, readdirSync, readFileSync, type Dirent } from "node:fs";
import { posix } from "node:path";
import type { PermissionRule } from "../tool/types.js";
import { cachedPathPattern, pathMatches } from "./path-rules.js";

/** What a recursive root reads below it. */
export type RootLimit = "all" | "git" | "visible" | "names" | "visible-names";

/** Paths git may print, past which (or past the time) the check gives up. */
const GIT_MAX_PATHS = 200_000;
const GIT_TIMEOUT_MS = 5_000;

/** Every path git may print for the repository holding `dir`: the index and every path in the history of every ref and reflog. */
function gitPathsEver(dir: string): { top: string; paths: string[] } | undefined {
  if (existsSync(posix.join(dir, ".gitmodules"))) return undefined;
  // armature's own git: hardened (no hooks, fsmonitor, lazy fetch) and read-only where the sandbox runs.
  const git = (args: string[]): string => {
    const cmd = engineCommand("git", ["-c", "log.showSignature=false", "-c", "core.untrackedCache=false", "--no-pager", "-C", dir, ...args], { cwd: dir });
    if (!cmd) throw new Error("git is not installed where the project cannot plant one");
    return execFileSync(cmd.file, cmd.args, {
      cwd: dir,
      encoding: "utf8",
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
      env: cmd.env,
    });
  };
  try {
    const top = git(["rev-parse", "--show-toplevel"]).trim();
    const paths = new Set(git(["ls-files", "-z", "--cached"]).split("\0"));
    const history = git(["log", "--all", "--reflog", "--no-renames", "--no-ext-diff", "--no-textconv", "--name-only", "--format=", "-z"]);
    for (const p of history.split(/[\0\n]/)) paths.add(p);
    paths.delete("");
    if (paths.size > GIT_MAX_PATHS) return undefined;
    return { top, paths: [...paths] };
  } catch {
    return undefined; // not a repository, git missing, too slow: unsure
  }
}

/** Whether git run in `dir` never prints a path these rules match. */
export function gitShowsNoRestrictedPath(rules: readonly PermissionRule[], dir: string, projectDir: string, home: string): boolean {
  const ever = gitPathsEver(dir);
  if (!ever) return false;
  const patterns = rules.map((r) => cachedPathPattern(r, projectDir, home));
  return ever.paths.every((p) => {
    const abs = `${ever.top}/${p}`;
    return !patterns.some((pattern) => pathMatches(pattern, abs, true));
  });
}

/**
 * Whether an ignore file ripgrep reads at the root, or git's excludes, may whitelist a hidden
 * path (a `!` line): then hidden files are not certainly skipped.
 */
export function ignoreFilesMayUnhide(root: string, home: string): boolean {
  if (process.env.RIPGREP_CONFIG_PATH) return true;
  const files = [".gitignore", ".ignore", ".rgignore", ".git/info/exclude"].map((f) => posix.join(root, f));
  files.push(posix.join(process.env.XDG_CONFIG_HOME ?? posix.join(home, ".config"), "git/ignore"));
  return files.some((f) => {
    try {
      return /^\s*!/m.test(readFileSync(f, "utf8"));
    } catch {
      return false;
    }
  });
}

/** An entry name no rule names literally. */
const ANY_ENTRY = "\u0001armature-any-entry\u0001";

/** Directories a listing check walks below one root before it gives up (and the call asks). */
const LISTING_MAX_DIRECTORIES = 20_000;

/**
 * Whether a command that lists names and metadata below `root` (`find`, `du`, `tree -a`) lists
 * nothing these rules protect: no directory at or below the root, by its real or its written
 * name, is one a rule matches or one whose every entry a rule matches. Listing a file's name is not reading the file; listing what a
 * matched directory holds is reading that directory. Symlinks are not followed (the roots of a
 * lister that follows them are judged through where they lead). Past the bound: unsure.
 */
export function listsNoRestrictedDirectory(rules: readonly PermissionRule[], root: { lexical: string; canonical: string }, projectDir: string, home: string): boolean {
  const patterns = rules.map((r) => cachedPathPattern(r, projectDir, home));
  // A directory is restricted when a rule matches it, or matches whatever it holds (`secrets/*`):
  // a name only a wildcard matches stands for any entry.
  const restricted = (rel: string): boolean =>
    [root.canonical, root.lexical].some((top) => {
      const dir = rel === "" ? top : `${top}/${rel}`;
      return patterns.some((p) => pathMatches(p, dir, true) || pathMatches(p, `${dir}/${ANY_ENTRY}`, true));
    });
  const pending = [""];
  let seen = 0;
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    if (restricted(rel)) return false;
    if (++seen > LISTING_MAX_DIRECTORIES) return false;
    let entries: Dirent[];
    try {
      entries = readdirSync(rel === "" ? root.canonical : `${root.canonical}/${rel}`, { withFileTypes: true });
    } catch {
      if (rel === "") return false; // the root itself cannot be listed now: unsure
      continue;
    }
    for (const e of entries) if (e.isDirectory()) pending.push(rel === "" ? e.name : `${rel}/${e.name}`);
  }
  return true;
}
