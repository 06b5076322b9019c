// Recursive readers that do not read everything below their root (issue 8 false positives):
// git prints only what it holds (`git diff`, `git show HEAD`, `git log -p`: the index and the
// history; `git grep`: the index), ripgrep skips what the repository's ignore files ignore and,
// like `tree` and `ls -R`, hidden files. A Read rule that can only match paths such a reader
// skips does not make it ask. The facts (what git lists, the directories below a root) are
// gathered with the hardened git and bounded: asynchronously before a session's decision
// (`readNarrowingEvidence`, carried in the call's subject), synchronously for callers without
// an async step (`armature permissions check`); one parser and one walk serve both. Anything
// unsure keeps the ask.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, type Dirent } from "node:fs";
import { lstat, readdir, realpath } from "node:fs/promises";
import { posix } from "node:path";
import { engineCommand } from "../sandbox/engine-process.js";
import { derivedShellReads } from "./shell-reads.js";
import type { PermissionRule, ReadNarrowingEvidence, ShellCommandFacts, ShellReaderFacts } from "../tool/types.js";
import { cachedPathPattern, pathMatches } from "./path-rules.js";

/** What a recursive root reads below it. */
export type RootLimit = ShellReaderFacts["limit"];

/** Which of git's listings bounds what a reader prints. */
export type GitView = "history" | "index" | "untracked" | "unignored";

/** Paths git may print, past which (or past the time) the check gives up. */
const GIT_MAX_PATHS = 200_000;
const GIT_TIMEOUT_MS = 5_000;
const GIT_MAX_BUFFER = 64 * 1024 * 1024;

/** ripgrep's own ignore files: a `!` line there may bring back what .gitignore ignores. */
const RG_IGNORE_FILES = new Set([".ignore", ".rgignore"]);

/**
 * The git runs one view needs, in order: the first prints the top of the work tree. Where
 * untracked files count (`git grep --untracked`, ripgrep), the global excludes file is left
 * out, so that this git lists at least what the command's own git or ripgrep does not ignore; the last listing is the ignored paths, only
 * searched for ripgrep's own ignore files.
 */
function gitRuns(view: GitView): string[][] {
  const top = ["rev-parse", "--show-toplevel"];
  switch (view) {
    case "index":
      return [top, ["ls-files", "-z", "--cached"]];
    case "untracked":
      return [top, ["-c", "core.excludesFile=/dev/null", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]];
    case "unignored":
      return [top, ["-c", "core.excludesFile=/dev/null", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]];
    case "history":
      return [top, ["ls-files", "-z", "--cached"], ["log", "--all", "--reflog", "--no-renames", "--no-ext-diff", "--no-textconv", "--name-only", "--format=", "-z"]];
  }
}

/** The paths of a view from its runs' outputs (as `gitRuns` orders them), or undefined when unsure. */
function parseGitRuns(view: GitView, outputs: readonly string[]): { top: string; paths: string[] } | undefined {
  const top = (outputs[0] ?? "").trim();
  if (!top.startsWith("/")) return undefined;
  const paths = new Set<string>();
  for (const p of (outputs[1] ?? "").split("\0")) paths.add(p);
  if (view === "history") for (const p of (outputs[2] ?? "").split(/[\0\n]/)) paths.add(p);
  paths.delete("");
  if (paths.size > GIT_MAX_PATHS) return undefined;
  if (view === "unignored") {
    const ignored = (outputs[2] ?? "").split("\0");
    if ([...paths, ...ignored].some((p) => RG_IGNORE_FILES.has(posix.basename(p)))) return undefined;
  }
  return { top, paths: [...paths] };
}

/** The hardened git command for one run in `dir`, or undefined where no trusted git is installed. */
function gitCommand(dir: string, args: readonly string[]): { file: string; args: string[]; env: NodeJS.ProcessEnv } | undefined {
  // armature's own git: hardened (no hooks, fsmonitor, lazy fetch) and read-only where the sandbox runs.
  const cmd = engineCommand("git", ["-c", "log.showSignature=false", "-c", "core.untrackedCache=false", "--no-pager", "-C", dir, ...args], { cwd: dir });
  return cmd ? { file: cmd.file, args: cmd.args, env: cmd.env } : undefined;
}

