// analyzeCommand: one bash command string in, the facts the permission engine matches rules
// against out. Pure and synchronous once `ensureBashGrammar()` has resolved (it throws before).
import { posix } from "node:path";
import type { ShellCommandFacts, ShellSubcommand } from "../tool/types.js";
import { commandFacts, recordAnalysedFacts, type AnalysedFacts } from "./command-facts.js";
import { fallbackSegments } from "./fallback.js";
import { tableFor, wrapperTable } from "./commands/index.js";
import { parseGit } from "./git-argv.js";
import { parseCommand } from "./options.js";
import { readOnlyObjection } from "./read-only.js";
import { readerFacts } from "./reader-facts.js";
import { treeWriterOf } from "./tree-writer.js";
import { literalWord } from "./command.js";
import { isReadOnlyToolInvocation } from "./read-only-tools.js";
import { canonicalArgvOf, canonicalFormOf, fetchedHosts, isModelledCommand, ruleTextsOf } from "./rule-texts.js";
import { commandBaseName } from "./wrappers.js";
import type { Targets } from "./commands/types.js";
import { commandTargets } from "./targets.js";
import { newWalkState, type SimpleCommand } from "./command.js";
import type { Word } from "./words.js";
import { walkScript } from "./walk.js";
import { judgeShellState, loopVariables, substituteLoopVariables } from "./shell-state.js";
import { GIT_AFTER_CD, MAX_ANALYSED_COMMAND_LENGTH, MAX_READ_ONLY_COMMAND_LENGTH, MAX_READ_ONLY_SUBCOMMANDS, normalizeCommandText, substitutedText } from "./shared.js";
import { fileNameProducer, objectNameProducer } from "./producers.js";
import { hiddenOperandReads } from "./hidden-operands.js";
import { jqReadTargets } from "./lang/jq.js";


/**
 * Characters bash does not treat as blanks but that look like them or hide text: a command
 * using them reads differently to a person than to the shell. CR is a word character to bash.
 */
const LOOKALIKE = /[\r\0-\x08\x0b\x0c\x0e-\x1f\x7f\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\uff01-\uff5e]/u;

