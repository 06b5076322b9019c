// Which git invocations only read. Global options that inject configuration (`-c`,
// `--config-env`) or point git at another repository (`--git-dir`, `--work-tree`: its config
// may name a pager, fsmonitor or diff driver) are refused (`-C dir` is judged as a cd to dir:
// read-only when dir is in the cwd's repository, analyze.ts), as are per-subcommand options
// that run programs (`--upload-pack`, `--exec`, `--ext-diff`, `-O`) or write (`--output`).
import { findOption } from "./getopt.js";
import { parseGit, subcommandTable } from "./git-argv.js";
import type { Word } from "./words.js";

/** Global options that change nothing dangerous. */
const SAFE_GLOBAL = new Set([
  "--no-pager", "-P", "--paginate", "-p", "--no-replace-objects", "--literal-pathspecs",
  "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks",
  "--version", "--no-advice",
]);

/** Subcommands that only read, whatever their (non-dangerous) options. */
const READ_ONLY = new Set([
  "status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
  "rev-list", "ls-files", "ls-tree", "cat-file", "show-ref", "for-each-ref",
  "merge-base", "name-rev", "count-objects", "grep", "check-ignore", "check-attr", "diff-tree",
  "diff-files", "diff-index", "cherry", "whatchanged", "show-branch", "range-diff", "var",
  "version", "verify-pack", "check-ref-format",
]);

/** Long options (matched by prefix) that run programs or write files in any subcommand. */
const DANGEROUS_LONG = ["output", "ext-diff", "upload-pack", "receive-pack", "exec", "open-files-in-pager", "config-env"];

/** `--name` (canonical, or as written for a partial table) is, or may abbreviate, one of `names`. */
function mayBe(name: string, names: readonly string[]): boolean {
  if (!name.startsWith("--") || name.length === 2) return false;
  const given = name.slice(2);
  return names.some((d) => d.startsWith(given));
}

