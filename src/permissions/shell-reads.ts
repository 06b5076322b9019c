import { posix } from "node:path";
import type { ShellSubcommand } from "../tool/types.js";
import { effectiveArgv } from "./bash-rules.js";
import { gitReadsTrackedOnly, type RootLimit } from "./read-narrowing.js";

/**
 * What the engine derives itself from a command's argv, on top of the analysis's read targets:
 * the operands of directory listers (`ls ~/.ssh` reads outside the working dirs) and the roots
 * of recursive readers (`grep -r . .` reads every file below `.`, a Read-denied one too).
 * Conservative: a word that may be an option's value or a pattern may be taken for a path (it
 * can only make a call ask), a reader without operands reads `.`.
 */
export interface ShellReads {
  reads: string[];
  /** Directories read with everything below them. */
  recursiveRoots: string[];
  /**
   * Recursive roots read through the symlinks below them (`grep -R`, `rg -L`, `find -L`,
   * `cp -rL`, `tar -h`, `zip -r`, `diff -r`…): a link in the tree is a read of where it points.
   */
  followingRoots: string[];
  /** What each recursive root's readers read below it: `all` unless every one of them reads less. */
  rootLimits: Map<string, RootLimit>;
}

const LISTERS = new Set(["ls", "stat", "realpath", "readlink", "du", "tree", "find"]);
/** Short options that take the next word as their value, per command. */
const VALUE_FLAGS: Record<string, string> = {
  ls: "IwT",
  du: "dBtX",
  tree: "LIPoHT",
  stat: "c",
  grep: "efmABCdD",
  rg: "efgtTmABCjMEr",
  cp: "tS",
  ln: "tS",
  tar: "fCTXbHLV",
  zip: "bntix",
};
const LONG_VALUE = /^--(regexp|file|glob|iglob|type|type-not|max-count|after-context|before-context|context|threads|max-columns|encoding|replace|exclude|ignore|hide|format|printf|target-directory|suffix|directory|files-from|exclude-from|block-size|max-depth|threshold|time-style)$/;

/** git subcommands that may print file contents (see the analysis's git-targets). */
const GIT_CONTENT_READERS = new Set([
  "grep", "log", "show", "diff", "whatchanged", "diff-tree", "diff-index", "diff-files", "cat-file",
  "archive", "range-diff", "stash", "blame", "annotate",
]);

/** The subcommand after git's global options (`git -C dir --no-pager log` → log). */
function gitSubcommand(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("-")) return a;
    if (/^(-C|-c|--git-dir|--work-tree|--namespace|--config-env|--exec-path|--super-prefix)$/.test(a)) i++;
  }
  return undefined;
}

interface Split {
  flags: string[];
  operands: string[];
}

function split(argv: string[], name: string): Split {
  const valued = VALUE_FLAGS[name] ?? "";
  const flags: string[] = [];
  const operands: string[] = [];
  let done = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (done || a === "-" || !a.startsWith("-")) {
      operands.push(a);
      continue;
    }
    if (a === "--") {
      done = true;
      continue;
    }
    flags.push(a);
    if (a.startsWith("--")) {
      if (!a.includes("=") && LONG_VALUE.test(a)) flags.push(argv[++i] ?? "");
    } else if (a.length === 2 && valued.includes(a[1]!)) {
      flags.push(argv[++i] ?? "");
    }
  }
  return { flags, operands };
}

const shortHas = (flags: string[], letters: RegExp): boolean => flags.some((f) => /^-[A-Za-z]+$/.test(f) && letters.test(f.slice(1)));

export function derivedShellReads(subs: readonly ShellSubcommand[]): ShellReads {
  const reads: string[] = [];
  const roots: string[] = [];
  const following: string[] = [];
  const limits = new Map<string, RootLimit>();
  for (const sub of subs) {
    const argv = effectiveArgv(sub);
    const name = posix.basename(argv[0] ?? "");
    const before = roots.length;
    derivedFor(sub, argv, name, reads, roots);
    if (roots.length > before && followsLinksBelow(name, argv)) following.push(...roots.slice(before));
    const limit = rootLimit(name, argv);
    for (const r of roots.slice(before)) limits.set(r, limits.has(r) && limits.get(r) !== limit ? "all" : limit);
    // A hard link gives the file's content a second name: its source is read (`cp -l` is a cp read).
    if (name === "link" && argv[1] !== undefined) reads.push(argv[1]);
    if (name === "ln") {
      const { flags, operands } = split(argv, name);
      const symbolic = shortHas(flags, /s/) || flags.some((f) => /^--sym/.test(f));
      const targetDir = flags.some((f) => /^(-[A-Za-z]*t|--target-directory)/.test(f));
      if (!symbolic) reads.push(...(targetDir || operands.length === 1 ? operands : operands.slice(0, -1)));
    }
  }
  return { reads, recursiveRoots: roots, followingRoots: following, rootLimits: limits };
}

/** What one recursive reader reads below its roots (see read-narrowing.ts). */
function rootLimit(name: string, argv: readonly string[]): RootLimit {
  if (name === "git") return gitReadsTrackedOnly(argv) ? "git" : "all";
  const { flags } = split([...argv], name);
  const long = (re: RegExp): boolean => flags.some((f) => re.test(f));
  if (name === "rg") {
    // -uu and --hidden search hidden files; globs and preprocessors are not modelled.
    const hidden = shortHas(flags, /\./) || flags.some((f) => /^-[A-Za-z]*u[A-Za-z]*u/.test(f)) || long(/^--(hidden|glob|iglob|pre|type-add|ignore-file|no-ignore-dot|no-ignore-files)/) || shortHas(flags, /g/);
    return hidden ? "all" : "visible";
  }
  if (name === "tree") return shortHas(flags, /a/) || long(/^--(fromfile|fromtabfile)/) ? "all" : "visible";
  if (name === "ls") return shortHas(flags, /[aA]/) || long(/^--(all|almost-all)$/) ? "all" : "visible";
  return "all";
}

