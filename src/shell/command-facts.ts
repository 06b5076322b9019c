// One simple command as every consumer reads it (the permission engine, rule matching, the
// sandbox plan), computed once per subcommand and frozen: the analysis builds it for each
// subcommand it returns, and a subcommand made elsewhere (a test, a rewritten one) gets its own
// on first use. Consumers read these fields instead of deriving them from argv again.
import { posix } from "node:path";
import type { ShellCommandFacts, ShellRepositoryReads, ShellSubcommand, ShellTreeWriter } from "../tool/types.js";
import { effectiveArgv, needsExactRule, onlySafeEnv, restrictiveTexts, subcommandTexts } from "./bash-rules.js";
import { projectConfigFiles } from "./project-programs.js";
import { isStaticWord } from "./shared.js";

/** A path a command removes, as written. */
export interface Deletion {
  readonly path: string;
  /** The path itself goes (`rm -rf x`), not only what is below it (`find x -delete`). */
  readonly itself: boolean;
  /** How the command names it, for a reason: `rm x`, `find x -delete`. */
  readonly shown: string;
}

/** What a command removes: paths on its command line, and why more is removed than they show. */
export interface Deletes {
  readonly paths: readonly Deletion[];
  /** It removes what its command line does not name (`find -files0-from … -delete`), and why; else null. */
  readonly unknown: string | null;
}

/** Something a command runs besides its own program. */
export interface Execution {
  /**
   * `command`: a command it starts (wrappers, `sudo`, `env`, `xargs`, `find -exec`), which the
   * analysis judges as a nested subcommand of its own; `script`: shell text it runs (`bash -c`,
   * `eval`, a here-document fed to a shell), analysed as nested subcommands too; `may`: a later
   * word an unmodelled command may start as a command (`mywrap rm -rf /`), seen nowhere else.
   */
  readonly kind: "command" | "script" | "may";
  /** What runs, as text (a command's words joined by single spaces, a script's source). */
  readonly text: string;
  /** For `may`: what that command would remove if it ran; for the others null (their subcommands carry it). */
  readonly deletes: Deletes | null;
  /** For `may`: the word as a path the unmodelled command may write (a leading `-opt=` removed); else null. */
  readonly mayWrite: string | null;
}

/**
 * A command as its option table reads it, in parts: the program's base name (and git's
 * subcommand), git's own options before it, the options in their full long form (a short letter
 * by the long option it is, an abbreviation in full, `--no-NAME` as written) with their values,
 * and the operands. Two spellings of one command have the same form, up to option order.
 */
export interface CanonicalForm {
  readonly head: readonly string[];
  readonly globals: readonly CanonicalOption[];
  readonly options: readonly CanonicalOption[];
  readonly operands: readonly string[];
}

export interface CanonicalOption {
  readonly name: string;
  /** Its value; undefined when it takes none, or (in a rule) when the rule ends before it. */
  readonly value?: string;
}

/** A deny or ask rule's specifier read as a command: its form, and whether it is a prefix (`… *`). */
export interface RuleForm {
  readonly form: CanonicalForm;
  readonly prefix: boolean;
}

function hasOption(have: readonly CanonicalOption[], want: CanonicalOption): boolean {
  return have.some((o) => o.name === want.name && (want.value === undefined || o.value === want.value));
}

/**
 * Whether a command means what a rule names: the same program (and subcommand), every option
 * the rule names (with its value, unless the rule ends before it) in any order and spelling,
 * and the rule's operands first (a prefix rule) or exactly (an exact rule, which also allows no
 * option it does not name).
 */
export function ruleFormCovers(rule: RuleForm, command: CanonicalForm): boolean {
  const want = rule.form;
  if (want.head.length !== command.head.length || want.head.some((h, i) => h !== command.head[i])) return false;
  if (!want.globals.every((o) => hasOption(command.globals, o)) || !want.options.every((o) => hasOption(command.options, o))) return false;
  if (want.operands.length > command.operands.length || want.operands.some((w, i) => w !== command.operands[i])) return false;
  if (rule.prefix) return true;
  return want.operands.length === command.operands.length && command.globals.every((o) => hasOption(want.globals, o)) && command.options.every((o) => hasOption(want.options, o));
}

