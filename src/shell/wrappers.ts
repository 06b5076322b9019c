// Commands that run other commands: wrappers (`timeout 5 cmd`, `sudo cmd`, `xargs cmd`,
// `find … -exec cmd ;`) and shells given a string (`bash -c '…'`, `eval …`, `watch '…'`).
// Each inner command becomes its own nested subcommand so that deny rules see it.
import type { SimpleCommand } from "./command.js";
import { wrapperTable, type WrapperTable } from "./commands/index.js";
import { getopt, type ParsedOption } from "./getopt.js";
import { TRANSPARENT_WRAPPERS } from "./shared.js";
import type { Word } from "./words.js";

export interface Unwrapped {
  /** Commands this one runs directly. */
  inner: SimpleCommand[];
  /** True when the (single) inner command is what really runs (timeout, nice, command…). */
  transparent: boolean;
  /** Shell source this command runs (`bash -c`, `eval`, `watch`, `trap`, `env -S`). */
  scripts: string[];
  /** Why the analysis could not follow what this command runs. */
  incomplete: string[];
}


/** Shells whose `-c` string is bash-compatible enough to analyse with the bash grammar. */
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox"]);

interface OptionSpec {
  /** Short options that take an argument (`-n 5`, `-n5`). */
  short?: string;
  /** Long options that take an argument when not written with `=`. */
  long?: string[];
  /** Stop at the first word that does not start with `-` (no option permutation). */
}

export function commandBaseName(text: string): string {
  const slash = text.lastIndexOf("/");
  return slash === -1 ? text : text.slice(slash + 1);
}

/**
 * Index of the first operand after the options starting at `start`, or -1 when an option's
 * value is not static (the analysis cannot know where the command starts).
 */
export function skipOptions(words: Word[], start: number, spec: OptionSpec): number {
  let i = start;
  while (i < words.length) {
    const w = words[i] as Word;
    if (!w.isStatic) return -1;
    const t = w.text;
    if (t === "--") return i + 1;
    if (t.startsWith("--")) {
      const name = t.slice(2).split("=")[0] ?? "";
      i += !t.includes("=") && spec.long?.includes(name) ? 2 : 1;
      continue;
    }
    if (t.length > 1 && t.startsWith("-")) {
      let consumed = 1;
      for (let k = 1; k < t.length; k++) {
        if (spec.short?.includes(t[k] as string)) {
          if (k === t.length - 1) consumed = 2;
          break;
        }
      }
      i += consumed;
      continue;
    }
    return i;
  }
  return i;
}

function innerFrom(cmd: SimpleCommand, start: number, env: SimpleCommand["env"] = []): SimpleCommand[] {
  if (start < 0 || start >= cmd.words.length) return [];
  return [{ words: cmd.words.slice(start), env, redirects: [], nested: true }];
}

function result(partial: Partial<Unwrapped>): Unwrapped {
  return { inner: [], transparent: false, scripts: [], incomplete: [], ...partial };
}

const NOT_STATIC = (what: string): string => `${what}: the command it runs is not known in advance`;