export function analyzeCommand(command: string): ShellCommandFacts {
  const reasons: string[] = [];
  if (command.length > MAX_ANALYSED_COMMAND_LENGTH) {
    // Too long to parse: deny rules still see every piece the text may run.
    const subcommands = fallbackSegments(command).map((argv) => {
      const text = normalizeCommandText(argv);
      const sub: ShellSubcommand = { argv, text, effective: text, nested: false, env: {}, redirects: [] };
      const reader = readerFacts(argv.map(literalWord), undefined);
      if (reader) sub.reader = reader;
      return sub;
    });
    return sealed({
      command,
      subcommands,
      writeTargets: [],
      readTargets: [],
      cdTargets: [],
      readOnly: false,
      complete: false,
      reasons: [`the command is longer than ${MAX_ANALYSED_COMMAND_LENGTH} characters and was only split, not parsed`],
    });
  }
  const state = newWalkState();
  walkScript(command, state, false, 0);
  judgeShellState(state);

  let complete = state.incomplete.size === 0;
  reasons.push(...state.incomplete, ...state.notReadOnly);
  if (command.length > MAX_READ_ONLY_COMMAND_LENGTH) {
    complete = false;
    reasons.push(`the command is longer than ${MAX_READ_ONLY_COMMAND_LENGTH} characters`);
  }
  if (state.commands.length > MAX_READ_ONLY_SUBCOMMANDS) {
    complete = false;
    reasons.push(`the command has more than ${MAX_READ_ONLY_SUBCOMMANDS} subcommands`);
  }
  const lookalike = LOOKALIKE.exec(command);
  if (lookalike) {
    const code = (lookalike[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    reasons.push(`the command contains U+${code}, which the shell does not treat as it looks`);
  }

  const write = new Set<string>();
  const read = new Set<string>();
  const cd = new Set<string>();
  const dirs = new WorkingDirectories();
  let runsGit = false;
  const subcommands: ShellSubcommand[] = [];
  const backup = { suffixMayBeSet: mayExportBackupSettings(command, state.commands) };
  const producedLoops = producedLoopVariables(state);
  for (const cmd of state.commands) {
    // What xargs runs is judged with the words it appends (its rule texts are the words written).
    const fed = cmd.xargsInput ? { ...cmd, words: [...cmd.words, cmd.xargsInput] } : cmd;
    const judged = name0(cmd) === "git" ? withRevisionWords(fed) : name0(cmd) === "jq" ? withProducedFiles(fed, producedLoops) : fed;
    const objection = readOnlyObjection(judged);
    if (objection) reasons.push(objection);
    const refused = refusedArgv(cmd);
    if (refused) {
      complete = false;
      reasons.push(refused);
    }
    const gitDir = name0(cmd) === "git" ? gitChangeDirectory(cmd) : undefined;
    const targets = commandTargets(judged, backup);
    targets.read.push(...hiddenOperandReads(judged, targets, (t) => substituteLoopVariables(state, t)));
    const sub = toSubcommand(cmd, targets);
    const loopGlobs = loopOptionGlobs(judged.words, (t) => substituteLoopVariables(state, t));
    if (loopGlobs.length > 0) sub.optionGlobs = [...new Set([...(sub.optionGlobs ?? []), ...loopGlobs])];
    const why = objection ?? refused;
    sub.readOnly = why === undefined ? true : { objection: why };
    subcommands.push(sub);
    if (gitDir !== undefined) {
      // git's history and object readers (`log -p`, `show`) print the whole repository whatever
      // directory git runs in: after `-C dir` they read at least what they read without it.
      if (sub.reader?.limit === "git" && !sub.reader.recursive.includes(".")) sub.reader = { ...sub.reader, recursive: [...sub.reader.recursive, "."] };
      // Where `git -C dir` runs is a directory git reads its configuration from, as after a cd.
      for (const d of gitDir) for (const v of substituteLoopVariables(state, d)) dirs.addResolved(v, cd);
      runsGit = true;
    }
    for (const p of targets.write) for (const v of substituteLoopVariables(state, p)) dirs.addResolved(v, write);
    for (const p of targets.read) for (const v of substituteLoopVariables(state, p)) dirs.addResolved(v, read);
    for (const p of targets.cd) {
      for (const v of substituteLoopVariables(state, p)) {
        dirs.addResolved(v, cd);
        dirs.change(v);
      }
    }
    const name = cmd.words[0]?.text;
    if (name === "popd") dirs.change("-");
    if (name === "git" && dirs.changed) runsGit = true;
  }
  for (const p of state.testedPaths) dirs.addResolved(p, read);
  if (setsTextDomain(state.commands, reasons)) {
    complete = false;
    reasons.push('the command sets TEXTDOMAIN: a later $"…" string may be translated into other text');
  }
  if (dirs.unknown) reasons.push("cd to a directory not known in advance: relative paths after it cannot be resolved");
  if (runsGit) reasons.push(GIT_AFTER_CD);

  const unique = [...new Set(reasons)];
  const facts: ShellCommandFacts = {
    command,
    subcommands,
    writeTargets: [...write],
    readTargets: [...read],
    cdTargets: [...cd],
    readOnly: unique.length === 0,
    complete,
    reasons: unique,
  };
  const loops = loopVariables(state);
  if (loops) facts.loopVariables = loops;
  const producers = dirs.changed ? undefined : producersOf([...read, ...(loops ? Object.values(loops).flat() : [])]);
  if (producers) facts.producers = producers;
  return sealed(facts);
}

/** The one simple command of `$(…)` word text, walked on its own. */
function substitutedCommand(raw: string): SimpleCommand | undefined {
  const text = substitutedText(raw);
  if (text === undefined) return undefined;
  const inner = newWalkState();
  walkScript(text, inner, true, 1);
  return inner.commands.length === 1 && inner.incomplete.size === 0 && inner.notReadOnly.size === 0 ? inner.commands[0] : undefined;
}

/** The read targets that are exactly `$(PRODUCER)` for a file-name producer, with its argv. */
function producersOf(targets: readonly string[]): Record<string, string[]> | undefined {
  let out: Record<string, string[]> | undefined;
  for (const word of new Set(targets)) {
    const only = substitutedCommand(word);
    const argv = only && fileNameProducer(only);
    if (argv) (out ??= {})[word] = argv;
  }
  return out;
}

/** Loop variables whose one word is `$(PRODUCER)` of a file-name producer, with that word. */
function producedLoopVariables(state: ReturnType<typeof newWalkState>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, values] of Object.entries(loopVariables(state) ?? {})) {
    const only = values.length === 1 ? substitutedCommand(values[0] as string) : undefined;
    if (only && fileNameProducer(only)) out.set(name, values[0] as string);
  }
  return out;
}