/** The analysis's reader of rule specifiers (it needs the option tables, loaded with the analysis). */
let ruleFormReader: ((spec: string) => RuleForm | null) | undefined;
const ruleForms = new Map<string, RuleForm | null>();

/** The analysis registers how a rule's specifier is read as a command (src/shell/rule-texts.ts). */
export function registerRuleFormReader(read: (spec: string) => RuleForm | null): void {
  ruleFormReader = read;
  ruleForms.clear();
}

/**
 * A `Bash(…)` specifier read by the same option tables as commands are, once per specifier:
 * null when it has a `*` inside, quoting, an option the table refuses, a program without a
 * table, or before the analysis is loaded (no command then has a form to compare with).
 */
export function ruleFormOf(spec: string): RuleForm | null {
  if (!ruleFormReader) return null;
  let form = ruleForms.get(spec);
  if (form === undefined) {
    form = ruleFormReader(spec);
    if (ruleForms.size > 10_000) ruleForms.clear();
    ruleForms.set(spec, form);
  }
  return form;
}

export interface CommandFacts {
  /** What really runs, transparent wrappers removed (`timeout 5 rm x` is `rm x`). */
  readonly argv: readonly string[];
  /**
   * The same as its option table reads it: the program by its base name, every option in its
   * full long form (a short letter by the long option its table pairs it with, an abbreviation
   * in full, clusters split, `--no-NAME` in full; a letter without a long name stays short) with
   * its value as the next word, `--` when the command line has one, then the operands
   * (`sort -ro f x` is `sort --reverse --output f x`; src/shell/rule-texts.ts); a command without
   * a table, or a subcommand the analysis did not make, as written.
   */
  readonly canonicalArgv: readonly string[];
  /** The same read into its parts, for matching deny and ask rules by meaning; null without a table. */
  readonly canonicalForm: CanonicalForm | null;
  /** The command word as written (`timeout` in `timeout 5 rm x`, `/bin/rm`); undefined for an empty command. */
  readonly writtenName: string | undefined;
  /** What really runs, its program as written (`/bin/rm` in `timeout 5 /bin/rm x`); `""` for an empty command. */
  readonly programWord: string;
  /** The program's name, its path's last part (`/bin/rm` is `rm`); `""` for an empty command. */
  readonly program: string;
  /** The program is named before the command runs (not `$(echo rm)`, `r${x}m`, `$"cat"`, a glob). */
  readonly programKnown: boolean;
  /** Texts allow rules match: as written and with transparent wrappers removed. */
  readonly texts: readonly string[];
  /** Texts deny and ask rules match: also the canonical forms, what an unmodelled command may run, the program without its path. */
  readonly restrictiveTexts: readonly string[];
  /** The same with `$"…"` read as its C-locale literal (for a command that has one). */
  readonly localeRestrictiveTexts: readonly string[];
  /** Only an exact rule may allow it (exec wrappers, `find -exec`/`-delete`). */
  readonly exactRuleOnly: boolean;
  /** Its environment assignments are all ones an allow rule may look past. */
  readonly safeEnv: boolean;
  /** Paths it reads and writes, as written (empty when the command was only split). */
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  /**
   * What git reads from the top of the work tree it runs in (objects `REV:path`, `:/` pathspecs,
   * the whole tree a history reader prints), which the shell's directory does not place when it is
   * below the top; null for any other command. `reads` has them too, as if the directory were the top.
   */
  readonly repositoryReads: Readonly<ShellRepositoryReads> | null;
  /** Paths it removes (rm, rmdir, unlink, shred operands; the roots of `find … -delete`). */
  readonly deletes: Deletes;
  /** What it runs besides its program: commands and scripts it starts, words an unmodelled command may start. */
  readonly executions: readonly Execution[];
  /** It reaches the network (a network tool, a `/dev/tcp` redirection, a URL it fetches), as far as known. */
  readonly network: boolean;
  /** The hosts it reaches, when its command line names them (lower case). */
  readonly hosts: readonly string[];
  /** Project files its program loads that can make it run code the project ships (`.yarnrc.yml`, `.git/config`…; src/shell/project-programs.ts). */
  readonly projectPrograms: readonly string[];
  /**
   * It only makes, moves, copies or removes the files it names (`mkdir`, `touch`, `rm`, `rmdir`,
   * `mv`, `cp`), changes directory (`cd`, `pushd`), or edits files with a plain `sed -i 's/a/b/g'`.
   */
  readonly fileCommand: boolean;
  /** For git, its subcommand (the first word after git's own options: `diff` in `git -C x diff`), `""` when none; else null. */
  readonly gitSubcommand: string | null;
  /** It changes to a directory of the directory stack, which its words do not name (`popd`, `pushd +1`). */
  readonly cdFromStack: boolean;
  /** A `--git-dir`/`--work-tree` option (as written) pointing git at another git directory; else null. */
  readonly gitDirOption: string | null;
  /** Every word of the command line as written, wrappers included (is a path, a glob, named anywhere on it?). */
  readonly wordsWritten: readonly string[];
  /** It writes whole trees whose names the command line does not show. */
  readonly treeWriter: ShellTreeWriter["kind"] | null;
  /** The analysis does not model it: any later word may start a command. */
  readonly unknown: boolean;
}

