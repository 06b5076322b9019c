// git's argv: its own options (git.c, exact names) up to the subcommand, then the subcommand's
// options. parse-options subcommands take unambiguous prefixes and `--no-NAME` (their tables come
// from `git <sub> -h`); the log/diff family reads options exactly, and only the ones that take a
// separate value are listed for them.
import { GIT_GLOBAL, gitSubcommandTable, type CommandTable } from "./commands/index.js";
import { getopt, lastParses, type ParsedArgs } from "./getopt.js";
import type { Word } from "./words.js";

/** Options of the log/diff family that take a separate value (optional-value ones need `=`). */
const LOG_TABLE: CommandTable = {
  style: "exact",
  partial: true,
  numeric: true,
  short: "n:S:G:O:L:I:",
  long: [
    "max-count=|n", "skip=", "since=", "after=", "until=", "before=", "author=", "committer=", "grep=", "grep-reflog=", "min-parents=",
    "max-parents=", "diff-filter=", "src-prefix=", "dst-prefix=", "line-prefix=", "anchored=", "diff-algorithm=", "find-object=",
    "ignore-matching-lines=", "rotate-to=", "skip-to=", "word-diff-regex=", "inter-hunk-context=", "orderfile=", "output=",
    "format=?", "pretty=?", "abbrev=?", "contents=",
  ],
  values: { O: "read", orderfile: "read", output: "write" },
};

const REV_PARSE: CommandTable = {
  style: "exact",
  partial: true,
  long: ["git-path=", "prefix=", "default=", "since=", "after=", "until=", "before=", "show-object-format=?", "path-format=", "resolve-git-dir="],
};

/** Subcommands that read argv with the revision parser (exact names, no abbreviations). */
const REVISION_PARSED = new Set(["log", "show", "diff", "whatchanged", "diff-tree", "diff-index", "diff-files", "range-diff", "rev-list", "cherry", "shortlog", "reflog"]);

export interface GitArgv {
  globals: ParsedArgs;
  /** The subcommand, or undefined for `git` alone / `git --version`. */
  sub?: string;
  /** Words from the subcommand on (index 0 is the subcommand). */
  rest: Word[];
  /** The subcommand's options and operands (indexes into `rest`). */
  parsed: ParsedArgs;
  /** Whether the subcommand's table is complete (parse-options): an unknown option makes git refuse. */
  complete: boolean;
}

/** A subcommand without a table of its own (or an alias): any option, none taking a value. */
const UNKNOWN_SUBCOMMAND: CommandTable = { style: "git", partial: true };

export function subcommandTable(sub: string): CommandTable {
  if (sub === "rev-parse") return REV_PARSE;
  if (REVISION_PARSED.has(sub)) return LOG_TABLE;
  return gitSubcommandTable(sub) ?? UNKNOWN_SUBCOMMAND;
}

/** git's argv read: its global options, the subcommand and the subcommand's options (the last few kept, as getopt keeps its parses). */
export function parseGit(words: readonly Word[]): GitArgv {
  return recentGit(words, undefined, undefined, readGit);
}

const NO_GIT: GitArgv = { globals: { operands: [], options: [], errors: [] }, rest: [], parsed: { operands: [], options: [], errors: [] }, complete: true };
const recentGit = lastParses<undefined, undefined, GitArgv>(4, NO_GIT);

function readGit(words: readonly Word[]): GitArgv {
  const globals = getopt(words, GIT_GLOBAL);
  const first = globals.operands[0];
  if (!first) return { globals, rest: [], parsed: { operands: [], options: [], errors: [] }, complete: true };
  const rest = words.slice(first.index);
  const sub = first.word.text;
  const table = subcommandTable(sub);
  return { globals, sub, rest, parsed: getopt(rest, table), complete: !table.partial };
}

/** Every `-c name=value` (and `--config-env=name=ENV`) given to git. */
export function gitConfigOverrides(globals: ParsedArgs): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [];
  for (const o of globals.options) {
    if (o.name !== "-c" || o.value === undefined) continue;
    const eq = o.value.text.indexOf("=");
    out.push({ key: (eq === -1 ? o.value.text : o.value.text.slice(0, eq)).toLowerCase(), value: eq === -1 ? "true" : o.value.text.slice(eq + 1) });
  }
  return out;
}
