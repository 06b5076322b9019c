// Shell state that changes how later text is evaluated (issue 8, class 4). Bash evaluates
// arithmetic in array subscripts, and an arithmetic expression expands `a[$(cmd)]` inside the
// *value* of a variable it names: `x='a[$(id)]'; echo $((x))`, `read 'a[$(id)]'`,
// `printf -v 'a[$(id)]'`, `wait -p`, `declare`, `unset`, `[[ -v ]]`, `${!x}`… all run `id`.
// `set -k` turns `NAME=value` words after a command name into its environment; `set -a` and
// already-exported names turn a bare assignment into the environment of every later command;
// `shopt -s expand_aliases` lets a later word be an alias; `hash -p` / `BASH_CMDS` change what a
// name runs; `enable -f` loads a shared object; `fc` re-runs history.
//
// The walker records facts here (flow-insensitively: a loop may run a later assignment before an
// earlier use); `judgeShellState` turns them into reasons once the whole command is read. What
// cannot be judged is `incomplete` (a human approves it, whatever the rules or mode say).
import type { SimpleCommand, WalkState } from "./command.js";
import type { Word } from "./words.js";
import { substitutedText } from "./shared.js";

interface Assigned {
  /** The value is an integer (a literal, an arithmetic result). */
  int: boolean;
  /** The value as text, when it is static (for `declare -i` names, whose values are arithmetic). */
  text?: string;
}

export interface ShellState {
  /** Arithmetic texts the grammar parsed (their substitutions are walked as commands). */
  arithmetic: string[];
  /** Arithmetic texts made of word values: any `$` or backquote in them runs at evaluation. */
  arithmeticValues: string[];
  /** Names `${!name}` expands indirectly. */
  indirect: string[];
  /** Every assignment the walk saw, by variable name. */
  assigned: Map<string, Assigned[]>;
  /** Names given the integer attribute (`declare -i`): what they are assigned is arithmetic. */
  integers: Set<string>;
  /** Names bare assignments set in the shell (`NAME=v; cmd`), which an export makes environment. */
  bare: Map<string, Word>;
  /** Names `export`/`declare -x` export. */
  exported: Set<string>;
  /** `set -k` / `set -o keyword` was seen. */
  keyword: boolean;
  /** `set -a` / `set -o allexport` was seen. */
  allexport: boolean;
  /** shopt options set or unset (`shopt -s dotglob`). */
  shopt: Set<string>;
  /** `for NAME in WORDS`: the words each loop variable takes (all its loops'). */
  loops: Map<string, Word[]>;
  /** Reasons found while walking (subscripts in names, options that change parsing…). */
  reasons: Set<string>;
}

const states = new WeakMap<WalkState, ShellState>();

export function shellStateOf(state: WalkState): ShellState {
  let s = states.get(state);
  if (!s) {
    s = { arithmetic: [], arithmeticValues: [], indirect: [], assigned: new Map(), integers: new Set(), bare: new Map(), exported: new Set(), keyword: false, allexport: false, shopt: new Set(), loops: new Map(), reasons: new Set() };
    states.set(state, s);
  }
  return s;
}

export function recordAssignment(s: ShellState, name: string, value: Assigned): void {
  const list = s.assigned.get(name);
  if (list) list.push(value);
  else s.assigned.set(name, [value]);
}

const INTEGER = /^\s*[-+]?\d+\s*$/;

/** What an assignment of `value` (a word, or none) stores: an integer or possibly anything. */
export function assignedValue(value: Word | undefined, fromArithmetic = false): Assigned {
  if (fromArithmetic) return { int: true };
  if (!value) return { int: true, text: "" };
  if (value.isStatic) return { int: INTEGER.test(value.text), text: value.text };
  return { int: false };
}