/** Whether the repository at `dir` is one whose listing is judged: no submodules; for ripgrep, a `.git` directory at its top. */
function viewUnsure(dir: string, view: GitView): boolean {
  return existsSync(posix.join(dir, ".gitmodules")) || (view === "unignored" && !gitDirectoryAt(dir));
}

/** Every path git may print for the repository holding `dir` in this view (synchronously). */
export function gitPathsSync(dir: string, view: GitView): { top: string; paths: string[] } | undefined {
  if (viewUnsure(dir, view)) return undefined;
  try {
    const outputs = gitRuns(view).map((args) => {
      const cmd = gitCommand(dir, args);
      if (!cmd) throw new Error("git is not installed where the project cannot plant one");
      return execFileSync(cmd.file, cmd.args, { cwd: dir, encoding: "utf8", timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_BUFFER, stdio: ["ignore", "pipe", "ignore"], env: cmd.env });
    });
    return checkTop(parseGitRuns(view, outputs), view);
  } catch {
    return undefined; // not a repository, git missing, too slow: unsure
  }
}

/** The same, without blocking the event loop; the signal stops it. */
export async function gitPaths(dir: string, view: GitView, signal?: AbortSignal): Promise<{ top: string; paths: string[] } | undefined> {
  if (viewUnsure(dir, view)) return undefined;
  const outputs: string[] = [];
  for (const args of gitRuns(view)) {
    const cmd = gitCommand(dir, args);
    if (!cmd || signal?.aborted) return undefined;
    const out = await new Promise<string | undefined>((resolve) => {
      execFile(cmd.file, cmd.args, { cwd: dir, encoding: "utf8", timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_BUFFER, env: cmd.env, signal }, (err, stdout) => resolve(err ? undefined : stdout));
    });
    if (out === undefined) return undefined;
    outputs.push(out);
  }
  return checkTop(parseGitRuns(view, outputs), view);
}

/** For ripgrep: the top of the work tree has a `.git` directory, and no ancestor holds ripgrep's own ignore files. */
function checkTop(found: { top: string; paths: string[] } | undefined, view: GitView): { top: string; paths: string[] } | undefined {
  if (!found || view !== "unignored") return found;
  if (!gitDirectoryAt(found.top)) return undefined;
  for (let d = found.top; ; d = posix.dirname(d)) {
    if ([...RG_IGNORE_FILES].some((f) => existsSync(posix.join(d, f)))) return undefined;
    if (d === "/") return found;
  }
}

function gitDirectoryAt(dir: string): boolean {
  try {
    return lstatSync(posix.join(dir, ".git")).isDirectory();
  } catch {
    return false;
  }
}

