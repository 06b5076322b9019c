// The argv parsers the permission engine uses on shell facts (tree writers: tar, cp, rsync,
// patch…). Reached through `analysisArgv()` in index.ts, so they load with the analysis.
export { literalWord } from "./command.js";
export { tableFor } from "./commands/index.js";
export { getopt } from "./getopt.js";
export { tarParse } from "./tar.js";
import { parseGit } from "./git-argv.js";
import type { ParsedOption } from "./getopt.js";
import type { Word } from "./words.js";

/** git's own options before the subcommand (`-C`, `--git-dir`…), by the one git parser. */
export function gitGlobalOptions(words: readonly Word[]): ParsedOption[] {
  return parseGit(words).globals.options;
}
