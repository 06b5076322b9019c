import type { ShellSubcommand } from "../tool/types.js";
import { localeLiteral } from "./shared.js";

/**
 * A compiled `Bash(spec)`: `*` is any run of characters; a trailing ` *` (or the legacy `:*`)
 * also matches the bare command (`ls *` matches `ls` and `ls -la`, never `lsof`); no `*` means
 * exactly that command. Whitespace in the spec is collapsed, as the subcommand text is argv
 * joined by single spaces — quoting and spacing cannot change what a rule sees.
 */
export type BashMatcher = (text: string) => boolean;

const compiled = new Map<string, BashMatcher>();

export function normaliseBashSpec(spec: string): string {
  let s = spec.trim().replace(/\s+/g, " ");
  if (s.endsWith(":*")) s = `${s.slice(0, -2).trimEnd()} *`;
  return s;
}

export function bashMatcher(spec: string): BashMatcher {
  let m = compiled.get(spec);
  if (m) return m;
  const s = normaliseBashSpec(spec);
  if (!s.includes("*")) {
    m = (text) => text === s;
  } else {
    let body = s;
    let tail = "";
    if (body.endsWith(" *")) {
      body = body.slice(0, -2);
      tail = "(?: .*)?";
    }
    const re = new RegExp(`^${body.split("*").map(escapeRegExp).join(".*")}${tail}$`, "s");
    m = (text) => re.test(text);
  }
  if (compiled.size > 10_000) compiled.clear();
  compiled.set(spec, m);
  return m;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Variables an allow rule may look past (`NODE_ENV=test npm test` is still `npm test`). */
const SAFE_ENV = new Set([
  "NODE_ENV",
  "CI",
  "DEBUG",
  "NO_COLOR",
  "FORCE_COLOR",
  "TERM",
  "COLUMNS",
  "LINES",
  "TZ",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "GOOS",
  "GOARCH",
]);

export function onlySafeEnv(sub: ShellSubcommand): boolean {
  for (const name of Object.keys(sub.env)) {
    if (!SAFE_ENV.has(name) && !name.startsWith("LC_")) return false;
  }
  return true;
}

/** The texts a rule may match for one subcommand: as written, and with transparent wrappers removed. */
export function subcommandTexts(sub: ShellSubcommand): string[] {
  return sub.effective !== sub.text ? [sub.text, sub.effective] : [sub.text];
}

/**
 * What an unmodelled command may run: each of its later words may start a command
 * (`prlimit -- rm -rf /`, `mywrapper git push`), so deny and ask rules see every suffix.
 */
export function opaqueSuffixes(sub: ShellSubcommand): string[] {
  if (!sub.opaque) return [];
  const out: string[] = [];
  for (let k = 1; k < sub.argv.length; k++) out.push(sub.argv.slice(k).join(" "));
  return out;
}

/**
 * For deny and ask rules, also the command named by its path's last part: `/bin/rm -rf x`
 * and `./node_modules/.bin/rm x` are still `rm`.
 */
export function restrictiveTexts(sub: ShellSubcommand, localeQuoted = false): string[] {
  const texts = subcommandTexts(sub);
  if (sub.ruleTexts) for (const t of sub.ruleTexts) texts.push(t);
  if (sub.opaque) for (const t of opaqueSuffixes(sub)) texts.push(t);
  if (localeQuoted) {
    // `$"rm" x` is `rm x` in the C locale; the analysis keeps `$"rm"` as written or turns `$"x"` into `$x`.
    const n = texts.length;
    for (let i = 0; i < n; i++) {
      const t = texts[i] as string;
      const literal = localeLiteral(t, true);
      if (literal !== t) texts.push(literal);
    }
  }
  const n = texts.length;
  for (let i = 0; i < n; i++) {
    const t = texts[i] as string;
    if (!t.includes("/")) continue;
    const m = /^(\S*\/)([^\s/]+)(.*)$/s.exec(t);
    if (m) texts.push(`${m[2]}${m[3]}`);
  }
  return texts;
}

/** Commands that run another program or change how it runs: a wildcard allow rule never approves them. */
const EXEC_WRAPPERS = new Set(["watch", "setsid", "ionice", "flock", "chroot", "unshare", "nsenter", "su", "doas", "pkexec", "runuser"]);
const FIND_EXEC = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

/**
 * Whether only an exact rule (no `*`) may allow this subcommand: exec wrappers, and `find` with
 * `-exec`/`-delete`/`-fprint` — a `Bash(find *)` rule was meant for searching, not for that.
 */
export function needsExactRule(sub: ShellSubcommand, argv: readonly string[] = effectiveArgv(sub)): boolean {
  const name = (argv[0] ?? "").replace(/^.*\//, "");
  if (EXEC_WRAPPERS.has(name)) return true;
  return name === "find" && argv.some((a) => FIND_EXEC.test(a));
}

/** The argv of what really runs (wrappers removed), recovered from `effective`. */
export function effectiveArgv(sub: ShellSubcommand): string[] {
  if (sub.effective === sub.text) return sub.argv;
  for (let k = 1; k < sub.argv.length; k++) {
    if (sub.argv.slice(k).join(" ") === sub.effective) return sub.argv.slice(k);
  }
  return sub.effective.split(" ");
}

/** A narrowed rule for a subcommand: the command and its first non-flag word (`npm run test *`). */
export function narrowedBashRule(sub: ShellSubcommand): string {
  const argv = effectiveArgv(sub);
  const words: string[] = [];
  for (const word of argv) {
    if (words.length >= 1 && (word.startsWith("-") || /[/$`*?[\]=\\()]/.test(word) || word.includes(" "))) break;
    words.push(word);
    // `npm run test`, `git commit`, `cargo build`: the command and at most two sub-verbs
    if (words.length >= 3) break;
  }
  if (words.length === 0) return `Bash(${escapeSpec(sub.effective)})`;
  return `Bash(${words.map(escapeSpec).join(" ")} *)`;
}

function escapeSpec(word: string): string {
  return /[()\\]/.test(word) ? word.replace(/[()\\]/g, "\\$&") : word;
}