export function unwrapCommand(cmd: SimpleCommand): Unwrapped {
  const first = cmd.words[0];
  if (!first || !first.isStatic || cmd.declaration) return result({});
  const name = commandBaseName(first.text);
  const w = cmd.words;
  // The grammar reads `time { …; }`, `! { …; }` and `coproc { …; }` as a command named `{`
  // (and a later one named `}`): bash runs what follows the brace.
  if (first.raw === "{" || first.raw === "}") {
    const reason = "a brace group the grammar did not recognise";
    if (first.raw === "}" || w.length < 2) return result({ incomplete: [reason] });
    return result({ inner: innerFrom(cmd, 1), incomplete: [reason] });
  }
  if (name === "coproc") {
    const start = w[1]?.raw === "{" || w[1]?.raw === "(" ? 2 : w[2]?.raw === "{" || w[2]?.raw === "(" ? 3 : 1;
    return result({ inner: innerFrom(cmd, start), incomplete: ["coproc is not modelled"] });
  }
  // zsh `=cmd` expands to the path of cmd: what runs is cmd.
  if (/^=[A-Za-z0-9_]/.test(first.text)) {
    return result({ inner: [{ words: [{ ...first, text: first.text.slice(1) }, ...w.slice(1)], env: [], redirects: [], nested: true }] });
  }
  const at = (start: number): Unwrapped => {
    if (start < 0) return result({ incomplete: [NOT_STATIC(name)] });
    return result({ inner: innerFrom(cmd, start), transparent: TRANSPARENT_WRAPPERS.has(name) });
  };

  const table = wrapperTable(name);
  if (table && name !== "env") return unwrapByTable(cmd, name, table);
  switch (name) {
    case "command": {
      const i = skipOptions(w, 1, {});
      const flags = w.slice(1, i < 0 ? w.length : i).map((x) => x.text);
      if (flags.some((f) => /^-[a-zA-Z]*[vV]/.test(f))) return result({});
      return at(i);
    }
    case "builtin":
    case "noglob":
      return at(skipOptions(w, 1, {}));
    case "exec":
      return at(skipOptions(w, 1, { short: "a" }));
    case "sudo":
    case "doas":
      return at(skipOptions(w, 1, { short: name === "doas" ? "uC" : "ugCDhprtUTc", long: ["user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user", "command-timeout", "login-class"] }));
    case "env":
      return unwrapEnv(cmd);
    case "find":
      return unwrapFind(cmd);
    case "eval":
      return shellString(w.slice(1), "eval");
    case "trap": {
      const args = w.slice(1).filter((x) => x.text !== "--");
      if (args.length < 2 || args[0]?.text.startsWith("-")) return result({});
      return shellString(args.slice(0, 1), "trap");
    }
    default:
      if (SHELLS.has(name)) return unwrapShell(cmd, name);
      return result({});
  }
}

/** What a wrapper with an option table runs: a shell string, or the command at its first (or later) operand. */
function unwrapByTable(cmd: SimpleCommand, name: string, table: WrapperTable): Unwrapped {
  const w = cmd.words;
  const parsed = getopt(w, table);
  const has = (names: readonly string[] | undefined): ParsedOption | undefined =>
    names ? parsed.options.find((o) => names.includes(o.name.replace(/^--?/, ""))) : undefined;
  const start = parsed.operands[table.skipOperands ?? 0]?.index;
  const end = start ?? w.length;
  if (w.slice(1, end).some((x) => !x.isStatic)) return result({ incomplete: [NOT_STATIC(name)] });
  const incomplete: string[] = [];
  if (parsed.errors[0] !== undefined) incomplete.push(`${name}: ${parsed.errors[0]}, so the command it runs is not known`);
  const root = has(table.changesRoot ?? []) ?? (table.changesRoot?.includes("*") ? parsed.operands[0] && { name } : undefined);
  if (root) incomplete.push(`${name} runs its command in another root or directory: the paths it names are not ours`);
  const shell = has(table.shellString);
  if (shell) {
    const s = shellString(shell.value ? [shell.value] : [], `${name} ${shell.name}`);
    return { ...s, incomplete: [...incomplete, ...s.incomplete] };
  }
  const afterFile = parsed.operands[1]?.word.text;
  if (name === "flock" && (afterFile === "-c" || afterFile === "--command")) {
    // `flock FILE -c 'string'`: after the file, -c (exactly) gives a shell string.
    return { ...shellString(parsed.operands.slice(2, 3).map((o) => o.word), "flock -c"), incomplete };
  }
  if (name === "watch" && !has(["x", "exec"])) {
    // watch runs its operands joined as a `sh -c` string.
    return { ...shellString(parsed.operands.map((o) => o.word), "watch"), incomplete };
  }
  if (has(table.noCommand)) return result({ incomplete });
  if (start === undefined) return result({ incomplete });
  return result({ inner: innerFrom(cmd, start), transparent: TRANSPARENT_WRAPPERS.has(name), incomplete });
}

