// Read-only classification of one simple command. An allowlist: a command is read-only only
// when its name is known, its options are known to be safe and its redirections write nothing
// but /dev/null. Everything else gets a reason, which is what the permission prompt shows.
import { awkProgramObjection } from "./awk.js";
import { gitObjection } from "./git.js";
import { findOption, parseCommand, tableObjection, xxdParse, type ParsedArgs } from "./options.js";
import { sedScriptObjection } from "./sed.js";
import { jqCommandObjection } from "./lang/jq.js";
import { TOOL_CHECKERS } from "./read-only-tools.js";
import { readBuiltinObjection } from "./shell-state.js";
import { isHarmlessGitTrace, isSafeEnvVariable } from "./shared.js";
import { tarParse } from "./tar.js";
import type { Redirect, SimpleCommand } from "./command.js";
import type { Word } from "./words.js";

/** Read-only whatever their options and operands (no option runs a program or writes a file). */
const ALWAYS_READ_ONLY = new Set([
  "cat", "head", "tail", "wc", "pwd", "echo", "ls", "stat", "du", "df", "diff", "cmp", "comm",
  "grep", "egrep", "fgrep", "which", "whoami", "id", "groups", "uname", "basename", "dirname",
  "realpath", "readlink", "nl", "tac", "rev", "cut", "paste", "tr", "fold", "fmt", "expand",
  "unexpand", "column", "join", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
  "sha512sum", "b2sum", "cksum", "sum", "base64", "base32", "seq", "true", "false", ":", "sleep",
  "od", "hexdump", "strings", "printenv", "nproc", "arch", "uptime", "free", "ps", "locale",
  "tty", "type", "whereis", "cal", "expr", "numfmt", "getconf", "logname",
  "cd", "pushd", "popd", "dirs", "wait", "zgrep", "zegrep", "zfgrep",
]);

/**
 * Commands with options that run programs or write files: an argument that is not static (a
 * variable, a glob, a substitution's output) might become such an option, so they need static
 * arguments before `--`.
 */
const STRICT_ARGUMENTS = new Set([
  "sort", "sed", "awk", "gawk", "mawk", "nawk", "find", "git", "rg", "tar", "uniq", "date",
  "hostname", "file", "tree", "xxd", "tee", "set", "printf", "test", "[", "command", "env",
  "timeout", "time", "nice", "stdbuf", "builtin",
]);


type Checker = (words: Word[]) => string | undefined;

const parsedFor = (name: string, words: Word[]): ParsedArgs => parseCommand(name, words);

