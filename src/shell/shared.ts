// What the rest of armature (and the package's exports) takes from the Bash analysis without
// loading it: limits, names and small pure helpers. The analysis itself (parser, option tables,
// tokenizers) is loaded with the grammar by `ensureBashGrammar()` in index.ts.

/**
 * The one reason the permission engine may lift by looking at the file system: a `cd` into a
 * directory of the same repository leaves git running the same configuration.
 */
export const GIT_AFTER_CD = "git after cd may run another repository's configured programs";

/** Longer commands are never read-only (they still get every deny rule). */
export const MAX_READ_ONLY_COMMAND_LENGTH = 10_000;
/** More subcommands than this are never read-only (they still get every deny rule). */
export const MAX_READ_ONLY_SUBCOMMANDS = 50;
/** Beyond this, the command is not parsed at all: approval is needed and nothing is extracted. */
export const MAX_ANALYSED_COMMAND_LENGTH = 200_000;

/** Wrappers `effective` sees through: they change scheduling or buffering, not what runs. */
export const TRANSPARENT_WRAPPERS: ReadonlySet<string> = new Set(["timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob"]);

/** argv joined with single spaces: the form `Bash(prefix *)` rules are matched against. */
export function normalizeCommandText(argv: readonly string[]): string {
  return argv.join(" ");
}

const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLUMNS|LINES|GREP_COLORS?|LS_COLORS|TIME_STYLE|POSIXLY_CORRECT)$/;

/** Whether `NAME=value` before a command only changes presentation (locale, colours, width). */
export function isSafeEnvVariable(name: string): boolean {
  return SAFE_ENV.test(name);
}

/**
 * git's trace variables: `1`, `2` and `true` print the trace on stderr; empty, `0` and `false`
 * turn it off. An absolute path is a file git appends to (trace2: a directory it creates files
 * in, or an `af_unix:` socket it connects to), a digit from 3 to 9 a descriptor it writes to.
 */
const GIT_TRACE_VARIABLE = /^GIT_TRACE(|_PACK_ACCESS|_PACKET|_PACKFILE|_PERFORMANCE|_SETUP|_SHALLOW|_CURL|_CURL_NO_DATA|_REFS|_FSMONITOR|2|2_EVENT|2_PERF)$/;
const GIT_TRACE_HARMLESS = /^(|0|1|2|true|false)$/i;

/** Whether a static `GIT_TRACE…=value` only prints on stderr or turns the trace off. */
export function isHarmlessGitTrace(name: string, value: string): boolean {
  return GIT_TRACE_VARIABLE.test(name) && GIT_TRACE_HARMLESS.test(value);
}

/**
 * The file a git trace variable makes git write (`GIT_TRACE=/tmp/x`, a socket's path; a value
 * known only when the command runs, as written), or undefined: another variable, stderr, off,
 * or a descriptor (which still asks: read-only.ts).
 */
export function gitTraceFile(name: string, value: { text: string; isStatic: boolean }): string | undefined {
  if (!GIT_TRACE_VARIABLE.test(name) || (value.isStatic && GIT_TRACE_HARMLESS.test(value.text)) || /^[3-9]$/.test(value.text)) return undefined;
  return value.text.replace(/^af_unix:(stream:|dgram:)?/, "");
}

/**
 * A word as bash reads `$"…"` in the C locale: its literal text. The analysis keeps such a word
 * either as written (`$"rm"`) or with the quotes removed (`$secret/key`); both give the literal.
 */
export function localeLiteral(word: string, quotesRemoved: boolean): string {
  const out = word.replace(/\$"([^"]*)"/g, "$1");
  return quotesRemoved ? out.replace(/\$(?![{(])/g, "") : out;
}

/** Parts of a shell word that make its value unknown before it runs (`$` covers `$"…"` too). */
export function isDynamicWord(word: string): boolean {
  return /[$`]|^~[^/]|<\(|>\(/.test(word);
}

export function hasGlob(word: string): boolean {
  return /[*?[]/.test(word);
}

/** Brace expansion: `{a,b}`, `x{,y}`, `{1..3}` (one word becomes several). */
export function hasBrace(word: string): boolean {
  return /\{[^{}]*(,|\.\.)[^{}]*\}/.test(word);
}

/** A word whose value is what is written: no expansion, glob or brace can change it. */
export function isStaticWord(word: string): boolean {
  return word.length > 0 && !isDynamicWord(word) && !hasGlob(word) && !hasBrace(word);
}

/** `$(…)` as a whole word, unquoted or double-quoted. */
const SUBSTITUTION = /^"?\$\(([^]*)\)"?$/;

/** The producer text of a `$(…)` word (`git ls-files '*.ts'`), if the word is exactly one. */
export function substitutedText(raw: string): string | undefined {
  const m = SUBSTITUTION.exec(raw);
  if (!m || (raw.startsWith('"') !== raw.endsWith('"'))) return undefined;
  return m[1]?.trim();
}