/** Special parameters and shell variables whose values are always integers. */
const INTEGER_SPECIALS = new Set(["#", "?", "$", "!", "-", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS", "SHLVL", "OPTIND", "COLUMNS", "LINES", "HISTCMD"]);

/**
 * Variables whose value changes what the shell itself runs or how it reads text: assigning one
 * (bare, in an environment prefix, with declare/read/printf -v…) cannot be judged.
 */
const SHELL_BEHAVIOUR = /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PS[0-4]|BASH_ALIASES|BASH_CMDS|BASH_LOADABLES_PATH|BASH_XTRACEFD|EXECIGNORE|GLOBIGNORE|HISTFILE|HISTCONTROL|INPUTRC|FUNCNEST|BASH_COMPAT|POSIXLY_CORRECT)$/;

/** Whether assigning `name` changes how the shell evaluates later text. */
export function changesShellBehaviour(name: string): boolean {
  return SHELL_BEHAVIOUR.test(name.replace(/\[.*$/s, ""));
}

/** A variable name as bash's builtins take it: `name`, `name[sub]`. */
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?$/s;

/**
 * A name operand of a builtin (`read NAME`, `printf -v NAME`, `unset NAME`, `[[ -v NAME ]]`):
 * bash expands and evaluates its subscript. Returns the base name, or undefined after adding a
 * reason when the name cannot be judged.
 */
export function checkNameOperand(s: ShellState, word: Word, builtin: string): string | undefined {
  // `a[0]` is also a glob, which can only match a file named like a plain variable (`a0`).
  const plainGlob = word.glob && !/[$`]/.test(word.raw) && /^[A-Za-z_][A-Za-z0-9_]*\[[A-Za-z0-9_]*\]$/.test(word.text);
  if (!word.isStatic && !plainGlob) {
    s.reasons.add(`${builtin} takes the variable name ${word.raw}, which is not known before the command runs (a subscript in it may run commands)`);
    return undefined;
  }
  const m = NAME.exec(word.text);
  if (!m) {
    s.reasons.add(`${builtin} is given ${JSON.stringify(word.text)} as a variable name, which bash may evaluate`);
    return undefined;
  }
  const base = m[1] as string;
  if (m[2] !== undefined && m[2] !== "@" && m[2] !== "*") s.arithmeticValues.push(m[2]);
  if (changesShellBehaviour(base)) s.reasons.add(`${builtin} assigns ${base}, which changes how the shell runs later commands`);
  return base;
}

/** Identifiers an arithmetic text refers to, `$name`/`${name}` included (over-inclusive). */
function referencedNames(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])|(?<![\w#$])([A-Za-z_][A-Za-z0-9_]*)/g)) out.push((m[1] ?? m[2]) as string);
  return out;
}

/** Names an arithmetic text assigns (`x = 1`, `x += 1`, `x++`, `--x`). */
function assignedInArithmetic(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)/g)) out.push(m[1] as string);
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)/g)) out.push((m[1] ?? m[2]) as string);
  return out;
}

/** Why a variable's value may not be a plain integer, or undefined. */
function unsafeValue(s: ShellState, name: string): string | undefined {
  if (INTEGER_SPECIALS.has(name)) return undefined;
  if (/^[0-9@*]$/.test(name)) return `the positional parameter $${name}`;
  const list = s.assigned.get(name);
  if (!list) return undefined; // the environment's: the user's, not the command's
  return list.every((a) => a.int) ? undefined : `${name}, which the command assigns a value that is not a plain number`;
}

/**
 * The reasons shell state gives, once every command is collected. `incomplete` reasons make the
 * command need a human; `notReadOnly` ones only make it not read-only.
 */
export function judgeShellState(state: WalkState): void {
  const s = shellStateOf(state);
  const commands = state.commands;
  for (const cmd of commands) builtinFacts(s, cmd);
  // Names declared integer: what they are assigned is evaluated as arithmetic.
  for (const name of s.integers) {
    for (const a of s.assigned.get(name) ?? []) {
      if (a.int) continue;
      if (a.text === undefined) s.reasons.add(`${name} has the integer attribute and is assigned a value not known in advance, which bash evaluates as arithmetic`);
      else s.arithmeticValues.push(a.text);
    }
  }
  for (const text of s.arithmetic) judgeArithmetic(s, state, text, false);
  for (const text of s.arithmeticValues) judgeArithmetic(s, state, text, true);
  for (const name of s.indirect) {
    const why = unsafeValue(s, name);
    if (why) s.reasons.add(`\${!${name}} expands the variable named by ${why}: a subscript in it may run commands`);
  }
  exportedAssignments(s, commands);
  for (const r of s.reasons) state.incomplete.add(r);
}

function judgeArithmetic(s: ShellState, state: WalkState, text: string, fromValue: boolean): void {
  if (fromValue && /[$`]/.test(text)) {
    s.reasons.add(`bash evaluates ${JSON.stringify(text)} as arithmetic, and expands what it holds: it may run commands`);
    return;
  }
  if (!fromValue && /['\\]/.test(text)) s.reasons.add(`arithmetic with quotes or backslashes is not analysed: ${text}`);
  // The output of a substitution is evaluated too: `$(( $(cat f) ))` runs what f holds in a[…].
  if (!fromValue && /\$\(|`/.test(text.replace(/\$\(\(/g, ""))) s.reasons.add(`arithmetic evaluates the output of a command substitution: ${text}`);
  for (const name of referencedNames(text)) {
    const why = unsafeValue(s, name);
    if (why) s.reasons.add(`arithmetic evaluates ${why}: a value like a[$(cmd)] runs cmd`);
  }
  for (const name of assignedInArithmetic(text)) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) state.notReadOnly.add(`arithmetic assigns the shell variable ${name}`);
    if (changesShellBehaviour(name)) s.reasons.add(`arithmetic assigns ${name}, which changes how the shell runs later commands`);
  }
}

/** Options of name-taking builtins that take a value (attached or the next word). */
const VALUE_OPTIONS: Record<string, string> = { read: "adinNptu", mapfile: "dnOsuCc", readarray: "dnOsuCc", printf: "v", wait: "p" };

/** The facts one simple command gives: names it assigns, options that change evaluation. */
function builtinFacts(s: ShellState, cmd: SimpleCommand): void {
  const first = cmd.words[0];
  for (const e of cmd.env) {
    recordAssignment(s, e.name, assignedValue(e.value));
    if (changesShellBehaviour(e.name)) s.reasons.add(`sets ${e.name} for the command, which changes how a shell runs it`);
  }
  if (!first?.isStatic) return;
  const name = first.text;
  const args = cmd.words.slice(1);
  // A quoted name (`d''eclare`) is the same builtin, read by the grammar as a plain command.
  if (cmd.declaration || /^(declare|typeset|local|export|readonly|unset)$/.test(name)) return declarationFacts(s, name, args);
  switch (name) {
    case "read":
    case "mapfile":
    case "readarray":
    case "printf":
    case "wait":
    case "getopts":
      return nameTakingFacts(s, name, args);
    case "let":
      for (const a of args) {
        if (a.isStatic) s.arithmeticValues.push(a.text);
        else s.reasons.add(`let evaluates ${a.raw}, which is not known in advance`);
        if (a.isStatic) for (const n of assignedInArithmetic(a.text)) recordAssignment(s, n, { int: true });
      }
      return;
    case "test":
    case "[":
      args.forEach((a, i) => {
        if ((a.text === "-v" || a.text === "-R") && args[i + 1]) checkNameOperand(s, args[i + 1] as Word, `${name} ${a.text}`);
      });
      return;
    case "set":
      return setFacts(s, args);
    case "shopt":
      return shoptFacts(s, args);
    case "enable":
      if (args.some((a) => !a.isStatic || /^-[a-zA-Z]*f/.test(a.text))) s.reasons.add("enable -f loads a shared object into the shell");
      return;
    case "hash":
      if (args.some((a) => !a.isStatic || /^-[a-zA-Z]*p/.test(a.text))) s.reasons.add("hash -p changes which program a command name runs");
      return;
    case "fc":
      if (!args.every((a) => a.isStatic && /^-[lnr]+$/.test(a.text))) s.reasons.add("fc runs commands from the shell history");
      return;
    case "history":
      if (args.some((a) => !a.isStatic || /^-[a-zA-Z]*[sr]/.test(a.text))) s.reasons.add("history -s/-r adds commands to the history, which fc or history expansion may run");
      return;
    case "compgen":
    case "complete":
      if (args.some((a) => !a.isStatic || /^-[a-zA-Z]*[CF]/.test(a.text))) s.reasons.add(`${name} -C/-F runs a command or function`);
      return;
    case "bind":
      if (args.some((a) => !a.isStatic || /^-[a-zA-Z]*x/.test(a.text))) s.reasons.add("bind -x binds a shell command");
      return;
  }
}

function nameTakingFacts(s: ShellState, name: string, args: Word[]): void {
  const valued = VALUE_OPTIONS[name] ?? "";
  const names: Word[] = [];
  let operands: Word[] = [];
  let i = 0;
  if (name === "getopts") {
    const nameWord = args[1];
    if (nameWord) names.push(nameWord);
  } else {
    for (; i < args.length; i++) {
      const a = args[i] as Word;
      if (!a.isStatic) {
        s.reasons.add(`${name} argument ${a.raw} is not known in advance (it may be an option or a variable name)`);
        return;
      }
      if (a.text === "--") {
        i++;
        break;
      }
      if (!a.text.startsWith("-") || a.text === "-") break;
      for (let k = 1; k < a.text.length; k++) {
        const c = a.text[k] as string;
        if (!valued.includes(c)) continue;
        const rest = a.text.slice(k + 1);
        const value = rest !== "" ? { ...a, text: rest, raw: rest } : args[++i];
        if (c === "C" && name !== "read") s.reasons.add(`${name} -C runs a callback`);
        if ((name === "read" && c === "a") || (name === "printf" && c === "v") || (name === "wait" && c === "p")) {
          if (value) names.push(value);
        }
        break;
      }
    }
    operands = args.slice(i);
    if (name === "read") names.push(...operands);
    else if ((name === "mapfile" || name === "readarray") && operands.length > 0) names.push(operands[operands.length - 1] as Word);
  }
  for (const w of names) {
    const base = checkNameOperand(s, w, name);
    if (base) recordAssignment(s, base, { int: false });
  }
}

function declarationFacts(s: ShellState, builtin: string, args: Word[]): void {
  let flags = builtin === "export" ? "x" : "";
  for (const a of args) {
    if (!a.isStatic) {
      s.reasons.add(`${builtin} argument ${a.raw} is not known in advance (it may name a variable with a subscript)`);
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(a.text)) {
      if (a.text.startsWith("-")) flags += a.text.slice(1);
      continue;
    }
    if (builtin === "unset") {
      if (!flags.includes("f")) checkNameOperand(s, a, builtin);
      continue;
    }
    const eq = /^([^=+]*)(\+?=)([\s\S]*)$/.exec(a.text);
    const nameText = eq ? (eq[1] as string) : a.text;
    const base = checkNameOperand(s, { ...a, text: nameText, raw: nameText }, builtin);
    if (!base) continue;
    if (flags.includes("i")) s.integers.add(base);
    if (flags.includes("x")) {
      s.exported.add(base);
      if (eq) s.bare.set(base, { ...a, text: eq[3] as string });
    }
    if (flags.includes("n")) {
      // A nameref: every later use of the name evaluates the name it holds.
      if (eq) checkNameOperand(s, { ...a, text: eq[3] as string, raw: eq[3] as string }, `${builtin} -n`);
      else s.reasons.add(`${builtin} -n makes ${base} a reference whose target is not known`);
    }
    if (eq) recordAssignment(s, base, assignedValue({ ...a, text: eq[3] as string }));
  }
}

/** Short options of `set` that change nothing the analysis relies on. */
const SAFE_SET_LETTERS = /^[euxvCfnbhmBTEka]*$/;
const SAFE_SET_OPTIONS = new Set(["errexit", "nounset", "xtrace", "verbose", "noclobber", "noglob", "noexec", "notify", "hashall", "monitor", "braceexpand", "functrace", "errtrace", "pipefail", "ignoreeof", "nolog", "emacs", "vi", "interactive-comments", "keyword", "allexport"]);

/** `set -k` / `set -a` are handled (their assignments become environment); others the analysis does not model. */
function setFacts(s: ShellState, args: Word[]): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Word;
    if (!a.isStatic) {
      s.reasons.add(`set ${a.raw} may change shell options the analysis relies on`);
      return;
    }
    if (a.text === "--" || a.text === "-") return; // positional parameters follow
    if (!/^[-+]/.test(a.text)) return;
    const letters = a.text.slice(1).replace("o", "");
    if (a.text.slice(1).includes("o")) {
      // `-o NAME`, also at the end of a cluster (`set -euo pipefail`).
      const opt = args[++i];
      if (opt === undefined) return;
      if (!opt.isStatic || !SAFE_SET_OPTIONS.has(opt.text)) s.reasons.add(`set -o ${opt.raw} changes how the shell reads or runs later text`);
      if (a.text.startsWith("-") && opt.text === "keyword") s.keyword = true;
      if (a.text.startsWith("-") && opt.text === "allexport") s.allexport = true;
    }
    if (!SAFE_SET_LETTERS.test(letters)) s.reasons.add(`set ${a.text} changes how the shell reads or runs later text`);
    if (a.text.startsWith("-") && letters.includes("k")) s.keyword = true;
    if (a.text.startsWith("-") && letters.includes("a")) s.allexport = true;
  }
}

/** shopt options that change nothing the analysis relies on (glob options are read by the glob expansion). */
const SAFE_SHOPT = new Set(["nullglob", "failglob", "dotglob", "globstar", "nocaseglob", "nocasematch", "extglob", "lastpipe", "pipefail", "checkwinsize", "histappend", "cmdhist", "lithist", "inherit_errexit", "globasciiranges", "xpg_echo", "autocd", "cdspell", "dirspell", "checkjobs", "huponexit", "progcomp", "promptvars", "sourcepath", "interactive_comments", "nullglob", "failglob", "extquote", "force_fignore", "hostcomplete", "no_empty_cmd_completion", "gnu_errfmt", "shift_verbose", "direxpand", "globskipdots", "varredir_close", "patsub_replacement", "noexpand_translation", "compat31", "login_shell", "restricted_shell", "checkhash", "mailwarn", "execfail"]);

function shoptFacts(s: ShellState, args: Word[]): void {
  const setting = args.some((a) => /^-[a-zA-Z]*[su]/.test(a.text));
  for (const a of args) {
    if (!a.isStatic) {
      s.reasons.add(`shopt ${a.raw} may change shell options the analysis relies on`);
      return;
    }
    if (a.text.startsWith("-")) continue;
    if (a.text === "expand_aliases" && setting) s.reasons.add("shopt -s expand_aliases: later words may be aliases for other commands");
    else if (setting && !SAFE_SHOPT.has(a.text)) s.reasons.add(`shopt ${a.text} changes how the shell reads or runs later text`);
    if (setting) s.shopt.add(a.text);
  }
}

/**
 * `set -k`: a later `NAME=value` word after the command name is environment; `set -a`: every bare
 * assignment is exported; a name bash may already have exported (any name with a capital, the
 * user's environment holds those) passes its new value to every later command. Each such value
 * becomes part of every command's environment (the checks on environments then judge it).
 */
function exportedAssignments(s: ShellState, commands: readonly SimpleCommand[]): void {
  const carried: Array<{ name: string; value: Word }> = [];
  for (const [name, value] of s.bare) {
    // The backup-suffix settings are followed by the target rules themselves (analyze.ts).
    if (name === "SIMPLE_BACKUP_SUFFIX" || name === "VERSION_CONTROL") continue;
    if (s.allexport || /[A-Z]/.test(name) || s.exported.has(name)) carried.push({ name, value });
  }
  // Nothing to carry and no `set -k`: no command's environment changes.
  if (carried.length === 0 && !s.keyword) return;
  for (const cmd of commands) {
    if (cmd.declaration) continue;
    const have = new Set(cmd.env.map((e) => e.name));
    for (const c of carried) if (!have.has(c.name)) cmd.env.push(c);
    if (!s.keyword) continue;
    for (const w of cmd.words.slice(1)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(w.text);
      if (!m || have.has(m[1] as string)) continue;
      const value = { ...w, text: m[2] as string };
      cmd.env.push({ name: m[1] as string, value });
      if (changesShellBehaviour(m[1] as string)) s.reasons.add(`after set -k, ${m[1]}= is the environment of ${cmd.words[0]?.text ?? "the command"}`);
    }
  }
}

/** How many paths one target may become by substituting loop variables. */
const MAX_LOOP_SUBSTITUTIONS = 64;

/**
 * A target that names loop variables (`for f in src/*.ts; do wc -l "$f"; done` reads `$f`) as
 * the words the loop gives them, when the variables take no other value in the command. Else
 * the target as it is (not known in advance).
 */
export function substituteLoopVariables(state: WalkState, path: string): string[] {
  if (!path.includes("$")) return [path];
  const s = shellStateOf(state);
  let out = [path];
  const refs = [...path.matchAll(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g)];
  for (const m of refs) {
    const name = (m[1] ?? m[2]) as string;
    const values = s.loops.get(name);
    if (!values || (s.assigned.get(name)?.length ?? 0) !== values.length) return [path];
    // `next` below would have `out.length × values.length` entries: past the bound, the target
    // stays as written (checked first, so a loop over many words costs nothing per use).
    if (out.length * values.length > MAX_LOOP_SUBSTITUTIONS) return [path];
    if (values.some((v) => !loopValue(v))) return [path];
    const next: string[] = [];
    for (const p of out) for (const v of values) next.push(p.split(m[0]).join(loopValue(v) as string));
    if (next.length > MAX_LOOP_SUBSTITUTIONS) return [path];
    out = [...new Set(next)];
  }
  return out.some((p) => /\$[A-Za-z_{]/.test(p)) ? [path] : out;
}

/**
 * `read`/`mapfile`/`readarray` into plain lower-case variables only set shell variables, as a
 * bare `name=value` does: read-only. Any other name (upper case, a subscript, not static), an
 * option not known, or a mapfile callback is not.
 */
export function readBuiltinObjection(words: readonly Word[]): string | undefined {
  const name = words[0]?.text ?? "";
  const valued = VALUE_OPTIONS[name] ?? "";
  const known = name === "read" ? /^[ersadinNptu]+$/ : /^[tdnOsuc]+$/;
  const names: string[] = [];
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i] as Word;
    if (!w.isStatic) return `${name} argument ${w.raw} is not static`;
    if (w.text === "--") {
      i++;
      break;
    }
    if (!w.text.startsWith("-") || w.text === "-") break;
    const letters = w.text.slice(1);
    for (let k = 0; k < letters.length; k++) {
      const c = letters[k] as string;
      if (!known.test(c)) return `${name} -${c} is not known to be read-only`;
      if (!valued.includes(c)) continue;
      const value = k + 1 < letters.length ? letters.slice(k + 1) : words[++i]?.text;
      if (c === "a" && value !== undefined) names.push(value);
      break;
    }
  }
  for (const w of words.slice(i)) names.push(w.text);
  if (name !== "read" && names.length === 0) names.push("MAPFILE");
  const bad = names.find((n) => !/^[a-z_][a-z0-9_]*$/.test(n));
  return bad === undefined ? undefined : `${name} assigns ${bad}, which is not a plain shell variable`;
}

/**
 * What a loop word stands for in a target: its text (a literal, a glob), or for an unquoted
 * `$(…)` the substitution itself, which the permission check may judge as the names its
 * producer prints (producers.ts). Undefined when neither.
 */
function loopValue(v: Word): string | undefined {
  if ((v.isStatic || v.glob) && !/\s/.test(v.text)) return v.text;
  return !v.raw.startsWith('"') && substitutedText(v.raw) !== undefined ? v.raw : undefined;
}

/** The loop variables `substituteLoopVariables` may replace, with their words. */
export function loopVariables(state: WalkState): Record<string, string[]> | undefined {
  const s = shellStateOf(state);
  let out: Record<string, string[]> | undefined;
  for (const [name, values] of s.loops) {
    if ((s.assigned.get(name)?.length ?? 0) !== values.length) continue;
    if (values.some((v) => !loopValue(v))) continue;
    (out ??= {})[name] = values.map((v) => loopValue(v) as string);
  }
  return out;
}