/** Whether a recursive reader follows the symlinks it meets below its roots. */
function followsLinksBelow(name: string, argv: readonly string[]): boolean {
  const { flags } = split([...argv], name);
  const long = (re: RegExp): boolean => flags.some((f) => re.test(f));
  switch (name) {
    case "grep": case "egrep": case "fgrep":
      return shortHas(flags, /R/) || long(/^--dereference-recursive$/);
    case "rg":
      return shortHas(flags, /L/) || long(/^--follow$/);
    case "find":
      return argv.slice(1).some((a) => a === "-L" || a === "-follow");
    case "cp": case "du": case "ls":
      return shortHas(flags, /L/) || long(/^--dereference$/);
    case "tar":
      return shortHas(flags, /h/) || long(/^--dereference$/) || (argv[1] !== undefined && /^[A-Za-z]+$/.test(argv[1]) && argv[1].includes("h"));
    case "tree":
      return shortHas(flags, /l/);
    case "zip":
      return !(shortHas(flags, /y/) || long(/^--symlinks$/));
    case "diff":
      return !long(/^--no-dereference$/);
    case "git":
      return false; // git records a symlink's text, it never reads through it
    default:
      return true; // a reader not modelled here: assume it follows
  }
}

function derivedFor(sub: ShellSubcommand, argv: string[], name: string, reads: string[], roots: string[]): void {
  {
    if (name === "find") {
      const found: string[] = [];
      let i = 1;
      while (i < argv.length && /^-([HLP]|D|O\d*)$/.test(argv[i]!)) i += argv[i] === "-D" ? 2 : 1;
      for (; i < argv.length; i++) {
        const a = argv[i]!;
        if (a.startsWith("-") || a === "(" || a === "!") break;
        found.push(a);
      }
      if (found.length === 0) found.push(".");
      reads.push(...found);
      roots.push(...found);
      return;
    }
    // Searches: the analysis's own read targets of this command when it has them (it knows when
    // `rg pattern` searches a pipe or a redirected stdin rather than `.`, and git grep's pathspecs;
    // the whole tree is `.` there).
    // A wrapper's (`timeout 5 rg x`) are its nested command's, which is a subcommand of its own.
    const own = sub.targets && sub.effective === sub.text ? sub.targets.read : undefined;
    // git: what the analysis found it reads (`.` — the repository or -C directory — for
    // `git log -p`, `git show`, `git diff`, `git grep x`… that no pathspec limits) is read with
    // everything below it. Without the analysis's targets (a wrapper's, or a command only split),
    // a subcommand that may print contents reads `.`.
    if (name === "git") {
      if (own) roots.push(...own);
      else if (GIT_CONTENT_READERS.has(gitSubcommand(argv) ?? "")) roots.push(".");
      return;
    }
    const { flags, operands } = split(argv, name);
    if (LISTERS.has(name)) {
      reads.push(...operands);
      const recursive = name === "du" || name === "tree" || (name === "ls" && (shortHas(flags, /R/) || flags.includes("--recursive")));
      if (recursive) roots.push(...(operands.length > 0 ? operands : ["."]));
      return;
    }
    if (name === "grep" || name === "egrep" || name === "fgrep" || name === "rg") {
      const recursive =
        name === "rg" ||
        shortHas(flags, /[rR]/) ||
        flags.some((f) => /^--(recursive|dereference-recursive|directories=recurse)$/.test(f)) ||
        flags.some((f, k) => f === "-d" && flags[k + 1] === "recurse");
      if (!recursive) return;
      const patternGiven = flags.some((f) => /^(-[A-Za-z]*[ef]|--regexp|--file)/.test(f)) || flags.includes("--files");
      const paths = patternGiven ? operands : operands.slice(1);
      // No path: `.`, unless the analysis found that this search reads its stdin (`a | rg x`).
      roots.push(...(paths.length > 0 ? paths : own && !own.includes(".") ? [] : ["."]));
      reads.push(...paths);
      return;
    }
    if (name === "cp" && (shortHas(flags, /[rRa]/) || flags.some((f) => /^--(recursive|archive)$/.test(f)))) {
      roots.push(...operands);
      return;
    }
    if (name === "tar") {
      const oldStyle = argv[1] !== undefined && /^[A-Za-z]+$/.test(argv[1]) && argv[1].includes("c");
      const create = oldStyle || shortHas(flags, /c/) || flags.includes("--create");
      if (!create) return;
      const words = oldStyle ? operands.slice(1) : operands;
      const dirs = flags.filter((f, k) => k > 0 && (flags[k - 1] === "-C" || flags[k - 1] === "--directory"));
      roots.push(...words, ...dirs);
      return;
    }
    // `diff -r a b` compares every file below both (and prints the differing lines).
    if (name === "diff" && (shortHas(flags, /r/) || flags.includes("--recursive"))) {
      roots.push(...operands);
      return;
    }
    if (name === "zip" && (shortHas(flags, /[rR]/) || flags.includes("--recurse-paths"))) roots.push(...operands);
  }
}
