// Commands that write a whole tree below the directory they are given (or `.`), with names the
// command line does not show: git's work-tree writers (what a branch, the index or a stash holds),
// `patch` (what the patch names), archive extractors (what the archive holds), recursive copies
// and syncs, `mv` (a moved directory brings its contents). A plain file write (`> out.txt`,
// `mkdir build`, `touch f`) is none of these; a file copied, moved, linked or installed into a
// directory (`cp x/.envrc build`) is a "place": its name there is not on the command line
// either. Read by the one getopt parser: `cp --recur` is `cp --recursive`, `tar --extr` extracts.
import { posix } from "node:path";
import type { ShellTreeWriter } from "../tool/types.js";
import { parseGit } from "./git-argv.js";
import { parseCommand } from "./options.js";
import { tarParse } from "./tar.js";
import type { Word } from "./words.js";

/** git subcommands that rewrite work-tree files (the analysis reports a target only when they do). */
const GIT_TREE_WRITERS = new Set([
  "checkout", "switch", "restore", "reset", "stash", "apply", "am", "merge", "pull", "rebase",
  "cherry-pick", "revert", "checkout-index", "read-tree", "submodule", "worktree", "clone", "sparse-checkout",
]);

const named = (options: ReadonlyArray<{ name: string; negated?: boolean }>, ...names: string[]): boolean =>
  options.some((o) => !o.negated && names.includes(o.name));

/** The tree writer this command's words are (the innermost command of transparent wrappers), or undefined. */
export function treeWriterOf(words: readonly Word[]): ShellTreeWriter | undefined {
  const name = posix.basename(words[0]?.text ?? "");
  switch (name) {
    case "git":
      return GIT_TREE_WRITERS.has(parseGit(words).sub ?? "") ? { kind: "git" } : undefined;
    case "patch":
    case "unzip":
      return { kind: "archive" };
    case "tar": {
      const parsed = tarParse(words);
      return named(parsed.options, "-x", "--extract", "--get") ? { kind: "archive" } : undefined;
    }
    case "cp":
      return { kind: named(parseCommand(name, words).options, "-r", "-R", "-a", "--recursive", "--archive") ? "copy" : "place" };
    case "ln":
      return { kind: "place" };
    case "install":
      return named(parseCommand(name, words).options, "-d", "--directory") ? undefined : { kind: "place" };
    case "rsync":
      return { kind: "copy" };
    case "mv": {
      const parsed = parseCommand(name, words);
      const operands = parsed.operands.map((o) => o.word.text);
      const target = parsed.options.find((o) => o.name === "-t" || o.name === "--target-directory")?.value?.text;
      const destination = target ?? operands.pop();
      return destination === undefined ? { kind: "copy" } : { kind: "copy", move: { destination, sources: operands } };
    }
    default:
      return undefined;
  }
}