/**
 * What the analysis read of a subcommand with its parser and option tables (loaded with the
 * analysis, not with this module): what it runs (from the walk), its canonical argv, the hosts of
 * the URLs it fetches.
 */
export interface AnalysedFacts {
  runs?: { commands: readonly (readonly string[])[]; scripts: readonly string[] };
  canonicalArgv: readonly string[];
  canonicalForm?: CanonicalForm;
  urlHosts: readonly string[];
}

/** What the whole command's text shows that changes how its words are read (one reader, here). */
export interface CallTextFacts {
  /** It has a `$"…"` string (its locale translation may be other text). */
  readonly localeQuoted: boolean;
  /** It may change how globs expand (`shopt`, `GLOBIGNORE`, `BASHOPTS` named anywhere). */
  readonly globOptionsMayChange: boolean;
  /** It names `dotglob` (then a glob's matches may include dot files). */
  readonly mentionsDotglob: boolean;
}

const callTexts = new WeakMap<ShellCommandFacts, CallTextFacts>();

function deepFreezeTop(r: ShellRepositoryReads): Readonly<ShellRepositoryReads> {
  return Object.freeze({ dir: r.dir, workTree: r.workTree, files: Object.freeze([...r.files]) as string[], trees: Object.freeze([...r.trees]) as string[] });
}

/** The facts of the whole call's text, computed once per analysis. */
export function callTextFacts(facts: ShellCommandFacts): CallTextFacts {
  let out = callTexts.get(facts);
  if (!out) {
    const text = facts.command;
    out = Object.freeze({ localeQuoted: text.includes('$"'), globOptionsMayChange: /shopt|GLOBIGNORE|BASHOPTS/.test(text), mentionsDotglob: text.includes("dotglob") });
    callTexts.set(facts, out);
  }
  return out;
}

/**
 * The text of a command the parser could not read whole, cut crudely into pieces at every
 * operator, parenthesis and substitution, quotes removed: what a deny rule is matched against
 * so that an unparseable command never slips past a rule its text plainly contains.
 */