/** Returns undefined when `git …` only reads, else why not. */
export function gitObjection(words: Word[]): string | undefined {
  const git = parseGit(words);
  if (git.globals.errors[0] !== undefined) return `git: ${git.globals.errors[0]}, so what it does is not known`;
  for (const o of git.globals.options) {
    if (o.name === "-c" || o.name === "--config-env") return "git -c / --config-env sets configuration that can run commands";
    // `git -C dir` is judged like `cd dir && git` (analyze.ts): read-only when dir is in the cwd's repository.
    if (o.name === "-C" && o.value?.isStatic === true) continue;
    // `--git-dir=…/.git`, `--work-tree=dir`: the same, and the permission check requires the
    // very git directory (and a work tree) of the cwd's repository (git-repo.ts).
    if (o.name === "--git-dir" && o.value?.isStatic === true && /(^|\/)\.git\/*$/.test(o.value.text)) continue;
    if (o.name === "--work-tree" && o.value?.isStatic === true && o.value.text !== "") continue;
    if (!SAFE_GLOBAL.has(o.name)) return `git global option ${o.name} is not known to be read-only`;
  }
  const sub = git.sub;
  if (sub === undefined) return undefined;
  const parsed = git.parsed;
  if (git.complete && parsed.errors[0] !== undefined) return `git ${sub}: ${parsed.errors[0]}, so what it does is not known`;
  const danger = parsed.options.find((o) => !o.negated && mayBe(o.name, DANGEROUS_LONG));
  if (danger) return `git ${sub} ${danger.name} runs a program or writes a file`;
  const values = subcommandTable(sub).values ?? {};
  for (const o of parsed.options) {
    const key = o.name.replace(/^--?/, "");
    const role = Object.hasOwn(values, key) ? values[key] : undefined;
    if (!o.negated && (role === "write" || role === "exec" || role === "unsafe")) return `git ${sub} ${o.name} ${role === "write" ? "writes a file" : "runs a program"}`;
  }
  const positional = parsed.operands.map((o) => o.word.text);

  if (READ_ONLY.has(sub)) {
    return undefined;
  }
  switch (sub) {
    case "branch": {
      const bad = findOption(parsed, "dDmMcCfut", ["delete", "move", "copy", "force", "set-upstream-to", "unset-upstream", "edit-description", "track", "no-track", "create-reflog", "recurse-submodules"]);
      if (bad) return `git branch ${bad.name} changes branches`;
      const listing = findOption(parsed, "l", ["list"]);
      if (positional.length > 0 && !listing) return "git branch <name> creates a branch";
      return undefined;
    }
    case "tag": {
      const bad = findOption(parsed, "asudfmFe", ["annotate", "sign", "local-user", "delete", "force", "message", "file", "edit", "create-reflog", "verify"]);
      if (bad) return `git tag ${bad.name} changes tags`;
      if (positional.length > 0 && !findOption(parsed, "l", ["list"])) return "git tag <name> creates a tag";
      return undefined;
    }
    case "remote":
      // `git remote show` contacts the remote: network traffic is not read-only.
      if (positional.length === 0 || positional[0] === "get-url") return undefined;
      return `git remote ${positional[0]} changes or contacts remotes`;
    case "ls-remote":
      return "git ls-remote contacts a remote (network)";
    case "config": {
      if (positional[0] === "get" || positional[0] === "list") return undefined;
      const reading = findOption(parsed, "l", ["get", "get-all", "get-regexp", "get-urlmatch", "list", "get-color", "get-colorbool"]);
      const writing = findOption(parsed, "e", ["add", "unset", "unset-all", "replace-all", "rename-section", "remove-section", "edit"]);
      if (writing) return "git config with these options changes configuration";
      // `git config <key>` reads; `git config <key> <value>` writes.
      if (reading || positional.length === 1) return undefined;
      return "git config with a value changes configuration";
    }
    case "reflog": {
      // `git reflog [show] [log options] [REF] [-- PATH…]` reads; expire, delete, drop, write
      // change the reflog. git looks for its subcommand among the words before `--` (past
      // options, in some versions): a word there that may name one (lower-case letters) other
      // than a reading one asks; a ref that cannot (`HEAD`, `origin/main`, `@{1}`) does not.
      const after = git.rest.slice(1);
      const end = after.findIndex((w) => w.text === "--");
      const verb = (end === -1 ? after : after.slice(0, end)).find((w) => !w.text.startsWith("-"))?.text;
      if (verb === undefined || !/^[a-z][a-z-]*$/.test(verb) || /^(show|exists|list)$/.test(verb)) return undefined;
      return /^(expire|delete|drop|write)$/.test(verb) ? `git reflog ${verb} changes the reflog` : `git reflog ${verb}: a version of git may read ${verb} as a subcommand, which may change the reflog`;
    }
    case "stash":
      if (positional[0] === "list" || positional[0] === "show") return undefined;
      return "git stash changes the working tree";
    case "worktree":
      if (positional[0] === "list") return undefined;
      return `git worktree ${positional[0] ?? ""} changes worktrees`.trimEnd();
    case "notes":
      if (positional[0] === "list" || positional[0] === "show") return undefined;
      return "git notes may change notes";
    case "submodule": {
      // `git submodule [--quiet] status [--cached] [--recursive] [--] [path…]` only reads (like status).
      const bad = parsed.options.find((o) => !/^(-q|--quiet|--cached|--recursive)$/.test(o.name));
      if (positional[0] === "status" && bad === undefined) return undefined;
      return `git submodule ${positional[0] ?? ""} is not known to be read-only`.trimEnd();
    }
    case "help": {
      // Lists: `git help`, `git help -a`, `-g`, `--config`.
      const listing = parsed.options.every((o) => /^(-a|--all|-g|--guides|-c|--config|--user-interfaces|--developer-interfaces|--(no-)?verbose|--no-external-commands|--no-aliases)$/.test(o.name));
      if (listing && positional.length === 0) return undefined;
      // `git help log` runs man on git-log's page, which without a terminal (the Bash tool's
      // commands have none) prints it as text, pager unused. `-i`, `-w` (and `-m`, which
      // overrides a help.format the user chose) pick info or a browser; the repository's
      // help.format and man.viewer are looked at like its other programs (project-programs.ts).
      // A topic of other characters than a command name's may be read by man as a file's path.
      const topic = positional[0];
      if (parsed.options.length === 0 && positional.length === 1 && topic !== undefined && /^[A-Za-z0-9][A-Za-z0-9-]*$/.test(topic)) return undefined;
      return "git help with these options or this topic may open another viewer (info, a browser) or read a file";
    }
    case "symbolic-ref":
      if (positional.length <= 1 && !findOption(parsed, "d", ["delete"])) return undefined;
      return "git symbolic-ref with a target changes a ref";
    default:
      return `git ${sub} is not known to be read-only`;
  }
}