const CHECKERS: Record<string, Checker> = {
  git: gitObjection,
  sed: sedObjection,
  awk: awkObjection,
  gawk: awkObjection,
  mawk: awkObjection,
  nawk: awkObjection,
  jq: jqCommandObjection,
  find: (words) => {
    for (const w of words.slice(1)) {
      if (/^-(exec|execdir|ok|okdir)$/.test(w.text)) return `find ${w.text} runs a command`;
      if (/^-(delete|fprint|fprint0|fprintf|fls)$/.test(w.text)) return `find ${w.text} writes or deletes files`;
    }
    return undefined;
  },
  // rg, sort, file, tree: the options that run programs or write are in their tables.
  rg: () => undefined,
  sort: () => undefined,
  file: () => undefined,
  tree: () => undefined,
  uniq: (words) => (parsedFor("uniq", words).operands.length > 1 ? "uniq with two operands writes the second" : undefined),
  xxd: (words) => {
    const parsed = xxdParse(words);
    if (parsed.errors[0] !== undefined) return `xxd: ${parsed.errors[0]}, so what it does is not known`;
    return parsed.operands.length > 1 ? "xxd with two operands writes the second" : undefined;
  },
  tee: (words) => {
    const files = parsedFor("tee", words).operands.filter((o) => o.word.text !== "/dev/null");
    return files.length > 0 ? "tee writes files" : undefined;
  },
  date: (words) => {
    const parsed = parsedFor("date", words);
    if (parsed.operands.some((o) => !o.word.text.startsWith("+"))) return "date with an operand sets the clock";
    // `-I[FMT]`, `--rfc-3339=FMT`: date refuses a format it does not know (argmatch: a prefix of one it knows).
    for (const o of parsed.options) {
      const formats = o.name === "-I" || o.name === "--iso-8601" ? ["hours", "minutes", "date", "seconds", "ns"] : o.name === "--rfc-3339" ? ["date", "seconds", "ns"] : [];
      const v = o.value?.text;
      if (v !== undefined && formats.length > 0 && (v === "" || !formats.some((f) => f.startsWith(v)))) return `date ${o.name} ${v}: not a format date knows, so what it does is not known`;
    }
    return undefined;
  },
  hostname: (words) => {
    const parsed = parsedFor("hostname", words);
    if (parsed.operands.length > 0 || findOption(parsed, "Fb", ["file", "boot"])) return "hostname with a name changes it";
    return undefined;
  },
  printf: (words) => (words[1]?.text === "-v" || words[1]?.text.startsWith("-v") ? "printf -v assigns a variable" : undefined),
  test: testObjection,
  "[": testObjection,
  set: (words) => (words.slice(1).every((w) => /^([-+][a-zA-Z]+|--|[a-z]+)$/.test(w.text)) ? undefined : "set with these arguments"),
  command: () => undefined,
  read: readBuiltinObjection,
  tar: tarObjection,
  env: (words) => (words.length === 1 ? undefined : "env runs a command with a changed environment"),
  // who and users read the login records of the FILE they are given (any file, printed as records).
  who: (words) => {
    const operands = parsedFor("who", words).operands.map((o) => o.word.text);
    return operands.length === 0 || (operands.length === 2 && operands[0] === "am") ? undefined : "who with a FILE operand reads that file";
  },
  users: (words) => (words.length > 1 ? "users with a FILE operand reads that file" : undefined),
  // Transparent wrappers: read-only themselves; what they run is its own subcommand.
  timeout: () => undefined,
  nice: () => undefined,
  stdbuf: () => undefined,
  builtin: () => undefined,
  time: () => undefined,
  // xargs itself reads its input and runs CMD, which is judged as a command of its own with one
  // more word not known in advance (walk.ts). -I puts input inside CMD's words (`sh -c 'cat {}'`).
  xargs: (words) => {
    const parsed = parsedFor("xargs", words);
    const bad = parsed.options.find((o) => /^(-[pIi]|-o|--(interactive|open-tty|replace|process-slot-var))$/.test(o.name));
    if (bad) return `xargs ${bad.name} is not read-only here`;
    return parsed.operands.length === 0 ? "xargs without a command runs echo" : undefined;
  },
  less: pagerObjection,
  more: pagerObjection,
  // Shell state printed, not changed: `umask`, `umask -S`; `ulimit -a`, `ulimit -n`; `kill -l`.
  umask: (words) => (words.slice(1).every((w) => /^-[Sp]+$/.test(w.text)) ? undefined : "umask with a mode changes the shell's file mode mask"),
  ulimit: (words) => (words.slice(1).every((w) => /^-[SHabcdefiklmnpqrstuvxPRT]+$/.test(w.text)) ? undefined : "ulimit with a value changes a resource limit"),
  kill: (words) =>
    /^-[lL]$/.test(words[1]?.text ?? "") && words.slice(2).every((w) => /^([0-9]+|[A-Za-z][A-Za-z0-9+-]*)$/.test(w.text)) ? undefined : "kill sends signals to processes",
};

/**
 * less and more with only display options. The Bash tool runs commands in a session of their
 * own with no terminal, so neither pager can take keys (`!cmd`, `v` for an editor) and both
 * copy their input out like cat. What remains: `+cmd` operands (less runs them as its own
 * commands, `!` included), options that write a log (`-o`) or read key bindings (`-k`), and
 * less's input preprocessor: a LESSOPEN in the environment runs a program on every file.
 */