export function crudePieces(command: string): string[] {
  return command
    .split(/[;&|\n()`{}<>]|\$\(/)
    .map((p) => p.replace(/["'\\]/g, "").trim().replace(/\s+/g, " "))
    .filter((p) => p.length > 0);
}

const built = new WeakMap<ShellSubcommand, CommandFacts>();
const analysed = new WeakMap<ShellSubcommand, AnalysedFacts>();

/**
 * Where the analysis keeps a subcommand's facts: a hidden (symbol-keyed, non-enumerable) slot on
 * the subcommand it made, which freezing the subcommand leaves writable (the slot object itself
 * is not frozen). Thousands of subcommands per long script cost far less there than as WeakMap
 * entries; a subcommand made elsewhere uses the WeakMaps.
 */
const SLOT: unique symbol = Symbol("command facts");
interface FactsSlot {
  analysed: AnalysedFacts;
  built: CommandFacts | undefined;
}
type Slotted = ShellSubcommand & { [SLOT]?: FactsSlot };

/** The facts of one subcommand: built once per subcommand object, then the same frozen value. */
export function commandFacts(sub: ShellSubcommand): CommandFacts {
  const slot = (sub as Slotted)[SLOT];
  if (slot) return (slot.built ??= buildCommandFacts(sub, slot.analysed));
  let facts = built.get(sub);
  if (!facts) {
    facts = buildCommandFacts(sub, analysed.get(sub));
    built.set(sub, facts);
  }
  return facts;
}

/** The analysis records what it read of a subcommand before its facts are built. */
export function recordAnalysedFacts(sub: ShellSubcommand, facts: AnalysedFacts): void {
  const slot = (sub as Slotted)[SLOT];
  if (slot && slot.built === undefined) slot.analysed = facts;
  else if (!slot && Object.isExtensible(sub) && !built.has(sub)) Object.defineProperty(sub, SLOT, { value: { analysed: facts, built: undefined } satisfies FactsSlot });
  else analysed.set(sub, facts);
}

/** A frozen array with these values: the array itself when it is frozen already (the analysis froze it), else a frozen copy. */
function frozen<T>(values: readonly T[]): readonly T[] {
  return Object.isFrozen(values) ? values : Object.freeze([...values]);
}

const NO_STRINGS: readonly string[] = Object.freeze([]);

function buildCommandFacts(sub: ShellSubcommand, seen: AnalysedFacts | undefined): CommandFacts {
  const argv = frozen(effectiveArgv(sub));
  const program = posix.basename(argv[0] ?? "");
  const restrictive = Object.freeze(restrictiveTexts(sub, false));
  const hosts = hostsOf(sub, program, argv, seen?.urlHosts ?? NO_STRINGS);
  // The first word after the program that is not an option: git's subcommand, npm's verb (read for those only).
  const verb = program === "git" || PACKAGE_MANAGERS.has(program) ? gitSubcommand(argv) : "";
  return Object.freeze({
    argv,
    // The analysis made this array for this subcommand alone: freezing it in place copies nothing.
    canonicalArgv: seen ? Object.freeze(seen.canonicalArgv) : argv,
    canonicalForm: seen?.canonicalForm ?? null,
    writtenName: sub.argv[0],
    programWord: argv[0] ?? "",
    program,
    programKnown: isStaticWord(argv[0] ?? ""),
    texts: Object.freeze(subcommandTexts(sub)),
    restrictiveTexts: restrictive,
    // Without a `$` in any text, reading `$"…"` as its literal changes none of them.
    localeRestrictiveTexts: restrictive.some((t) => t.includes("$")) ? Object.freeze(restrictiveTexts(sub, true)) : restrictive,
    exactRuleOnly: needsExactRule(sub, argv),
    safeEnv: onlySafeEnv(sub),
    reads: sub.targets ? frozen(sub.targets.read) : NO_STRINGS,
    writes: sub.targets ? frozen(sub.targets.write) : NO_STRINGS,
    repositoryReads: sub.targets?.fromTop ? deepFreezeTop(sub.targets.fromTop) : null,
    deletes: deletesOf(program, argv),
    executions: executionsOf(sub, seen?.runs),
    network: hosts.length > 0 || NETWORK_PROGRAMS.has(program) || (program === "git" && GIT_NETWORK.has(verb)) || (PACKAGE_MANAGERS.has(program) && NPM_NETWORK.has(verb)) || REGISTRY_CLIENTS.has(program),
    hosts,
    projectPrograms: projectConfigFiles(program),
    fileCommand: isFileCommand(program, argv),
    gitSubcommand: program === "git" ? verb : null,
    cdFromStack: program === "popd" || (program === "pushd" && /^[+-]\d+$/.test(argv[1] ?? "")),
    gitDirOption: program === "git" ? gitDirOptionOf(argv) : null,
    wordsWritten: frozen(sub.argv),
    treeWriter: sub.treeWriter?.kind ?? null,
    unknown: sub.opaque === true,
  });
}

const NO_DELETES: Deletes = Object.freeze({ paths: Object.freeze([]), unknown: null });
const RM_COMMANDS = new Set(["rm", "rmdir", "unlink", "shred"]);

/** The paths `argv` removes: rm-like operands (every word not an option before `--`), the roots of `find … -delete`. */
function deletesOf(name: string, argv: readonly string[]): Deletes {
  if (name === "find") {
    if (!argv.some((a) => a === "-delete")) return NO_DELETES;
    if (argv.includes("-files0-from")) return Object.freeze({ paths: Object.freeze([]), unknown: "find -files0-from … -delete: its starting points are not on the command line" });
    let i = 1;
    while (i < argv.length && /^-([HLP]|D|O\d*)$/.test(argv[i]!)) i += argv[i] === "-D" ? 2 : 1;
    const roots: string[] = [];
    for (; i < argv.length && !argv[i]!.startsWith("-") && argv[i] !== "(" && argv[i] !== "!"; i++) roots.push(argv[i]!);
    // `find . -name x -delete` removes below the starting point, never the starting point itself.
    const paths = (roots.length > 0 ? roots : ["."]).map((root) => Object.freeze({ path: root, itself: false, shown: `find ${root} -delete` }));
    return Object.freeze({ paths: Object.freeze(paths), unknown: null });
  }
  if (!RM_COMMANDS.has(name)) return NO_DELETES;
  const paths: Deletion[] = [];
  let flagsDone = false;
  for (const arg of argv.slice(1)) {
    if (!flagsDone && arg === "--") {
      flagsDone = true;
      continue;
    }
    if (!flagsDone && arg.startsWith("-") && arg !== "-") continue;
    paths.push(Object.freeze({ path: arg, itself: true, shown: `${name} ${arg}` }));
  }
  return paths.length === 0 ? NO_DELETES : Object.freeze({ paths: Object.freeze(paths), unknown: null });
}

const NO_EXECUTIONS: readonly Execution[] = Object.freeze([]);

function executionsOf(sub: ShellSubcommand, seen: AnalysedFacts["runs"]): readonly Execution[] {
  if (!seen && !sub.opaque) return NO_EXECUTIONS;
  const out: Execution[] = [];
  for (const words of seen?.commands ?? []) out.push(Object.freeze({ kind: "command", text: words.join(" "), deletes: null, mayWrite: null }));
  for (const script of seen?.scripts ?? []) out.push(Object.freeze({ kind: "script", text: script, deletes: null, mayWrite: null }));
  if (sub.opaque) {
    // Each later word may start a command, read as written (no wrapper removed): `mywrap rm -rf /`.
    for (let k = 1; k < sub.argv.length; k++) {
      const inner = sub.argv.slice(k);
      const word = inner[0]!.replace(/^-[^=]*=/, "");
      out.push(Object.freeze({ kind: "may", text: inner.join(" "), deletes: deletesOf(posix.basename(inner[0]!), inner), mayWrite: word }));
    }
  }
  return Object.freeze(out);
}

/** Network clients: what they do is reach a host. */
const NETWORK_PROGRAMS = new Set([
  "curl", "wget", "http", "https", "xh", "httpie", "aria2c", "lynx", "links", "w3m",
  "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "ping", "dig", "nslookup", "host",
]);
/** git subcommands that contact a remote. */
const GIT_NETWORK = new Set(["clone", "fetch", "pull", "push", "ls-remote", "archive", "request-pull", "send-email"]);

/** Package manager subcommands that ask the registry (npm's aliases included; pnpm and yarn share most). */
const NPM_NETWORK = new Set(["view", "info", "show", "v", "outdated", "search", "s", "se", "find", "ping", "audit", "doctor", "install", "i", "add", "ci", "update", "up", "upgrade", "exec", "x", "publish", "dist-tag", "owner", "access", "whoami", "token", "login", "adduser", "logout", "deprecate", "unpublish", "star", "stars", "team", "org", "hook", "profile", "fund", "repo", "docs", "bugs", "pack", "init", "create", "dedupe", "ddp", "prune"]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "yarnpkg"]);
/** Programs that always ask a server: npx and pnpx fetch what they run, gh asks GitHub. */
const REGISTRY_CLIENTS = new Set(["npx", "pnpx", "gh"]);

/** The first word after the program that is not an option (git's `-C dir`, `-c k=v` skipped); `""` when none. */
function gitSubcommand(argv: readonly string[]): string {
  const i = argv.findIndex((w, k) => k > 0 && !w.startsWith("-") && !/^-[Cc]$/.test(argv[k - 1]!));
  return i < 0 ? "" : argv[i]!;
}

/** Hosts named by the URLs a network tool fetches (as the analysis read them), `/dev/tcp`/`/dev/udp` redirections, and `scheme://host` or `user@host:` operands of other network clients and git. */
function hostsOf(sub: ShellSubcommand, program: string, argv: readonly string[], urlHosts: readonly string[]): readonly string[] {
  if (sub.redirects.length === 0 && !(argv.length > 0 && (NETWORK_PROGRAMS.has(program) || program === "git"))) return NO_STRINGS;
  const hosts = new Set<string>();
  for (const r of sub.redirects) {
    const m = /^\/dev\/(?:tcp|udp)\/([^/]+)\//.exec(r.target);
    if (m) hosts.add(m[1]!.toLowerCase());
  }
  if (argv.length > 0 && (NETWORK_PROGRAMS.has(program) || program === "git")) {
    for (const host of urlHosts) hosts.add(host.replace(/^[^@]*@/, "").replace(/:\d*$/, ""));
    if (urlHosts.length === 0) {
      for (const word of argv.slice(1)) {
        const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#:\s]+)/i.exec(word) ?? /^[^@/\s:=-][^@/\s:]*@([A-Za-z0-9.-]+):/.exec(word);
        if (m) hosts.add(m[1]!.toLowerCase());
      }
    }
  }
  return hosts.size === 0 ? NO_STRINGS : Object.freeze([...hosts]);
}

/** Commands acceptEdits runs on paths inside the working dirs. */
const BASIC_FILE_COMMANDS = new Set(["mkdir", "touch", "rm", "rmdir", "mv", "cp"]);

function isFileCommand(name: string, argv: readonly string[]): boolean {
  if (BASIC_FILE_COMMANDS.has(name)) return true;
  // `cd` (its target is checked against the working dirs with the rest) moves, it changes nothing.
  if (name === "cd" || name === "pushd") return true;
  if (name !== "sed") return false;
  // `sed -i 's/a/b/g' file` only: a script with `e`, `w` or `r` commands runs or writes elsewhere.
  const args = argv.slice(1);
  const flags = args.filter((a) => a.startsWith("-"));
  const rest = args.filter((a) => !a.startsWith("-"));
  if (!flags.every((f) => /^-(i|-in-place|E|r)$/.test(f))) return false;
  const script = rest[0] ?? "";
  return /^s\/[^/\n]*\/[^/\n]*\/[gI0-9]*$/.test(script);
}

const GIT_DIR_OPTION = /^--(git-dir|work-tree)(=|$)/;

function gitDirOptionOf(argv: readonly string[]): string | null {
  for (const word of argv.slice(1)) {
    if (word === "--") break;
    if (GIT_DIR_OPTION.test(word)) return word;
  }
  return null;
}
