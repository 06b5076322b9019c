// What deny and ask rules see of a command besides its text: the command with the global
// options before its subcommand removed, read by the command's own global-option table
// (`git -C . push` is `git push`, `kubectl --context x delete` is `kubectl delete`), and
// whether the analysis models the command at all (an unmodelled one may run any later word).
import { GIT_GLOBAL, tableFor, type CommandTable } from "./commands/index.js";
import { getopt } from "./getopt.js";
import { tarParse } from "./tar.js";
import { gitConfigOverrides } from "./git-argv.js";
import { hasReadOnlyModel } from "./read-only.js";
import { hasTargetModel } from "./targets.js";
import { commandBaseName } from "./wrappers.js";
import type { Word } from "./words.js";
import { literalWord } from "./command.js";
import { parseGit } from "./git-argv.js";
import type { ParsedArgs, ParsedOption } from "./getopt.js";
import { normaliseBashSpec } from "./bash-rules.js";
import { registerRuleFormReader, type CanonicalForm, type CanonicalOption, type RuleForm } from "./command-facts.js";

/** Options moved to the front, at most this many texts per command. */
const MAX_REORDERED = 8;

/**
 * An option in its full long form: the long name a short letter is paired with, and git's
 * `--no-NAME` (parsed as NAME switched off) as written in full.
 */
export function longFormOf(o: ParsedOption): string {
  return negatedForm(o, o.long ?? o.name);
}

/** Its name as the parser gives it (a short letter stays short), `--no-NAME` in full. */
function parsedFormOf(o: ParsedOption): string {
  return negatedForm(o, o.name);
}

function negatedForm(o: ParsedOption, name: string): string {
  if (!o.negated) return name;
  return name.startsWith("--no-") ? `--${name.slice(5)}` : `--no-${name.slice(2)}`;
}

/** Options in their long form, each value as the next word. */
function rendered(parsed: ParsedArgs): string[] {
  const out: string[] = [];
  for (const o of parsed.options) {
    out.push(longFormOf(o));
    if (o.value !== undefined) out.push(o.value.text);
  }
  return out;
}

/** A command read by its table: the head (program, and git's subcommand), git's globals, the rest. */
interface Reading {
  head: string[];
  globals?: ParsedArgs;
  parsed: ParsedArgs;
}

/** How the command's words read by its table (the parsers keep their last few parses: the rule texts, the canonical argv and form share one). */
function readingOf(words: readonly Word[]): Reading | null {
  const first = words[0];
  if (!first) return null;
  const name = commandBaseName(first.text);
  if (name === "git") {
    const git = parseGit(words);
    return git.sub === undefined ? { head: ["git"], parsed: git.globals } : { head: ["git", git.sub], globals: git.globals, parsed: git.parsed };
  }
  const table = tableFor(name) ?? (Object.hasOwn(MEANING_TABLES, name) ? MEANING_TABLES[name] : undefined);
  if (!table) return null;
  // `tar xzf a.tgz`: the old style's first word is a cluster of short options (`-x -z -f a.tgz`).
  return { head: [name], parsed: name === "tar" ? tarParse(words) : getopt(words, table) };
}

/** The operands of a reading (git's subcommand word, operand 0 of its rest, is its head). */
function operandsOf(r: Reading): string[] {
  const skipSub = r.head.length === 2;
  return r.parsed.operands.filter((o) => !(skipSub && o.index === 0)).map((o) => o.word.text);
}

/**
 * The command as its option table reads it: every option in its full long form (abbreviations
 * resolved, clusters split, a short letter by the long option it is, `--name=value` as `--name
 * value`), then the operands; and once more with each option moved first. Each also with short
 * letters as written (`sort -o x`), so that a rule text that matched before still does. A deny
 * rule on `git fetch --upload-pack` then sees `git fetch --upload-pa=x origin` and `git fetch
 * origin --upload-pack=x` as it means them.
 */
function canonicalTexts(words: readonly Word[]): string[] {
  const r = readingOf(words);
  if (!r || r.parsed.options.length === 0) return [];
  if (r.head.length === 1 && r.head[0] === "git") return [];
  const operands = operandsOf(r);
  const head = r.head.join(" ");
  const tail = operands.length === 0 ? "" : ` ${operands.join(" ")}`;
  const out = new Set<string>();
  // Short letters as written differ from the long form only when the table pairs one of them.
  const forms = r.parsed.options.some((o) => o.long !== undefined) ? [longFormOf, parsedFormOf] : [longFormOf];
  for (const nameOf of forms) {
    const pieces = r.parsed.options.map((o) => (o.value === undefined ? nameOf(o) : `${nameOf(o)} ${o.value.text}`));
    out.add(`${head} ${pieces.join(" ")}${tail}`);
    for (let k = 1; k < pieces.length && k < MAX_REORDERED; k++) {
      out.add(`${head} ${pieces[k] as string} ${pieces.filter((_, j) => j !== k).join(" ")}${tail}`);
    }
  }
  return [...out];
}

