// What a command reads beyond the files its argv names: the roots recursive readers walk
// (`grep -r`, `rg`, `find`, `du`, `tar c`, `cp -r`, `diff -r`, `git log -p`), the operands of
// directory listers, and whether the walk follows symlinks. Read through the command's option
// table by the one getopt parser, so `grep --recur`, `grep -d rec`, `diff --recur` and `rg -u -u`
// read as the tool reads them, not by the spelling of one option name.
import { posix } from "node:path";
import type { ShellReaderFacts } from "../tool/types.js";
import type { CommandTable } from "./commands/types.js";
import { getopt, type ParsedArgs } from "./getopt.js";
import { parseGit } from "./git-argv.js";
import { parseCommand } from "./options.js";
import { tarParse } from "./tar.js";
import type { Word } from "./words.js";

const LISTERS = new Set(["ls", "stat", "realpath", "readlink", "du", "tree"]);
const GREPS = new Set(["grep", "egrep", "fgrep", "rg"]);

/** Readers without a table elsewhere (their read-only judgement does not depend on one). */
const LOCAL_TABLES: Record<string, CommandTable> = {
  tree: { partial: true, short: "adlfxL:RP:I:gupsDFinqNQSvtrcC~ho:H:T:", long: ["fromfile", "fromtabfile", "filelimit=", "timefmt=", "charset=", "gitignore", "prune", "dirsfirst", "filesfirst", "noreport", "inodes", "device", "du", "sort=", "matchdirs", "ignore-case", "info", "infofile=", "hintro=", "houtro=", "nolinks", "metafirst"] },
  zip: { partial: true, short: "b:n:t:i:x:rRyqvmjJlTXDAFegokzu0123456789", long: ["recurse-paths", "symlinks", "temp-path=", "suffixes=", "include=", "exclude="] },
};

/** git subcommands that may print file contents. */
const GIT_CONTENT_READERS = new Set([
  "grep", "log", "show", "diff", "whatchanged", "diff-tree", "diff-index", "diff-files", "cat-file",
  "archive", "range-diff", "stash", "blame", "annotate",
]);

/**
 * Options that take git past tracked files and the history of refs/reflogs (canonical names:
 * the git parser has resolved `--untrack` to `--untracked`).
 */
const GIT_WIDENING = new Set([
  "--stdin", "--no-index", "--alternate-refs", "--indexed-objects", "--unpacked", "--textconv", "--ext-diff",
  "--contents", "--open-files-in-pager", "--recurse-submodules", "--submodule",
  "--find-object", "--all-match", "--object-only", "--follow-symlinks", "-O", "--orderfile",
]);
const HEADISH = /^(HEAD|@)([~^]\d*)*$/;

function parsedFor(name: string, words: readonly Word[]): ParsedArgs {
  const local = LOCAL_TABLES[name];
  return local ? getopt(words, local) : parseCommand(name, words);
}

const has = (p: ParsedArgs, ...names: string[]): boolean => p.options.some((o) => !o.negated && names.includes(o.name));
const count = (p: ParsedArgs, ...names: string[]): number => p.options.filter((o) => !o.negated && names.includes(o.name)).length;
const operandTexts = (p: ParsedArgs): string[] => p.operands.map((o) => o.word.text);

/**
 * The reader facts of one command's words (the innermost command of transparent wrappers), or
 * undefined when it is no reader. `own`: the command's own read targets from the analysis (it
 * knows when `rg x` reads a pipe rather than `.`, and git's pathspecs).
 */
