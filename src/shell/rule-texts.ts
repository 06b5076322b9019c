// What deny and ask rules see of a command besides its text: the command with the global
// options before its subcommand removed, read by the command's own global-option table
// (`git -C . push` is `git push`, `kubectl --context x delete` is `kubectl delete`), and
// whether the analysis models the command at all (an unmodelled one may run any later word).
import { GIT_GLOBAL, tableFor, type CommandTable } from "./commands/index.js";
import { getopt } from "./getopt.js";
import { gitConfigOverrides } from "./git-argv.js";
import { hasReadOnlyModel } from "./read-only.js";
import { hasTargetModel } from "./targets.js";
import { commandBaseName } from "./wrappers.js";
import type { Word } from "./words.js";
import { literalWord } from "./command.js";
import { parseGit } from "./git-argv.js";
import type { ParsedArgs } from "./getopt.js";

/** Options moved to the front, at most this many texts per command. */
const MAX_REORDERED = 8;

function rendered(parsed: ParsedArgs): string[][] {
  return parsed.options.map((o) => (o.value === undefined ? [o.name] : [o.name, o.value.text]));
}

/**
 * The command as its option table reads it: every option by its canonical name (abbreviations
 * resolved, clusters split, `--name=value` as `--name value`), then the operands; and once more
 * with each option moved first. A deny rule on `git fetch --upload-pack` then sees
 * `git fetch --upload-pa=x origin` and `git fetch origin --upload-pack=x` as it means them.
 */
function canonicalTexts(words: readonly Word[]): string[] {
  const first = words[0];
  if (!first) return [];
  const name = commandBaseName(first.text);
  let head: string[];
  let parsed: ParsedArgs;
  if (name === "git") {
    const git = parseGit(words);
    if (git.sub === undefined) return [];
    head = ["git", git.sub];
    parsed = git.parsed;
  } else {
    const table = tableFor(name);
    if (!table) return [];
    head = [name];
    parsed = getopt(words, table);
  }
  if (parsed.options.length === 0) return [];
  // Each option as its text (`--name value`), joined as the words would be.
  const options = parsed.options.map((o) => (o.value === undefined ? o.name : `${o.name} ${o.value.text}`));
  const operands = parsed.operands.map((o) => o.word.text).filter((t) => t !== head[1] || parsed.operands[0]?.index !== 0);
  const start = head.join(" ");
  const end = operands.length === 0 ? "" : ` ${operands.join(" ")}`;
  const out = [`${start} ${options.join(" ")}${end}`];
  for (let k = 0; k < options.length && k < MAX_REORDERED; k++) {
    const before = options.slice(0, k).join(" ");
    const after = options.slice(k + 1).join(" ");
    const rest = before === "" ? after : after === "" ? before : `${before} ${after}`;
    out.push(`${start} ${options[k] as string}${rest === "" ? "" : ` ${rest}`}${end}`);
  }
  return out;
}

/**
 * The command as its option table reads it, as one argv: the program by its base name, every
 * option by its canonical name (abbreviations resolved, clusters split) with its value as the
 * next word, `--` when the command line ends its options with one, then the operands. git keeps
 * its global options, read the same way, before its subcommand. A command without a table (or a
 * git without a subcommand table entry) is its words as written.
 */
export function canonicalArgvOf(words: readonly Word[]): string[] {
  const first = words[0];
  if (!first) return [];
  const name = commandBaseName(first.text);
  const tail = (parsed: ParsedArgs): string[] => [...rendered(parsed).flat(), ...(parsed.dashDash === undefined ? [] : ["--"]), ...parsed.operands.map((o) => o.word.text)];
  if (name === "git") {
    const git = parseGit(words);
    if (git.sub === undefined) return ["git", ...tail(git.globals)];
    return ["git", ...rendered(git.globals).flat(), git.sub, ...tail(git.parsed)];
  }
  const table = tableFor(name);
  if (!table) return words.map((w) => w.text);
  return [name, ...tail(getopt(words, table))];
}

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
  npm: { partial: true, stopAtOperand: true, short: "w:C:", long: ["prefix=", "userconfig=", "globalconfig=", "registry=", "workspace=", "cache=", "loglevel=", "location=", "otp="] },
  pnpm: { partial: true, stopAtOperand: true, short: "C:F:w", long: ["dir=", "filter=", "recursive", "workspace-root", "reporter=", "loglevel=", "config=", "store-dir="] },
  yarn: { partial: true, stopAtOperand: true, long: ["cwd=", "mutex=", "modules-folder=", "cache-folder=", "global-folder=", "use-yarnrc=", "registry="] },
  npx: { partial: true, stopAtOperand: true, short: "p:c:w:", long: ["package=", "call=", "prefix=", "workspace=", "userconfig=", "registry="] },
  kubectl: {
    style: "exact",
    partial: true,
    stopAtOperand: true,
    short: "n:s:v:",
    long: [
      "context=", "namespace=", "kubeconfig=", "cluster=", "user=", "server=", "token=", "as=", "as-group=", "as-uid=", "certificate-authority=",
      "client-certificate=", "client-key=", "request-timeout=", "tls-server-name=", "cache-dir=", "profile=", "profile-output=", "log-file=",
      "v=", "vmodule=", "password=", "username=", "log-dir=",
    ],
  },
  helm: { style: "exact", partial: true, stopAtOperand: true, short: "n:", long: ["namespace=", "kube-context=", "kubeconfig=", "kube-apiserver=", "kube-as-user=", "kube-as-group=", "kube-token=", "kube-ca-file=", "registry-config=", "repository-cache=", "repository-config=", "burst-limit=", "qps="] },
  docker: { style: "exact", partial: true, stopAtOperand: true, short: "c:H:l:D", long: ["config=", "context=", "host=", "log-level=", "tlscacert=", "tlscert=", "tlskey="] },
  podman: { style: "exact", partial: true, stopAtOperand: true, long: ["connection=", "url=", "identity=", "root=", "runroot=", "storage-driver=", "cgroup-manager=", "log-level=", "module="] },
  cargo: { partial: true, stopAtOperand: true, short: "C:Z:", long: ["config=", "color="] },
  make: { partial: true, short: "C:f:I:j::l::o:W:O::", long: ["directory=", "file=", "makefile=", "include-dir=", "jobs=?", "load-average=?", "old-file=", "what-if=", "output-sync=?", "eval="] },
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