/**
 * The command as its option table reads it, as one argv: the program by its base name, every
 * option in its full long form — a short letter by the long option the table pairs it with
 * (`sort -ro f` is `sort --reverse --output f`; a letter without a long name stays short),
 * abbreviations resolved, clusters split, `--no-NAME` in full — with its value as the next word,
 * `--` when the command line ends its options with one, then the operands. git keeps its global
 * options, read the same way, before its subcommand. A command without a table is its words as
 * written.
 */
export function canonicalArgvOf(words: readonly Word[]): string[] {
  const r = readingOf(words);
  if (!r) return words.map((w) => w.text);
  const tail = [...rendered(r.parsed), ...(r.parsed.dashDash === undefined ? [] : ["--"])];
  const globals = r.globals ? rendered(r.globals) : [];
  const operands = r.head.length === 2 ? operandsOf(r) : r.parsed.operands.map((o) => o.word.text);
  return [r.head[0] as string, ...globals, ...r.head.slice(1), ...tail, ...operands];
}

function optionsOf(parsed: ParsedArgs): CanonicalOption[] {
  return parsed.options.map((o) => Object.freeze(o.value === undefined ? { name: longFormOf(o) } : { name: longFormOf(o), value: o.value.text }));
}

/** The command's canonical form (see CanonicalForm in command-facts.ts), or undefined without a table. */
export function canonicalFormOf(words: readonly Word[]): CanonicalForm | undefined {
  const r = readingOf(words);
  if (!r || (r.head.length === 1 && r.head[0] === "git")) return undefined;
  return Object.freeze({
    head: Object.freeze([...r.head]),
    globals: Object.freeze(r.globals ? optionsOf(r.globals) : []),
    options: Object.freeze(optionsOf(r.parsed)),
    operands: Object.freeze(operandsOf(r)),
  });
}

/**
 * A `Bash(…)` specifier read as a command prefix by the same tables: `sort -o:*` is sort with
 * `--output` (any value, the rule ends before it), `git push -f origin` is git push with
 * `--force` and the operand origin. Null when the specifier has a `*` other than its trailing
 * one, quoting or expansions, a program without a table, or an option the table refuses (unknown,
 * ambiguous): such a rule is matched by its text alone.
 */