function pagerObjection(words: Word[]): string | undefined {
  const name = words[0]?.text ?? "";
  if (name === "less" && (process.env.LESSOPEN !== undefined || process.env.LESSCLOSE !== undefined)) return "less runs the input preprocessor $LESSOPEN names";
  const flags = name === "less" ? /^-[NnRrSFXiIeEmMsqQwWcC~]+$|^--(LINE-NUMBERS|line-numbers|RAW-CONTROL-CHARS|raw-control-chars|chop-long-lines|quit-if-one-screen|no-init|ignore-case|IGNORE-CASE|quit-at-eof|QUIT-AT-EOF|squeeze-blank-lines|quiet|silent)$/ : /^-([dflcpsu]+|[0-9]+)$|^--(silent|logical|no-pause|print-over|clean-print|exit-on-eof|squeeze|plain)$/;
  for (const w of words.slice(1)) {
    if (!w.isStatic) return `${name} argument ${w.raw} is not static and may expand to an option`;
    if (w.text === "--") break;
    if (w.text.startsWith("+")) return `${name} ${w.text} runs ${name}'s own commands`;
    if (w.text.startsWith("-") && w.text !== "-" && !flags.test(w.text)) return `${name} option ${w.text} is not known to be read-only`;
  }
  return undefined;
}

function testObjection(words: Word[]): string | undefined {
  return words.some((w) => w.text === "-v" || w.text === "-R") ? "test -v evaluates array subscripts" : undefined;
}

function sedObjection(words: Word[]): string | undefined {
  const parsed = parsedFor("sed", words);
  if (findOption(parsed, "i", ["in-place"])) return "sed -i edits files in place";
  if (findOption(parsed, "f", ["file"])) return "sed -f runs a script from a file";
  return programObjection("sed", "a script", parsed, "--expression", sedScriptObjection);
}

function awkObjection(words: Word[]): string | undefined {
  const parsed = parsedFor("awk", words);
  const allowed = /^(-[FvbcPrSMNOte]|--(field-separator|assign|source|sandbox|characters-as-bytes|traditional|posix|re-interval|bignum|non-decimal-data|optimize|no-optimize|use-lc-numeric|csv))$/;
  const unknown = parsed.options.find((o) => !allowed.test(o.name));
  if (unknown) return `awk option ${unknown.name} is not known to be read-only`;
  return programObjection("awk", "a program", parsed, "--source", awkProgramObjection);
}

/** sed and awk take their program from `-e`/the long option, else from the first operand; each one is checked. */
function programObjection(
  tool: string,
  what: string,
  parsed: ReturnType<typeof parsedFor>,
  longName: string,
  check: (program: string) => string | undefined,
): string | undefined {
  const programs = parsed.options.filter((o) => o.name === "-e" || o.name === longName).map((o) => o.value?.text ?? "");
  if (programs.length === 0) {
    const first = parsed.operands[0];
    if (!first) return `${tool} without ${what}`;
    programs.push(first.word.text);
  }
  for (const program of programs) {
    const objection = check(program);
    if (objection) return objection;
  }
  return undefined;
}

/** `tar -t` (list) only, without options that run programs or write. */
function tarObjection(words: Word[]): string | undefined {
  // Old style (`tar tvf x.tar`) is expanded by tarParse.
  const parsed = tarParse(words);
  const objection = tableObjection("tar", parsed);
  if (objection) return objection;
  const shorts = parsed.options.filter((o) => /^-.$/.test(o.name)).map((o) => o.name[1]).join("");
  const listing = shorts.includes("t") || parsed.options.some((o) => o.name === "--list");
  if (!listing) return "tar other than --list is not read-only";
  if (/[xcruAIFgd]/.test(shorts)) return "tar with options that extract, create, or run programs";
  const bad = findOption(parsed, "", ["extract", "create", "append", "update", "catenate", "delete", "remove-files", "diff"]);
  if (bad) return `tar ${bad.name} runs a program or writes`;
  const archives = parsed.options.filter((o) => o.name === "-f" || o.name === "--file").map((o) => o.value?.text ?? "");
  if (archives.some((a) => /^[^/]*:/.test(a)) && !findOption(parsed, "", ["force-local"])) return "tar with a remote archive runs rsh";
  return undefined;
}

const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/** Whether a redirection writes a file (fd duplication and /dev/null do not count). */
export function isWriteRedirect(r: Redirect): boolean {
  if (r.op === ">&" || r.op === "<&") {
    const t = r.target?.text ?? "";
    return r.op === ">&" && !/^(\d+|-|\d+-)$/.test(t);
  }
  return OUTPUT_OPS.has(r.op);
}

/**
 * Whether the classifier knows this command (read-only always, or by a checker of its own). The
 * developer tools of read-only-tools.ts are not counted: their other subcommands run anything
 * (`npm test`, `docker exec`), so they stay opaque unless the invocation itself is read-only.
 */
