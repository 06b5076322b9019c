// Words that may hand a reading command operands or options its argv does not show (issue 19).
//
// `grep -e $(echo x /etc/passwd) README.md` reads /etc/passwd: the substitution is -e's value as
// written, but bash splits its output on blanks, so only `x` is the pattern and `/etc/passwd`
// becomes one more file operand. The same holds for any unquoted `$v`, `$(…)` or backquotes,
// for a brace pattern (`-e {x,.env}`), for `"$@"` and `"${a[@]}"`, and for the words xargs
// appends. A quoted substitution stays one word, but where the command reads operands it may
// begin with `-` (`grep "$(echo -r)" x .` searches `.` recursively). The file operands the
// command's own model names are judged already (a word not known there is an unknown read);
// for every other place, such a word is a read not known before the command runs.
import { tableFor } from "./commands/index.js";
import type { SimpleCommand } from "./command.js";
import type { Targets } from "./commands/types.js";
import { parseCommand, unnamedFiles } from "./options.js";
import { hasGlob, isStaticWord } from "./shared.js";
import { parseGit } from "./git-argv.js";
import { tarParse } from "./tar.js";
import { hasTargetModel } from "./targets.js";
import type { Word } from "./words.js";

/** Modelled commands none of whose words name a file: more words only change what they print. */
const NO_FILE_WORDS = new Set(["basename", "dirname", "nproc", "pwd", "seq", "sleep", "uname", "whoami", "numfmt", "tr"]);

/** No options, and an operand's meaning depends on how many there are: only splitting hides a word. */
const NO_OPTIONS = new Set(["test", "["]);

/**
 * The read targets to add for `cmd`'s words of that kind, given the targets its model found and what a shell variable is known to hold (`valuesOf`: the loop and literal
 * variables of the shell-state pass; a word it cannot resolve comes back unchanged).
 */
export function hiddenOperandReads(cmd: SimpleCommand, targets: Targets, valuesOf: (text: string) => string[]): string[] {
  const first = cmd.words[0];
  if (!first?.isStatic || cmd.declaration) return [];
  const name = first.text.slice(first.text.lastIndexOf("/") + 1);
  if (NO_FILE_WORDS.has(name) || (!hasTargetModel(name) && tableFor(name) === undefined)) return [];
  // A word the model judges as a path already is a target not known in advance.
  const named = new Set([...targets.read, ...targets.write, ...targets.cd]);
  const { operands, end } = operandWords(name, cmd.words);
  const out: string[] = [];
  cmd.words.forEach((w, i) => {
    if (i === 0 || w.isStatic || /^[<>]\(/.test(w.raw)) return;
    // A glob alone is a read of its own already (and of its matches that look like options).
    if (w.glob && !w.split) return;
    // Where an option's value is, one word is only a value; an operand before `--` may be an option.
    const optionPlace = operands.has(w) && i < end && !NO_OPTIONS.has(name);
    const why = hiddenWords(w, optionPlace, valuesOf, named.has(w.text));
    if (why) out.push(unnamedFiles(`${why}, given to ${name}`));
  });
  return out;
}

/** The words the command reads as operands, and where its options end (`--`). */
function operandWords(name: string, words: readonly Word[]): { operands: Set<Word>; end: number } {
  if (name === "git") {
    const git = parseGit(words);
    const start = words.length - git.rest.length;
    return { operands: new Set(git.parsed.operands.filter((o) => o.index > 0).map((o) => o.word)), end: git.parsed.dashDash === undefined ? words.length : start + git.parsed.dashDash };
  }
  const parsed = name === "tar" ? tarParse(words) : parseCommand(name, words);
  return { operands: new Set(parsed.operands.map((o) => o.word)), end: parsed.dashDash ?? words.length };
}

/**
 * Why this word may give the command words not seen in its argv, or undefined. `named`: the
 * model reads it as a path already (its values are judged as paths; one that is an option is not).
 */
function hiddenWords(w: Word, optionPlace: boolean, valuesOf: (text: string) => string[], named: boolean): string | undefined {
  const values = w.brace ? [] : valuesOf(w.text);
  const known = values.length > 0 && values.every((v) => v !== w.text && isStaticWord(v) && !/\s/.test(v));
  if (known) {
    // `for p in -r; do grep $p x .; done`: the values are known; one that is an option (or, split
    // and unquoted, a glob where no path is read) is still not judged.
    if (optionPlace && values.some((v) => /^[-@]/.test(v))) return `${w.raw} read as an option`;
    if (!named && w.split && values.some((v) => hasGlob(v))) return `the files ${w.raw} matches`;
    return undefined;
  }
  if (named) return undefined;
  if (w.split) return `the words ${w.raw} splits into`;
  // One word that begins with what is not known may begin with `-` or `@`.
  if (optionPlace && /^[$`]/.test(w.text)) return `${w.raw} read as an option`;
  return undefined;
}
