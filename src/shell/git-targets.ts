// Paths git reads or writes that its options do not name: pathspecs and path operands of the
// commands that print file contents (`git log -p -- f`, `git blame f`), the path of a
// `REV:path` blob (`git show HEAD:f`), and the work tree that checkout/reset/merge… rewrite.
// `-C dir` (and `--work-tree`) move all of these under dir.
import { posix } from "node:path";
import { findOption, getopt, type ParsedArgs } from "./getopt.js";
import { parseGit } from "./git-argv.js";
import { tableTargets, unnamedFiles } from "./options.js";
import { subcommandTable } from "./git-argv.js";
import type { RepositoryReads, Targets } from "./commands/types.js";
import type { Word } from "./words.js";

/** Subcommands whose path operands and pathspecs name files whose contents they print. */
const CONTENT_READERS = new Set([
  "log", "show", "diff", "whatchanged", "diff-tree", "diff-index", "diff-files", "blame", "annotate", "grep", "cat-file",
  "range-diff", "rev-parse", "ls-files", "ls-tree", "archive", "hash-object", "reflog",
]);

/** Subcommands that rewrite files of the work tree (always, or with the options checked below). */
const WORK_TREE_WRITERS = new Set([
  "checkout", "switch", "restore", "reset", "stash", "clean", "apply", "am", "merge", "pull",
  "rebase", "cherry-pick", "revert", "mv", "rm", "checkout-index", "read-tree", "submodule",
  "worktree", "clone", "init", "sparse-checkout",
]);

const OPERANDS_ONLY = { style: "git", partial: true } as const;

/** Where git's paths are: below the directory it runs in (`under`), or below its work tree's top (recorded in `top`). */
interface Place {
  under: (p: string) => string;
  top: RepositoryReads;
}

export function gitTargets(words: Word[], t: Targets): void {
  const git = parseGit(words);
  // Global options: where the repository is, then the subcommand.
  let base = "";
  let workTree: string | undefined;
  for (const o of git.globals.options) {
    if (o.name === "-C" && o.value !== undefined) base = joinDir(base, o.value.text);
    if (o.name === "--work-tree" && o.value !== undefined) workTree = o.value.text;
  }
  const sub = git.sub;
  if (sub === undefined) return;
  const rest = git.rest;
  const parsed = git.parsed;
  const under = (p: string): string => joinDir(base, p);
  const repoDir = workTree !== undefined ? under(workTree) : base === "" ? "." : base;
  const top: RepositoryReads = { dir: base === "" ? "." : base, workTree: workTree !== undefined ? under(workTree) : null, files: [], trees: [] };
  const place: Place = { under, top };

  // Option values the subcommand's table names as files (`archive -o`, `grep -f`, `config -f`, `blame --contents`).
  const byTable: Targets = { read: [], write: [], cd: [] };
  tableTargets("", parsed, byTable, subcommandTable(sub));
  t.read.push(...byTable.read.map((p) => (p.startsWith("$(") ? p : under(p))));
  t.write.push(...byTable.write.map((p) => (p.startsWith("$(") ? p : under(p))));
  for (const o of parsed.options) {
    const v = o.value?.text;
    if (v === undefined) continue;
    if (o.name === "--contents") t.read.push(under(v));
    if (o.name === "-L" && v.includes(":")) t.read.push(under(v.slice(v.lastIndexOf(":") + 1)));
    // `git config --blob REV:path -l` prints the blob's entries (a committed file's contents); a
    // blob named by its hash may be any file of the history.
    if (sub === "config" && o.name === "--blob") t.read.push(isObjectPath(v) ? objectPathUnder(v, place) : ".");
  }
  if (sub === "config" && findOption(parsed, "", ["includes"])) t.read.push(unnamedFiles("files that include.path in the configuration names"));
  if (sub === "diff" && findOption(parsed, "", ["no-index"])) t.read.push(...parsed.operands.map((o) => under(o.word.text)));
  if (CONTENT_READERS.has(sub)) t.read.push(...contentPaths(sub, rest, parsed, place));
  if (top.files.length > 0 || top.trees.length > 0) t.fromTop = top;
  // `git stash show` prints the stash's diff (stat by default, a patch with -p or stash.showPatch).
  const operandsOnly = getopt(rest, OPERANDS_ONLY).operands.map((o) => o.word.text);
  if (sub === "stash" && operandsOnly[0] === "show") t.read.push(repoDir);
  if (WORK_TREE_WRITERS.has(sub) && writesWorkTree(sub, rest)) {
    const operands = operandsOnly;
    if (sub === "clone") {
      const url = operands[0];
      const dir = operands[1] ?? (url ? cloneDirName(url) : undefined);
      if (dir !== undefined) t.write.push(under(dir));
    } else if (sub === "init") {
      t.write.push(operands[0] !== undefined ? under(operands[0]) : repoDir);
    } else if (sub === "worktree") {
      if (operands[1] !== undefined) t.write.push(under(operands[1]));
    } else t.write.push(repoDir);
  }
}