/**
 * `for f in $(git ls-files '*.json'); do jq empty "$f"; done`: jq's option-like words are the
 * danger of a word not known in advance (`-f`, `--rawfile`); in a file operand's place, a loop
 * variable over a producer's names is judged as those names, each checked when deciding to be
 * a plain name (producers.ts). Never in the filter's place.
 */
function withProducedFiles(cmd: SimpleCommand, loops: ReadonlyMap<string, string>): SimpleCommand {
  if (loops.size === 0) return cmd;
  const files = new Set(jqReadTargets(cmd.words));
  const words = cmd.words.map((w) => {
    const ref = /^"\$\{?([a-z_][a-z0-9_]*)\}?"$/.exec(w.raw);
    const produced = ref && files.has(w.text) ? loops.get(ref[1] as string) : undefined;
    return produced ? { ...w, isStatic: true, text: produced } : w;
  });
  return { ...cmd, words };
}

/**
 * `git diff $(git merge-base HEAD main)`: a substitution that prints object names is a revision
 * to git, never an option (however many names it prints, git reads the same way); it is judged
 * as a static word, and read as what it prints when the call is decided.
 */
function withRevisionWords(cmd: SimpleCommand): SimpleCommand {
  const words = cmd.words.map((w) => {
    if (w.isStatic) return w;
    const inner = substitutedCommand(w.raw);
    return inner && objectNameProducer(inner) ? { ...w, isStatic: true, text: w.raw } : w;
  });
  return { ...cmd, words };
}

function name0(cmd: SimpleCommand): string | undefined {
  return cmd.words[0]?.isStatic === true ? cmd.words[0].text : undefined;
}

/**
 * The directories `git -C a -C b …` runs in (`a/b`), when every -C is static (git ignores an
 * empty one), and the repository `--git-dir=X/.git` and `--work-tree=Y` name there (`X`, `Y`).
 */
function gitChangeDirectory(cmd: SimpleCommand): string[] | undefined {
  let dir: string | undefined;
  const globals = parseGit(cmd.words).globals.options;
  for (const o of globals) {
    if (o.name !== "-C" || o.value === undefined || !o.value.isStatic || o.value.text === "") continue;
    dir = dir === undefined || o.value.text.startsWith("/") ? o.value.text : posix.join(dir, o.value.text);
  }
  const at = (p: string): string => (dir === undefined || p.startsWith("/") ? p : posix.join(dir, p));
  const named: string[] = [];
  for (const o of globals) {
    if (o.value === undefined || !o.value.isStatic || o.value.text === "") continue;
    if (o.name === "--git-dir") named.push(at(posix.dirname(o.value.text.replace(/\/+$/, ""))));
    if (o.name === "--work-tree") named.push(at(o.value.text));
  }
  if (named.length > 0) return named;
  return dir === undefined ? undefined : [dir];
}

/**
 * The analysis's result made immutable, with each subcommand's CommandFacts built once: every
 * consumer of the call (the permission engine, rule matching, the sandbox plan) reads the same
 * values, and none can change them for the next reader.
 */
function sealed(facts: ShellCommandFacts): ShellCommandFacts {
  deepFreeze(facts);
  for (const sub of facts.subcommands) commandFacts(sub);
  return facts;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    // Index by index: most arrays here hold strings, and none needs a copy of its values.
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === "object" && v !== null) deepFreeze(v);
    }
    return;
  }
  // Plain objects only (no inherited enumerable keys): for-in copies no array of values.
  for (const k in value) {
    const v: unknown = (value as Record<string, unknown>)[k];
    if (typeof v === "object" && v !== null) deepFreeze(v);
  }
}