export function readerFacts(words: readonly Word[], own: readonly string[] | undefined): ShellReaderFacts | undefined {
  const name = posix.basename(words[0]?.text ?? "");
  const out: ShellReaderFacts = { listed: [], recursive: [], follows: false, limit: "all" };
  if (name === "find") {
    let i = 1;
    while (i < words.length && /^-([HLP]|D|O\d*)$/.test(words[i]!.text)) i += words[i]!.text === "-D" ? 2 : 1;
    const roots: string[] = [];
    for (; i < words.length; i++) {
      const a = words[i]!.text;
      if (a.startsWith("-") || a === "(" || a === "!") break;
      roots.push(a);
    }
    if (roots.length === 0) roots.push(".");
    out.listed.push(...roots);
    out.recursive.push(...roots);
    out.follows = words.slice(1).some((w) => w.text === "-L" || w.text === "-follow");
    // find prints names and metadata (-printf, -ls) unless it runs a program on what it finds.
    out.limit = words.slice(1).some((w) => /^-(exec|execdir|ok|okdir)$/.test(w.text)) ? "all" : "names";
    return out;
  }
  if (name === "git") {
    const git = parseGit(words);
    const sub = git.sub ?? "";
    if (own) out.recursive.push(...own);
    else if (GIT_CONTENT_READERS.has(sub)) out.recursive.push(".");
    if (out.recursive.length === 0) return undefined;
    out.limit = gitTrackedOnly(sub, git.parsed) ? gitGrepView(sub, git.parsed) : "all";
    return out; // git records a symlink's text, it never reads through it
  }
  if (name === "ln") {
    const p = parsedFor(name, words);
    if (has(p, "-s", "--symbolic")) return undefined;
    const operands = operandTexts(p);
    // A hard link gives the file's content a second name: its sources are read.
    out.listed.push(...(has(p, "-t", "--target-directory") || operands.length === 1 ? operands : operands.slice(0, -1)));
    return out.listed.length > 0 ? out : undefined;
  }
  if (name === "link") {
    if (words[1] === undefined) return undefined;
    out.listed.push(words[1].text);
    return out;
  }
  if (name === "tar") {
    const p = tarParse(words);
    if (!has(p, "-c", "--create")) return undefined;
    const dirs = p.options.filter((o) => o.name === "-C" || o.name === "--directory").map((o) => o.value?.text ?? "");
    out.recursive.push(...operandTexts(p), ...dirs);
    out.follows = has(p, "-h", "--dereference");
    return out;
  }
  const p = parsedFor(name, words);
  const operands = operandTexts(p);
  if (LISTERS.has(name)) {
    out.listed.push(...operands);
    const recursive = name === "du" || name === "tree" || (name === "ls" && has(p, "-R", "--recursive"));
    if (recursive) out.recursive.push(...(operands.length > 0 ? operands : ["."]));
    out.follows = name === "tree" ? has(p, "-l") : has(p, "-L", "--dereference");
    // Listers print names and metadata; `tree --fromfile` reads the listings its operands hold.
    if (name === "du") out.limit = "names";
    if (name === "tree") out.limit = has(p, "--fromfile", "--fromtabfile") ? "all" : has(p, "-a") ? "names" : "visible-names";
    if (name === "ls") out.limit = has(p, "-a", "-A", "--all", "--almost-all") ? "names" : "visible-names";
    return out.listed.length > 0 || out.recursive.length > 0 ? out : undefined;
  }
  if (GREPS.has(name)) {
    if (!(name === "rg" || grepRecurses(p))) return undefined;
    const patternGiven = has(p, "-e", "-f", "--regexp", "--file") || (name === "rg" && has(p, "--files", "--type-list"));
    const paths = patternGiven ? operands : operands.slice(1);
    // No path: `.`, unless the analysis found that this search reads its stdin (`a | rg x`).
    out.recursive.push(...(paths.length > 0 ? paths : own && !own.includes(".") ? [] : ["."]));
    out.listed.push(...paths);
    out.follows = name === "rg" ? has(p, "-L", "--follow") : has(p, "-R", "--dereference-recursive");
    if (name === "rg") out.limit = rgLimit(p);
    return out.recursive.length > 0 || out.listed.length > 0 ? out : undefined;
  }
  if (name === "cp") {
    if (!has(p, "-r", "-R", "-a", "--recursive", "--archive")) return undefined;
    out.recursive.push(...operands);
    out.follows = has(p, "-L", "--dereference");
    return out;
  }
  if (name === "diff") {
    // `diff -r a b` compares every file below both (and prints the differing lines).
    if (!has(p, "-r", "--recursive")) return undefined;
    out.recursive.push(...operands);
    out.follows = !has(p, "--no-dereference");
    return out;
  }
  if (name === "zip") {
    if (!has(p, "-r", "-R", "--recurse-paths")) return undefined;
    out.recursive.push(...operands);
    out.follows = !has(p, "-y", "--symlinks");
    return out;
  }
  return undefined;
}