/** Whether git's listing holds no path these rules match (a listed directory, `sub/`, stands for all below it). */
export function gitListingAvoids(ever: { top: string; paths: readonly string[] }, rules: readonly PermissionRule[], projectDir: string, home: string): boolean {
  const patterns = rules.map((r) => cachedPathPattern(r, projectDir, home));
  return ever.paths.every((p) => {
    const abs = `${ever.top}/${p.endsWith("/") ? p.slice(0, -1) : p}`;
    if (patterns.some((pattern) => pathMatches(pattern, abs, true))) return false;
    return !p.endsWith("/") || !patterns.some((pattern) => pathMatches(pattern, `${abs}/${ANY_ENTRY}`, true));
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
 * The one walk: yields each directory (relative to the root, `""` the root) to be read and
 * receives its subdirectories' names (undefined: it cannot be read). Returns the directories,
 * or undefined when unsure (the root unreadable, past the bound). Symlinks are not followed.
 */
function* directoryWalk(): Generator<string, string[] | undefined, string[] | undefined> {
  const pending = [""];
  const seen: string[] = [];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    if (seen.push(rel) > LISTING_MAX_DIRECTORIES) return undefined;
    const subdirs = yield rel;
    if (!subdirs) {
      if (rel === "") return undefined; // the root itself cannot be listed now: unsure
      continue;
    }
    for (const name of subdirs) pending.push(rel === "" ? name : `${rel}/${name}`);
  }
  return seen;
}

const subdirectoryNames = (entries: readonly Dirent[]): string[] => entries.filter((e) => e.isDirectory()).map((e) => e.name);

/** The directories at and below `root` (synchronously), or undefined when unsure. */
export function directoriesBelowSync(root: string): string[] | undefined {
  const walk = directoryWalk();
  let step = walk.next();
  while (!step.done) {
    let names: string[] | undefined;
    try {
      names = subdirectoryNames(readdirSync(step.value === "" ? root : `${root}/${step.value}`, { withFileTypes: true }));
    } catch {
      names = undefined;
    }
    step = walk.next(names);
  }
  return step.value;
}

/** The same, without blocking the event loop; the signal stops it. */
export async function directoriesBelow(root: string, signal?: AbortSignal): Promise<string[] | undefined> {
  const walk = directoryWalk();
  let step = walk.next();
  while (!step.done) {
    if (signal?.aborted) return undefined;
    let names: string[] | undefined;
    try {
      names = subdirectoryNames(await readdir(step.value === "" ? root : `${root}/${step.value}`, { withFileTypes: true }));
    } catch {
      names = undefined;
    }
    step = walk.next(names);
  }
  return step.value;
}

/**
 * Whether a command that lists names and metadata below `root` (`find`, `du`, `tree -a`) lists
 * nothing these rules protect: no directory at or below the root, by its real or its written
 * name, is one a rule matches or one whose every entry a rule matches. Listing a file's name is
 * not reading the file; listing what a matched directory holds is reading that directory.
 * Symlinks are not followed (the roots of a lister that follows them are judged through where
 * they lead). `found`: the directories below the root as `directoriesBelow` found them (null:
 * unsure; walked here when not given).
 */
export function listsNoRestrictedDirectory(
  rules: readonly PermissionRule[],
  root: { lexical: string; canonical: string },
  projectDir: string,
  home: string,
  found?: readonly string[] | null,
): boolean {
  const dirs = found === undefined ? directoriesBelowSync(root.canonical) : found;
  if (!dirs) return false;
  const patterns = rules.map((r) => cachedPathPattern(r, projectDir, home));
  // A directory is restricted when a rule matches it, or matches whatever it holds (`secrets/*`):
  // a name only a wildcard matches stands for any entry.
  const restricted = (rel: string): boolean =>
    [root.canonical, root.lexical].some((top) => {
      const dir = rel === "" ? top : `${top}/${rel}`;
      return patterns.some((p) => pathMatches(p, dir, true) || pathMatches(p, `${dir}/${ANY_ENTRY}`, true));
    });
  return !dirs.some(restricted);
}

/** The git view a reader's limit is judged by, if any. */
export function gitViewOf(limit: RootLimit): GitView | undefined {
  if (limit === "git") return "history";
  if (limit === "git-index") return "index";
  if (limit === "git-untracked") return "untracked";
  if (limit === "unignored" || limit === "visible-unignored") return "unignored";
  return undefined;
}

export const evidenceKey = (view: GitView, dir: string): string => `${view}\0${dir}`;

/**
 * What the narrowing of a command's recursive readers will judge, gathered without blocking
 * the event loop: for every root word that is a plain path (resolved from `cwd`), the git view
 * its readers need or the directories below it. Roots it cannot place (after a `cd`, an
 * expansion) get nothing, and the decision then asks. Undefined when no root is narrowed.
 */
export async function readNarrowingEvidence(facts: ShellCommandFacts, cwd: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<ReadNarrowingEvidence | undefined> {
  const limits = derivedShellReads(facts.subcommands).rootLimits;
  const evidence: ReadNarrowingEvidence = { git: {}, directories: {} };
  let any = false;
  for (const [word, limit] of limits) {
    if (limit === "all" || limit === "visible" || !/^[\w./@+,-]+$/.test(word)) continue;
    let dir: string;
    try {
      dir = await realpath(posix.resolve(cwd, word));
      if (!(await lstat(dir)).isDirectory()) continue;
    } catch {
      continue;
    }
    if (signal?.aborted) return undefined;
    any = true;
    const view = gitViewOf(limit);
    if (view === "unignored" && env.RIPGREP_CONFIG_PATH) continue; // options of its own: unsure
    if (view) {
      const key = evidenceKey(view, dir);
      if (!(key in evidence.git)) evidence.git[key] = (await gitPaths(dir, view, signal)) ?? null;
    } else if (!(dir in evidence.directories)) {
      evidence.directories[dir] = (await directoriesBelow(dir, signal)) ?? null;
    }
  }
  return any && !signal?.aborted ? evidence : undefined;
}
