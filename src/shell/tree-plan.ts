// What the tree writers' plans share (src/shell/tree-contents.ts, src/shell/tree-patch.ts): the
// plan's shape, where a word is, and reading a command's options and standard input.
import type { ShellSubcommand } from "../tool/types.js";
import type { ArchiveEntry } from "./archive-entries.js";
import type { ParsedArgs } from "./getopt.js";
import { analysisArgv } from "./index.js";
import type { Word } from "./words.js";

/** The names a tree writer creates below each of its targets, or why they cannot be known. */
export type TreePlan = { entries: ArchiveEntry[] } | { unknown: string };

/** Where a word (a file the command reads) is for the shell: absolute paths, one per base, or why not known. */
export type Locate = (word: string) => string[] | string;

export function asWords(argv: readonly string[]): Word[] {
  const { literalWord } = analysisArgv();
  return argv.map((text) => literalWord(text));
}

export function optionValues(parsed: ParsedArgs, names: readonly string[]): string[] {
  return parsed.options.filter((o) => names.includes(o.name)).map((o) => o.value?.text ?? "");
}

export function hasOption(parsed: ParsedArgs, names: readonly string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name));
}

/** The file a command reads as its standard input (`< file`), else why it is not known. */
export function stdinFile(sub: ShellSubcommand, what: string): string | { unknown: string } {
  const redirect = [...sub.redirects].reverse().find((r) => r.op === "<");
  if (redirect) return redirect.target;
  return { unknown: `it reads ${what} from its standard input, which is not known before the command runs` };
}

/** Drops `n` leading components (entries with no more are not extracted); `./` counts as one for tar. */
export function strip(name: string, n: number): string | null {
  if (n === 0) return name;
  const segments = name.split("/").filter((s) => s !== "");
  return segments.length > n ? segments.slice(n).join("/") : null;
}