/**
 * grep recurses with -r/-R, or `-d`/`--directories` ACTION `recurse`, which grep reads with
 * argmatch: any unambiguous prefix (`rec`). An ambiguous one (`re`) is refused; counted too.
 */
function grepRecurses(p: ParsedArgs): boolean {
  if (has(p, "-r", "-R", "--recursive", "--dereference-recursive")) return true;
  return p.options.some((o) => (o.name === "-d" || o.name === "--directories") && o.value !== undefined && o.value.text !== "" && "recurse".startsWith(o.value.text));
}

/**
 * What ripgrep reads below its roots. It skips what the ignore files ignore unless `-u`,
 * `--no-ignore`, `--no-ignore-vcs`/`-exclude`, or globs (`-g`, which override every ignore
 * rule) and `--ignore-file` (whose `!` lines may whitelist) say otherwise; it skips hidden files
 * unless `--hidden`, two `-u`, or a type or glob whitelists them (`-t sh` reads `.bashrc`).
 * Preprocessors are not modelled.
 */
function rgLimit(p: ParsedArgs): ShellReaderFacts["limit"] {
  const u = count(p, "-u", "--unrestricted");
  if (has(p, "-g", "--glob", "--iglob", "--pre", "--pre-glob", "--ignore-file", "--no-ignore-files")) return "all";
  const ignores = u === 0 && !has(p, "--no-ignore", "--no-ignore-vcs", "--no-ignore-exclude");
  const hidden = u >= 2 || has(p, "-.", "--hidden", "-t", "--type", "--type-add", "--no-ignore-dot");
  if (hidden) return ignores ? "unignored" : "all";
  return ignores ? "visible-unignored" : "visible";
}

/**
 * The git listing that bounds a history-or-tracked reader: `git grep` without a revision
 * reads the index (with `--untracked`, what git does not ignore too); with one, and `git diff`,
 * `show`, `log`, the history.
 */
function gitGrepView(sub: string, parsed: ParsedArgs): ShellReaderFacts["limit"] {
  if (sub !== "grep") return "git";
  const before = parsed.operands.filter((o) => parsed.dashDash === undefined || o.index < parsed.dashDash);
  const revs = has(parsed, "-e", "-f") ? before : before.slice(1);
  if (revs.length > 0 || has(parsed, "--cached")) return "git";
  return has(parsed, "--untracked") ? "git-untracked" : "git-index";
}

/**
 * Whether a git subcommand reads only tracked files and the history of its refs: `git diff
 * [--cached]`, `git show [HEAD~n]`, `git log -p`, `git grep PATTERN`. A named object (`git show
 * 1a2b…`) may be a blob outside every history: not narrowed. Options are the parser's canonical
 * names, so an abbreviation (`--untrack`) is the option it selects.
 */
function gitTrackedOnly(sub: string, parsed: ParsedArgs): boolean {
  if (!/^(diff|show|log|grep|whatchanged)$/.test(sub)) return false;
  if (parsed.errors.length > 0) return false;
  for (const o of parsed.options) {
    if (o.negated && o.name === "--exclude-standard") return false;
    if (!o.negated && GIT_WIDENING.has(o.name)) return false;
    // `git grep --untracked` reads untracked files git does not ignore: judged by that listing.
    if (o.name === "--untracked" && sub !== "grep") return false;
    // log/diff options this parser does not list: a value it takes could be read as a revision.
    if (sub !== "grep" && o.value === undefined && /^--(format|pretty|author|grep|since|until|max-count|skip)$/.test(o.name)) return false;
  }
  // Operands after `--` are pathspecs; before it, revisions (for `git grep` without -e/-f the
  // first operand is the pattern).
  const before = parsed.operands.filter((o) => parsed.dashDash === undefined || o.index < parsed.dashDash);
  const revs = sub === "grep" && !has(parsed, "-e", "-f") ? before.slice(1) : before;
  return revs.every((r) => HEADISH.test(r.word.text));
}