/** Options of the log/diff family that print file contents (patches, pickaxe searches). Git takes no abbreviations here. */
const PATCH_SHORT = "puUcmWSG";
const PATCH_LONG = new Set([
  "--patch", "--unified", "--cc", "--word-diff", "--word-diff-regex", "--color-words", "--full-diff",
  "--function-context", "--binary", "--check", "--remerge-diff", "--diff-merges", "--patch-with-raw",
  "--patch-with-stat", "--pickaxe-regex", "--pickaxe-all", "--find-object", "--textconv", "--filters",
  "--batch", "--batch-command",
]);
/** Options after which `git show` / `git diff` print no contents (unless a patch option is given too). */
const NO_PATCH = new Set([
  "-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--raw",
  "--summary", "--dirstat", "--compact-summary", "--quiet",
]);

/**
 * The paths a content reader is limited to. With `--`, operands before it are revisions (only a
 * `REV:path` names a file) and pathspecs follow. Without it, an operand that is no revision may
 * be a path — or a branch. A reader that prints contents reads the whole tree (`.`) unless
 * pathspecs limit it or it shows only `REV:path` objects: `git log -p`, `git show`, `git diff`,
 * `git show <blob>`, `git cat-file -p <sha>`, `git grep x`, `git archive HEAD`. An operand without
 * `--` that is no revision may be a branch: the whole tree is read then too.
 */
function contentPaths(sub: string, rest: Word[], parsed: ParsedArgs, place: Place): string[] {
  const { under } = place;
  const dashDash = rest.findIndex((w) => w.text === "--");
  const before = parsed.operands.filter((o) => dashDash === -1 || o.index < dashDash).map((o) => o.word.text);
  const after = dashDash === -1 ? [] : rest.slice(dashDash + 1).map((w) => w.text);
  if (sub === "grep" && !findOption(parsed, "ef", ["regexp", "file"])) before.shift();
  if (sub === "archive" || sub === "ls-tree") before.shift();
  // `git reflog [show|exists] [REV]`: the first word is reflog's own subcommand, not a path.
  if (sub === "reflog" && /^(show|exists)$/.test(before[0] ?? "")) before.shift();
  const objectsOnly = sub === "cat-file" || sub === "rev-parse" || dashDash !== -1;
  const paths: string[] = [];
  let revisions = 0;
  let ambiguous = 0;
  let limits = 0;
  for (const op of before) {
    if (sub === "hash-object" || sub === "archive" || sub === "ls-files" || sub === "ls-tree") {
      paths.push(under(op));
      limits++;
      continue;
    }
    const path = operandPath(op, objectsOnly);
    if (path === undefined) {
      if (!(sub === "cat-file" && /^(blob|tree|commit|tag)$/.test(op))) revisions++;
      continue;
    }
    paths.push(isObjectPath(op) ? objectPathUnder(op, place) : pathspecUnder(op, path, place));
    if (!isObjectPath(op)) {
      ambiguous++;
      limits++;
    }
  }
  for (const spec of after) {
    const path = pathspecPath(spec);
    if (path !== undefined) {
      paths.push(pathspecUnder(spec, path, place));
      limits++;
    }
  }
  if (printsContents(sub, parsed, before)) {
    const onlyObjects = revisions === 0 && paths.length > 0 && limits === 0;
    const wholeTree = !onlyObjects && (limits === 0 || (dashDash === -1 && ambiguous > 0));
    if (wholeTree) {
      paths.push(under("."));
      // git grep searches below the directory it runs in; the other readers print the whole repository.
      if (sub !== "grep") place.top.trees.push(".");
    }
  }
  return paths;
}

/** Whether this invocation prints file contents (as opposed to names, hashes, statistics). */
function printsContents(sub: string, parsed: ParsedArgs, operands: string[]): boolean {
  const patch = parsed.options.some((o) => (o.name.length === 2 && PATCH_SHORT.includes(o.name[1] as string)) || PATCH_LONG.has(o.name));
  switch (sub) {
    case "grep":
    case "archive":
    case "range-diff":
      return true;
    case "show":
      // A tag may name a blob: only HEAD-like names are known to be commits.
      return patch || !parsed.options.some((o) => NO_PATCH.has(o.name)) || !operands.every((op) => REF_NAMES.test(op));
    case "diff":
      // `--no-index A B` compares two files: they are its targets (see commandTargets).
      if (parsed.options.some((o) => o.name === "--no-index")) return false;
      return patch || !parsed.options.some((o) => NO_PATCH.has(o.name));
    case "cat-file":
      return patch || /^(blob|tree|commit|tag)$/.test(operands[0] ?? "");
    case "log":
    case "reflog":
    case "whatchanged":
    case "diff-tree":
    case "diff-index":
    case "diff-files":
      return patch;
    default:
      return false;
  }
}