/**
 * Where relative paths may point after `cd` (GHSA-66q4-vfjg-2qhh: `cd .claude && echo x >
 * settings.json` writes .claude/settings.json). Conditionals and subshells may skip a cd, so
 * every directory the command may be in is kept, the starting one included, and a relative
 * path is reported as written and joined to each.
 */
class WorkingDirectories {
  private dirs: string[] = [""];
  changed = false;
  unknown = false;

  change(target: string): void {
    this.changed = true;
    if (/[$`*?[{]/.test(target) || target === "-" || /^~[^/]/.test(target)) {
      this.unknown = true;
      return;
    }
    const absolute = target.startsWith("/") || target.startsWith("~");
    const next = new Set(this.dirs);
    for (const d of this.dirs) next.add(absolute ? posix.normalize(target) : posix.join(d || ".", target));
    this.dirs = [...next].slice(0, 16);
  }

  /** Adds to `out` each path `path` may be, given the directories the command may be in. */
  addResolved(path: string, out: Set<string>): void {
    if (path.startsWith("/") || path.startsWith("~") || /^[<>]\(/.test(path)) {
      out.add(path);
      return;
    }
    for (const d of this.dirs) out.add(d === "" ? path : posix.join(d, path));
  }
}

/**
 * `$"…"` is read as its own text, which holds only while no message catalogue is chosen: a
 * command that names TEXTDOMAIN (an assignment, `export`, `read`, a nested script) may change that.
 */
function setsTextDomain(commands: readonly SimpleCommand[], reasons: readonly string[]): boolean {
  for (const r of reasons) if (r.includes("TEXTDOMAIN")) return true;
  for (const c of commands) {
    for (const w of c.words) if (w.text.includes("TEXTDOMAIN")) return true;
    for (const e of c.env) if (e.name.includes("TEXTDOMAIN")) return true;
  }
  return false;
}

/**
 * Whether an earlier command may have exported SIMPLE_BACKUP_SUFFIX / VERSION_CONTROL, which pick
 * the names `cp -b`, `mv -b`… give their backups: a name in the text, or a command that can set
 * and export variables whose names are not written out (`export "$v"`, `set -a`, `source`, `eval`).
 */
function mayExportBackupSettings(command: string, commands: readonly SimpleCommand[]): boolean {
  if (command.includes("SIMPLE_BACKUP_SUFFIX") || command.includes("VERSION_CONTROL")) return true;
  return commands.some((c) => c.declaration || /^(set|source|\.|eval)$/.test(c.words[0]?.text ?? ""));
}

function effectiveOf(cmd: SimpleCommand): string {
  return cmd.transparentInner ? effectiveOf(cmd.transparentInner) : normalizeCommandText(cmd.words.map((w) => w.text));
}

function toSubcommand(cmd: SimpleCommand, targets: Targets): ShellSubcommand {
  const argv = cmd.words.map((w) => w.text);
  const env: Record<string, string> = {};
  for (const { name, value } of cmd.env) env[name] = value.text;
  const text = normalizeCommandText(argv);
  const sub: ShellSubcommand = {
    argv,
    text,
    effective: cmd.transparentInner ? effectiveOf(cmd.transparentInner) : text,
    nested: cmd.nested,
    env,
    redirects: cmd.redirects.map((r) => ({ op: (r.fd ?? "") + r.op, target: r.target?.text ?? "" })),
    targets: targets.fromTop ? { read: targets.read, write: targets.write, fromTop: targets.fromTop } : { read: targets.read, write: targets.write },
  };
  addRuleFacts(cmd, sub);
  // A wrapper's (`timeout 5 rg x`) facts are its inner command's; the analysis's own read
  // targets say whether a search reads its stdin, for the command itself only.
  const inner = innermost(cmd);
  const reader = readerFacts(inner.words, inner === cmd ? targets.read : undefined);
  if (reader) sub.reader = reader;
  const tree = treeWriterOf(inner.words);
  if (tree) sub.treeWriter = tree;
  const globs = optionGlobsOf(cmd.words);
  if (globs.length > 0) sub.optionGlobs = globs;
  const program = inner.words[0] === undefined ? "" : commandBaseName(inner.words[0].text);
  const analysed: AnalysedFacts = { canonicalArgv: canonicalArgvOf(inner.words), urlHosts: fetchedHosts(program, inner.words) };
  if (cmd.runs) analysed.runs = cmd.runs;
  const form = canonicalFormOf(inner.words);
  if (form) analysed.canonicalForm = form;
  recordAnalysedFacts(sub, analysed);
  return sub;
}

function innermost(cmd: SimpleCommand): SimpleCommand {
  return cmd.transparentInner ? innermost(cmd.transparentInner) : cmd;
}

/**
 * Glob words before `--` whose matches may begin with `-` or `@` (the pattern starts with a
 * wildcard): bash hands each match to the command as a word, and the command reads `-r`,
 * `--from-file=.env` or `@list` as an option or a response file.
 */
function optionGlobsOf(words: readonly Word[]): string[] {
  const out: string[] = [];
  for (const w of words.slice(1)) {
    if (w.isStatic && w.text === "--") break;
    if (w.glob && /^[*?[]/.test(w.text)) out.push(w.text);
  }
  return out;
}

/**
 * The globs a loop variable stands for where the command reads options: `for f in *; do wc
 * "$f"; done` hands wc each name `*` matches, and a file named `--files0-from=.env` is an option
 * to it, as in `wc *` (optionGlobsOf). Their matches are judged when the call is decided.
 */
function loopOptionGlobs(words: readonly Word[], valuesOf: (text: string) => string[]): string[] {
  const out: string[] = [];
  for (const w of words.slice(1)) {
    if (w.isStatic && w.text === "--") break;
    if (w.isStatic || !w.text.includes("$")) continue;
    for (const v of valuesOf(w.text)) if (v !== w.text && /^[*?[]/.test(v)) out.push(v);
  }
  return out;
}

/**
 * An argv its command's option table cannot read (an unknown or ambiguous option, a missing
 * value): the real tool refuses it, or it is a version the table does not know. Either way what
 * the command does is not known, so the analysis is incomplete (the decision is at least ask).
 * git, tar and xxd are read by their own parsers, which report their own errors.
 */
function refusedArgv(cmd: SimpleCommand): string | undefined {
  const first = cmd.words[0];
  if (!first?.isStatic || cmd.declaration) return undefined;
  const name = first.text;
  if (name === "git") {
    const git = parseGit(cmd.words);
    const error = git.globals.errors[0] ?? (git.complete ? git.parsed.errors[0] : undefined);
    return error === undefined ? undefined : `git${git.sub === undefined ? "" : ` ${git.sub}`}: ${error}, so what it does is not known`;
  }
  // find's options -H/-L/-P are whole words; `-L.` is an unknown predicate, which find refuses.
  const glued = name === "find" ? cmd.words.find((w) => /^-[HLP]./.test(w.text)) : undefined;
  if (glued) return `find: unknown predicate ${glued.text}, so what it does is not known`;
  if (name === "tar" || name === "xxd" || tableFor(name) === undefined || wrapperTable(name) !== undefined) return undefined;
  const error = parseCommand(name, cmd.words).errors[0];
  return error === undefined ? undefined : `${name}: ${error}, so what it does is not known`;
}

/** Rule texts with global options removed, and whether the command is opaque to the analysis. */
function addRuleFacts(cmd: SimpleCommand, sub: ShellSubcommand): void {
  const first = cmd.words[0];
  if (!first || cmd.declaration) return;
  const ruleTexts = ruleTextsOf(cmd.words);
  if (ruleTexts.length > 0) sub.ruleTexts = ruleTexts;
  if (!first.isStatic || (!isModelledCommand(first.text) && !isReadOnlyToolInvocation(cmd.words))) sub.opaque = true;
}