export function hasReadOnlyModel(name: string): boolean {
  return ALWAYS_READ_ONLY.has(name) || Object.hasOwn(CHECKERS, name);
}

/** Returns undefined when `cmd` is read-only, else why not. */
export function readOnlyObjection(cmd: SimpleCommand): string | undefined {
  for (const r of cmd.redirects) {
    // bash itself opens /dev/tcp/host/port and /dev/udp/…: a network connection.
    if (r.target && /^\/dev\/(tcp|udp)\//.test(r.target.text)) return `redirection opens a network connection: ${r.target.text}`;
    if (isWriteRedirect(r) && !(r.target?.isStatic && /^\/dev\/(null|stdout|stderr|fd\/[12])$/.test(r.target.text))) {
      return `output redirection to ${r.target?.text ?? "a file"}`;
    }
  }
  if (cmd.declaration) return `${cmd.words[0]?.text ?? "declaration"} changes shell variables`;
  const split = cmd.words.find((w) => w.ifs);
  if (split) return `$IFS splits a word where it appears: ${split.raw}`;
  for (const { name, value } of cmd.env) {
    // `IFS= read -r line` only changes how read splits the line.
    if (name === "IFS" && cmd.words[0]?.text === "read") continue;
    // `GIT_TRACE=1 git status` prints the trace on stderr (a path value is a file git writes: targets.ts).
    if (value.isStatic && isHarmlessGitTrace(name, value.text)) continue;
    if (!isSafeEnvVariable(name)) return `sets ${name} for the command`;
  }
  const first = cmd.words[0];
  if (!first) return undefined;
  if (!first.isStatic) return `the command name is not static: ${first.raw}`;
  const name = first.text;
  if (name.includes("/")) return `${name} is run by path`;
  if (name.startsWith("=")) return `${name} is zsh = expansion (runs the command found in PATH)`;
  if (STRICT_ARGUMENTS.has(name)) {
    const dynamic = firstDynamicBeforeEnd(cmd.words, GLOB_OPERANDS.has(name));
    if (dynamic) return `${name} argument ${dynamic.raw} is not static and may expand to an option`;
  }
  if (name !== "tar") {
    const objection = tableObjection(name, parsedFor(name, cmd.words));
    if (objection) return objection;
  }
  if (ALWAYS_READ_ONLY.has(name)) return undefined;
  const checker = Object.hasOwn(TOOL_CHECKERS, name) ? TOOL_CHECKERS[name] : CHECKERS[name];
  if (!checker) return `${name} is not a known read-only command`;
  return checker(cmd.words);
}

/**
 * Commands whose glob operands are only files or text: a match that begins with `-` or `@`
 * (an option, a response file) is judged when the call is decided, on the names the glob
 * matches then (the analysis carries such globs as `optionGlobs`). awk's program is its first
 * operand unless -e/--source/-f gives it: a glob there would run a file's name as a program.
 */
const GLOB_OPERANDS = new Set(["printf", "awk", "gawk", "mawk", "nawk", "file", "sort"]);

/** A word that only pathname expansion makes dynamic (no parameter, substitution or brace). */
function isGlobOnly(w: Word): boolean {
  return w.glob && !w.brace && !w.ifs && !w.unsafeExpansion && !/[$`]/.test(w.raw);
}

function firstDynamicBeforeEnd(words: Word[], globsAreFiles = false): Word | undefined {
  const name = words[0]?.text ?? "";
  if (globsAreFiles && /awk$/.test(name)) {
    const parsed = parsedFor(name, words);
    const fromOption = parsed.options.some((o) => /^(-e|-f|--source|--file)$/.test(o.name));
    const program = parsed.operands[0]?.word;
    if (!fromOption && program && !program.isStatic) return program;
  }
  // printf reads options only before its format: after a static format, every word is data
  // for it (`printf '%s\n' "$HOME"`); a format not known could be `-v NAME` (assigning NAME).
  if (name === "printf") {
    const format = words[1]?.isStatic && words[1].text === "--" ? words[2] : words[1];
    if (format?.isStatic && !format.text.startsWith("-")) return undefined;
  }
  for (const w of words.slice(1)) {
    if (w.isStatic && w.text === "--") return undefined;
    if (!w.isStatic && !(globsAreFiles && isGlobOnly(w))) return w;
  }
  return undefined;
}