/** Whether this work-tree subcommand, with these options, changes files. */
function writesWorkTree(sub: string, rest: Word[]): boolean {
  const parsed = getopt(rest, OPERANDS_ONLY);
  const first = parsed.operands[0]?.word.text;
  switch (sub) {
    case "reset":
      return findOption(parsed, "", ["hard", "merge", "keep"]) !== undefined;
    case "stash":
      return first !== "list" && first !== "show";
    case "apply":
      return !findOption(parsed, "", ["check", "stat", "numstat", "summary", "cached"]) || !!findOption(parsed, "", ["apply"]);
    case "read-tree":
      return findOption(parsed, "u", []) !== undefined;
    case "worktree":
      return first === "add" || first === "move" || first === "remove";
    case "submodule":
      return first !== undefined && first !== "status" && first !== "summary" && first !== "foreach";
    case "sparse-checkout":
      return first !== "list";
    default:
      return true;
  }
}

/**
 * The file an operand before `--` may name: `REV:path` → path (`:path`, `:2:path` too), a
 * revision (`HEAD~2`, `a..b`, a hash) → none, anything else may be a path (git takes an operand
 * that is no revision as a path). For cat-file, only `REV:path` operands are paths.
 */
function operandPath(op: string, objectsOnly: boolean): string | undefined {
  const colon = op.indexOf(":");
  if (colon !== -1 && !op.startsWith(":(") && !op.startsWith(":/")) {
    let path = op.slice(colon + 1);
    if (colon === 0 && /^[0-3]:/.test(path)) path = path.slice(2);
    return path === "" ? "." : path;
  }
  if (objectsOnly || isRevision(op)) return undefined;
  return pathspecPath(op);
}

/** The path a pathspec names: `:(exclude)x` / `:!x` → none, `:/x` and `:(top,glob)x` → x. */
function pathspecPath(spec: string): string | undefined {
  if (/^:[!^]/.test(spec)) return undefined;
  const magic = /^:\(([^)]*)\)(.*)$/.exec(spec);
  if (magic) return /(^|,)exclude(,|$)/.test(magic[1] as string) ? undefined : magic[2] || ".";
  if (spec.startsWith(":/")) return spec.slice(2) || ".";
  return spec === "" ? undefined : spec;
}

const REF_NAMES = /^(HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD|CHERRY_PICK_HEAD|REVERT_HEAD|REBASE_HEAD|AUTO_MERGE|@)([~^].*)?$/;

/**
 * Where the path of a `REV:path` object is: `REV:./x` and `REV:../x` are from the directory git
 * runs in (after `-C`); any other is from the top of the work tree, which `git -C dir` into the
 * same repository does not move (`git -C src show HEAD:secret/key` reads secret/key). The top is
 * taken to be the cwd, as for a `REV:path` without `-C`.
 */
function objectPathUnder(op: string, place: Place): string {
  const path = operandPath(op, true) ?? ".";
  const fromCwd = path === "." ? /:\.$/.test(op) : /^\.\.?(\/|$)/.test(path);
  if (fromCwd) return place.under(path);
  // A tree object (`HEAD:` or `HEAD:dir`) prints names; a blob its contents: either way a read of that path.
  place.top.files.push(path);
  return path;
}

/** A pathspec's path: `:/x` and `:(top)x` are from the top of the work tree (see objectPathUnder), any other from git's directory. */
function pathspecUnder(spec: string, path: string, place: Place): string {
  const magic = /^:\(([^)]*)\)/.exec(spec);
  const fromTop = spec.startsWith(":/") || (magic !== null && /(^|,)top(,|$)/.test(magic[1] as string));
  if (!fromTop) return place.under(path);
  place.top.trees.push(path);
  return path;
}

/** `REV:path`, `:path`, `:2:path`: an object named by its path (not a pathspec, not a revision). */
function isObjectPath(op: string): boolean {
  return op.includes(":") && !op.startsWith(":(") && !op.startsWith(":/");
}

function isRevision(op: string): boolean {
  return (
    REF_NAMES.test(op) ||
    /^[0-9a-f]{7,64}$/i.test(op) ||
    op.includes("@{") ||
    op.startsWith("^") ||
    /\^[0-9!@{-]*$|~[0-9]*$/.test(op) ||
    (op.includes("..") && !/(^|\/)\.\.(\/|$)/.test(op))
  );
}

function joinDir(base: string, p: string): string {
  if (base === "" || p.startsWith("/") || p.startsWith("~")) return p;
  return posix.join(base, p);
}

/** `git clone URL` with no directory clones into the URL's last component, without `.git`. */
function cloneDirName(url: string): string {
  const last = url.replace(/\/+$/, "").split(/[/:]/).pop() ?? "";
  return last.replace(/\.git$/, "") || ".";
}