function ruleFormFromSpec(spec: string): RuleForm | null {
  let body = normaliseBashSpec(spec);
  const prefix = body.endsWith(" *");
  if (prefix) body = body.slice(0, -2);
  if (body === "" || /[*?[\]'"`$\\{}()<>|;&~]/.test(body)) return null;
  const words = body.split(" ").map(literalWord);
  const r = readingOf(words);
  if (!r || (r.head.length === 1 && r.head[0] === "git")) return null;
  // getopt wants a value only for an option in the last word: a prefix rule that ends there names any value.
  for (const e of [...(r.globals?.errors ?? []), ...r.parsed.errors]) {
    if (!(prefix && /requires a value$/.test(e))) return null;
  }
  const form = canonicalFormOf(words);
  return form ? Object.freeze({ form, prefix }) : null;
}

registerRuleFormReader(ruleFormFromSpec);

/** Network tools whose operands (and `--url` values) are URLs. */
const URL_TOOLS = new Set(["curl", "wget", "http", "https", "xh", "httpie", "aria2c", "lynx", "links", "w3m"]);

/**
 * The URLs a network tool fetches (its operands and `--url` values that read as http(s) URLs or
 * bare host names with a dot): host in lower case, and the rest of the URL as written.
 */
export function fetchedUrls(name: string, words: readonly Word[]): Array<{ host: string; path: string }> {
  if (!URL_TOOLS.has(name)) return [];
  const out: Array<{ host: string; path: string }> = [];
  const table = tableFor(name);
  const parsed = table ? getopt(words, table) : undefined;
  const candidates = parsed
    ? [...parsed.operands.map((o) => o.word.text), ...parsed.options.filter((o) => o.name === "--url").map((o) => o.value?.text ?? "")]
    : words.slice(1).map((w) => w.text);
  for (const c of candidates) {
    const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#\s]+)(.*)$/is.exec(c);
    if (!m || (m[1] === undefined && !/\./.test(m[2] as string))) continue;
    const scheme = (m[1] ?? "").toLowerCase();
    if (scheme !== "" && scheme !== "http" && scheme !== "https") continue;
    out.push({ host: (m[2] as string).toLowerCase(), path: m[3] as string });
  }
  return out;
}

const NO_HOSTS: readonly string[] = Object.freeze([]);

/** The hosts of the URLs `fetchedUrls` finds (none, without a copy, for a program that is no network tool). */
export function fetchedHosts(name: string, words: readonly Word[]): readonly string[] {
  return URL_TOOLS.has(name) ? fetchedUrls(name, words).map((u) => u.host) : NO_HOSTS;
}

/**
 * For a URL a network tool fetches: the tool with that URL first, on either scheme, and with
 * just the scheme and host, so a deny rule naming `curl http://host` covers `curl -X GET
 * https://host/path` (the same host on the other scheme, in any option order).
 */
function urlTexts(name: string, words: readonly Word[]): string[] {
  const out: string[] = [];
  for (const { host, path } of fetchedUrls(name, words)) {
    for (const sch of ["http", "https"]) {
      out.push(`${name} ${sch}://${host}${path}`, `${name} ${sch}://${host}`);
    }
    out.push(`${name} ${host}${path}`, `${name} ${host}`);
  }
  return out;
}

/**
 * Global options (before the subcommand) of tools whose rules are written per subcommand.
 * Partial: an option not listed may still take the next word; both readings are kept.
 */
const GLOBALS: Record<string, CommandTable> = {
  git: GIT_GLOBAL,
  npm: { partial: true, stopAtOperand: true, short: "w:C:L:", long: ["prefix=|C", "userconfig=", "globalconfig=", "registry=", "workspace=|w", "cache=", "loglevel=", "location=|L", "otp="] },
  pnpm: { partial: true, stopAtOperand: true, short: "C:F:wr", long: ["dir=|C", "filter=|F", "recursive|r", "workspace-root|w", "reporter=", "loglevel=", "config=", "store-dir="] },
  yarn: { partial: true, stopAtOperand: true, long: ["cwd=", "mutex=", "modules-folder=", "cache-folder=", "global-folder=", "use-yarnrc=", "registry="] },
  npx: { partial: true, stopAtOperand: true, short: "p:c:w:", long: ["package=", "call=", "prefix=", "workspace=", "userconfig=", "registry="] },
  kubectl: {
    style: "exact",
    partial: true,
    stopAtOperand: true,
    short: "n:s:v:",
    long: [
      "context=", "namespace=|n", "kubeconfig=", "cluster=", "user=", "server=|s", "token=", "as=", "as-group=", "as-uid=", "certificate-authority=",
      "client-certificate=", "client-key=", "request-timeout=", "tls-server-name=", "cache-dir=", "profile=", "profile-output=", "log-file=",
      "v=|v", "vmodule=", "password=", "username=", "log-dir=",
    ],
  },
  helm: { style: "exact", partial: true, stopAtOperand: true, short: "n:", long: ["namespace=|n", "kube-context=", "kubeconfig=", "kube-apiserver=", "kube-as-user=", "kube-as-group=", "kube-token=", "kube-ca-file=", "registry-config=", "repository-cache=", "repository-config=", "burst-limit=", "qps="] },
  docker: { style: "exact", partial: true, stopAtOperand: true, short: "c:H:l:D", long: ["config=", "context=", "host=", "log-level=", "tlscacert=", "tlscert=", "tlskey="] },
  podman: { style: "exact", partial: true, stopAtOperand: true, long: ["connection=", "url=", "identity=", "root=", "runroot=", "storage-driver=", "cgroup-manager=", "log-level=", "module="] },
  cargo: { partial: true, stopAtOperand: true, short: "C:Z:", long: ["config=", "color="] },
  make: { partial: true, short: "C:f:I:j::l::o:W:O::", long: ["directory=", "file=", "makefile=", "include-dir=", "jobs=?", "load-average=?", "old-file=", "what-if=", "output-sync=?", "eval="] },
};

/**
 * Tables for reading what a command means, for deny and ask rules only, of programs that have no
 * option table of their own (read-only-tools.ts judges their few read-only invocations): their
 * global options above and the common ones of their subcommands, short letters paired with the
 * long options they are, read among the operands as npm and pnpm (nopt) and kubectl and helm
 * (pflag) read them. Partial: an option not listed takes no value. A command read wrongly (`npm
 * -ws` is `--workspaces`, not `-w s`) misses only a meaning its texts may still match, or matches
 * a deny or ask rule more: no allow rule reads these forms.
 */
function meaningTable(name: string, short: string, long: readonly string[]): CommandTable {
  const globals = GLOBALS[name] as CommandTable;
  return { ...(globals.style ? { style: globals.style } : {}), partial: true, short: `${globals.short ?? ""}${short}`, long: [...(globals.long ?? []), ...long] };
}

const MEANING_TABLES: Record<string, CommandTable> = {
  npm: meaningTable("npm", "gDSEOPfyalp", ["global|g", "save-dev|D", "save|S", "save-exact|E", "save-optional|O", "save-prod|P", "force|f", "yes|y", "all|a", "long|l", "parseable|p", "tag="]),
  pnpm: meaningTable("pnpm", "gDPOE", ["global|g", "save-dev|D", "save-prod|P", "save-optional|O", "save-exact|E", "registry="]),
  helm: meaningTable("helm", "f:o:Ai", ["values=|f", "output=|o", "all-namespaces|A", "install|i", "set=", "set-string=", "set-file=", "version=", "dry-run", "force", "wait", "timeout="]),
  kubectl: meaningTable("kubectl", "o:l:f:A", ["output=|o", "selector=|l", "filename=|f", "all-namespaces|A"]),
};

/** For partial tables: the reading where an unknown `--name` takes the next word. */
const SECOND_READINGS: Record<string, CommandTable> = Object.fromEntries(
  Object.entries(GLOBALS).filter(([, t]) => t.partial).map(([n, t]) => [n, { ...t, unknownTakesValue: true }]),
);

/** The command's words from its subcommand on, read by its global-option table; one list per reading. */
function strippedReadings(name: string, words: readonly Word[]): string[][] {
  const table = GLOBALS[name];
  if (!table) return [];
  const readings: CommandTable[] = [table];
  const second = SECOND_READINGS[name];
  if (second) readings.push(second);
  const out: string[][] = [];
  for (const t of readings) {
    const parsed = getopt(words, t);
    const operands = parsed.operands;
    const first = operands[0];
    if (!first) continue;
    // cargo +toolchain build: the toolchain is no subcommand.
    const start = name === "cargo" && first.word.text.startsWith("+") ? operands[1]?.index : first.index;
    if (start === undefined) continue;
    // make: the targets are the operands (options may follow them).
    const rest = name === "make" ? operands.map((o) => o.word.text) : words.slice(start).map((w) => w.text);
    out.push([words[0]?.text ?? name, ...rest]);
  }
  return out;
}

/** Texts besides `argv.join(" ")` that deny and ask rules must see for this command. */
export function ruleTextsOf(words: readonly Word[]): string[] {
  const first = words[0];
  if (!first) return [];
  const name = commandBaseName(first.text);
  const text = words.map((w) => w.text).join(" ");
  const out = new Set<string>();
  // git's own programs run by path (`/usr/lib/git-core/git-push`) are `git push`.
  const gitProgram = /^git-([a-z][a-z0-9-]*)$/.exec(name);
  if (gitProgram) {
    const asGit = ["git", gitProgram[1] as string, ...words.slice(1).map((w) => w.text)];
    out.add(asGit.join(" "));
    for (const t of canonicalTexts(asGit.map(literalWord))) out.add(t);
  }
  for (const t of canonicalTexts(words)) out.add(t);
  for (const t of urlTexts(name, words)) out.add(t);
  if (!Object.hasOwn(GLOBALS, name)) {
    out.delete(text);
    return [...out];
  }
  for (const reading of strippedReadings(name, words)) out.add(reading.join(" "));
  if (name === "git") {
    // `git -c alias.p=push p` runs `git push`.
    const globals = getopt(words, GIT_GLOBAL);
    const sub = globals.operands[0];
    if (sub) {
      for (const { key, value } of gitConfigOverrides(globals)) {
        if (key !== `alias.${sub.word.text.toLowerCase()}`) continue;
        const after = words.slice(sub.index + 1).map((w) => w.text);
        out.add(value.startsWith("!") ? [value.slice(1), ...after].join(" ") : ["git", value, ...after].join(" "));
      }
    }
  }
  out.delete(text);
  return [...out];
}

const SHELL_WORDS = new Set([
  "cd", "pushd", "popd", "export", "declare", "typeset", "local", "readonly", "unset", "set", "shopt", "source", ".", "read", "printf",
  "echo", "test", "[", "[[", "exit", "return", "shift", "alias", "unalias", "true", "false", ":", "eval", "exec", "trap", "wait",
  "let", "getopts", "hash", "type", "command", "builtin", "enable", "umask", "ulimit", "times", "jobs", "fg", "bg", "disown",
  "history", "fc", "mapfile", "readarray", "caller", "compgen", "complete", "dirs", "help", "logout", "suspend", "kill", "break", "continue",
  "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "find", "sudo", "doas", "noglob", "coproc", "{", "}", "perl", "ruby",
]);

/** Whether the analysis models what this command reads, writes and runs (else it is opaque). */
export function isModelledCommand(name: string): boolean {
  const base = commandBaseName(name);
  return SHELL_WORDS.has(base) || tableFor(base) !== undefined || hasReadOnlyModel(base) || hasTargetModel(base) || base === "git";
}