/** `bash -c 'string' [arg0 args…]`: the string is parsed as a script of its own. */
function unwrapShell(cmd: SimpleCommand, name: string): Unwrapped {
  const w = cmd.words;
  let start = 1;
  if (name === "busybox") {
    if (!w[1] || !SHELLS.has(w[1].text)) return result({});
    start = 2;
  }
  let hasC = false;
  let i = start;
  for (; i < w.length; i++) {
    const word = w[i] as Word;
    if (!word.isStatic) return result({ incomplete: [NOT_STATIC(name)] });
    const t = word.text;
    if (t === "--" || t === "-") {
      i++;
      break;
    }
    if (t.startsWith("--")) {
      if (t === "--rcfile" || t === "--init-file") i++;
      continue;
    }
    if (/^[-+]/.test(t) && t.length > 1) {
      if (t.slice(1).includes("c")) hasC = true;
      // -o option / -O shopt take an argument.
      if (/[oO]/.test(t.slice(1))) i++;
      continue;
    }
    break;
  }
  if (!hasC) return result({});
  return shellString(w.slice(i, i + 1), `${name} -c`);
}

function shellString(words: Word[], what: string): Unwrapped {
  if (words.length === 0) return result({});
  if (words.some((x) => !x.isStatic)) return result({ incomplete: [NOT_STATIC(what)] });
  return result({ scripts: [words.map((x) => x.text).join(" ")] });
}

/** `env [-i] [-u NAME] [NAME=VALUE…] [cmd args…]`; `env -S 'string'` splits the string. */
function unwrapEnv(cmd: SimpleCommand): Unwrapped {
  const w = cmd.words;
  const parsed = getopt(w, wrapperTable("env") as WrapperTable);
  const operands = parsed.operands.slice(parsed.operands[0]?.word.text === "-" ? 1 : 0);
  if (w.slice(1, operands[0]?.index ?? w.length).some((x) => !x.isStatic)) return result({ incomplete: [NOT_STATIC("env")] });
  const incomplete: string[] = [];
  if (parsed.errors[0] !== undefined) incomplete.push(`env: ${parsed.errors[0]}, so the command it runs is not known`);
  if (parsed.options.some((o) => o.name === "-C" || o.name === "--chdir")) incomplete.push("env --chdir runs its command in another directory: the paths it names are not ours");
  const split = parsed.options.find((o) => o.name === "-S" || o.name === "--split-string");
  if (split) {
    const s = shellString(split.value ? [split.value, ...operands.map((o) => o.word)] : [], "env -S");
    return { ...s, incomplete: [...incomplete, ...s.incomplete] };
  }
  const env: SimpleCommand["env"] = [];
  let k = 0;
  for (; k < operands.length; k++) {
    const word = (operands[k] as { word: Word }).word;
    if (!word.isStatic) return result({ incomplete: [...incomplete, NOT_STATIC("env")] });
    const eq = word.text.indexOf("=");
    if (eq <= 0) break;
    env.push({ name: word.text.slice(0, eq), value: { ...word, text: word.text.slice(eq + 1) } });
  }
  const start = operands[k]?.index;
  return result({ inner: start === undefined ? [] : innerFrom(cmd, start, env), incomplete });
}

/** `find … -exec cmd args ;` / `+`, also `-execdir`, `-ok`, `-okdir`. */
function unwrapFind(cmd: SimpleCommand): Unwrapped {
  const w = cmd.words;
  const inner: SimpleCommand[] = [];
  for (let i = 1; i < w.length; i++) {
    const t = (w[i] as Word).text;
    if (t !== "-exec" && t !== "-execdir" && t !== "-ok" && t !== "-okdir") continue;
    let end = i + 1;
    while (end < w.length && (w[end] as Word).text !== ";" && (w[end] as Word).text !== "+") end++;
    if (end > i + 1) inner.push({ words: w.slice(i + 1, end), env: [], redirects: [], nested: true });
    i = end;
  }
  return result({ inner });
}
