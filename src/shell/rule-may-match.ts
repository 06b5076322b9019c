// Whether a `Bash(spec)` rule may name a command whose words are not all known before it runs:
// for a hook's `if` (a guard hook must not be skipped because a word is `$f`, `$(git ls-files)`
// or a glob). A word not known is any text, spaces included (an unquoted expansion splits into
// several words, or none); the rule may match when some value of those words makes the command's
// text one the rule matches. Deny rules need not ask this: a call with such words is not allowed
// without asking anyway, but a hook's `if` decides whether the hook runs at all.
import type { ShellSubcommand } from "../tool/types.js";
import { normaliseBashSpec } from "./bash-rules.js";
import { commandFacts } from "./command-facts.js";
import { isStaticWord } from "./shared.js";

/** A pattern of `*`-globs as tokens: a character, or `null` for any run of characters. */
type Pattern = ReadonlyArray<string | null>;

function specPatterns(spec: string): Pattern[] {
  const s = normaliseBashSpec(spec);
  const toPattern = (text: string): Pattern => [...text].map((c) => (c === "*" ? null : c));
  // A trailing ` *` also matches the bare command (bash-rules.ts).
  return s.endsWith(" *") ? [toPattern(s), toPattern(s.slice(0, -2))] : [toPattern(s)];
}

/**
 * Is there a text both patterns match? (Two-sided `*` matching, by dynamic programming over the
 * suffixes, row by row: no recursion, so a command of any length cannot exhaust the stack.)
 */
export function patternsIntersect(a: Pattern, b: Pattern): boolean {
  const n = a.length;
  const m = b.length;
  // below[j]: a[i+1..] and b[j..] match a common text; row[j]: the same for a[i..].
  let below = new Array<boolean>(m + 1).fill(false);
  let row = new Array<boolean>(m + 1).fill(false);
  for (let i = n; i >= 0; i--) {
    for (let j = m; j >= 0; j--) {
      if (i === n && j === m) row[j] = true;
      else if (i < n && a[i] === null) row[j] = below[j]! || (j < m && row[j + 1]!);
      else if (j < m && b[j] === null) row[j] = row[j + 1]! || (i < n && below[j]!);
      else row[j] = i < n && j < m && a[i] === b[j] && below[j + 1]!;
    }
    [below, row] = [row, below];
  }
  return below[0]!;
}

/** Programs that run text they are given as a command: with a word not known, any command. */
const RUNS_TEXT = new Set(["eval", "sh", "bash", "zsh", "dash", "ksh", "mksh", "source", ".", "exec", "xargs", "parallel", "env", "sudo", "doas", "command", "builtin", "time", "nohup", "nice", "timeout", "watch"]);

/**
 * Whether `spec` may match this subcommand once its unknown words have their values: its texts
 * as the analysis wrote them (wrappers removed, canonical forms), each word not known read as any
 * text; a subcommand that runs a command it was handed in a word not known, or that another
 * command runs with more words appended (`xargs CMD`, a nested command), may be anything after
 * its known words.
 */
export function bashRuleMayMatch(spec: string, sub: ShellSubcommand): boolean {
  const facts = commandFacts(sub);
  const forms = [facts.argv, facts.canonicalArgv, facts.wordsWritten];
  const unknown = forms.some((words) => words.some((w) => !isStaticWord(w)));
  if (!unknown && !sub.nested) return false;
  if (unknown && (!facts.programKnown || RUNS_TEXT.has(facts.program) || facts.executions.some((e) => e.kind !== "command"))) return true;
  const specs = specPatterns(spec);
  for (const words of forms) {
    const pattern: Array<string | null> = [];
    words.forEach((w, k) => {
      if (k > 0) pattern.push(" ");
      if (isStaticWord(w)) pattern.push(...w);
      else pattern.push(null);
    });
    // Run by another command (`xargs rm`, `find -exec rm {} +`): words may follow.
    if (sub.nested) pattern.push(null);
    if (specs.some((s) => patternsIntersect(s, pattern))) return true;
  }
  return false;
}
