// Semantics-preserving mutations of a bash command (issue 8 fuzzing). Each operator changes how
// the command is written, never what bash runs, by construction: it touches only unquoted text
// it can read with certainty and declines (returns undefined) otherwise. The `option` operators
// (long-option abbreviation, attached vs separate values) preserve semantics only for the tools
// whose options they are: their findings are listed apart (see fuzz-corpus.ts).

/** A tiny deterministic PRNG (mulberry32), so that a seed replays a run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Token {
  start: number;
  end: number;
  text: string;
  /** Every character of it is outside quotes and not escaped. */
  plain: boolean;
}

/** Unquoted top-level tokens split at unquoted blanks; undefined for text this does not read. */
function tokens(command: string): Token[] | undefined {
  if (/<<|\(\(|\[\[|#|`|\bcase\b|\r/.test(command)) return undefined;
  const out: Token[] = [];
  let i = 0;
  while (i < command.length) {
    while (i < command.length && (command[i] === " " || command[i] === "\t")) i++;
    if (i >= command.length) break;
    const start = i;
    let plain = true;
    while (i < command.length && command[i] !== " " && command[i] !== "\t") {
      const c = command[i] as string;
      if (c === "\\") {
        plain = false;
        i += 2;
      } else if (c === "'") {
        plain = false;
        const close = command.indexOf("'", i + 1);
        if (close < 0) return undefined;
        i = close + 1;
      } else if (c === '"') {
        plain = false;
        let k = i + 1;
        while (k < command.length && command[k] !== '"') k += command[k] === "\\" ? 2 : 1;
        if (k >= command.length) return undefined;
        i = k + 1;
      } else if (c === "$" && command[i + 1] === "(") {
        // A substitution may hold blanks: take it whole, balanced.
        plain = false;
        let depth = 0;
        let k = i + 1;
        for (; k < command.length; k++) {
          if (command[k] === "(") depth++;
          else if (command[k] === ")" && --depth === 0) break;
          else if (command[k] === "'" || command[k] === '"') return undefined;
        }
        if (k >= command.length) return undefined;
        i = k + 1;
      } else if (c === "\n") {
        if (i === start) i++;
        break;
      } else i++;
    }
    out.push({ start, end: i, text: command.slice(start, i), plain });
  }
  return out;
}

const RESERVED = new Set(["if", "then", "else", "elif", "fi", "for", "in", "do", "done", "while", "until", "select", "function", "time", "!", "{", "}", "coproc", "case", "esac"]);
const PLAIN_WORD = /^[A-Za-z0-9_./,:+%@-]+$/;
const SEPARATORS = new Set(["&&", "||", ";", "|", "|&", "&", "\n"]);
/** Bash builtins: an external wrapper (env, nice, timeout) would run another program instead. */
const BUILTINS = new Set(("alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait . : [").split(" "));

export type Operator = (command: string, random: () => number) => string | undefined;

const pick = <T>(items: readonly T[], random: () => number): T | undefined => items[Math.floor(random() * items.length)];

/** Positions of command words: the first token and each token after a separator. */
function commandWordIndexes(toks: Token[]): number[] {
  const out: number[] = [];
  let expect = true;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k] as Token;
    if (SEPARATORS.has(t.text) || /[;&|]$/.test(t.text)) {
      expect = true;
      continue;
    }
    if (expect && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(t.text)) {
      out.push(k);
      expect = RESERVED.has(t.text);
    } else if (expect && /=/.test(t.text)) continue;
    else expect = false;
  }
  return out;
}

/** Quote one plain word another way: 'w', "w", \w, $'w', w'' (all the same word to bash). */
export const requote: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks) return undefined;
  const candidates = toks.filter((t, k) => t.plain && PLAIN_WORD.test(t.text) && !RESERVED.has(t.text) && !/^(for|select)$/.test(toks[k - 1]?.text ?? ""));
  const t = pick(candidates, random);
  if (!t) return undefined;
  const forms = [`'${t.text}'`, `"${t.text}"`, `\\${t.text}`, `$'${t.text}'`, `${t.text.slice(0, 1)}''${t.text.slice(1)}`, `${t.text.slice(0, 1)}""${t.text.slice(1)}`];
  return command.slice(0, t.start) + (pick(forms, random) as string) + command.slice(t.end);
};

/** More blanks between two tokens (spaces or a tab). */
export const widen: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks || toks.length < 2) return undefined;
  const k = 1 + Math.floor(random() * (toks.length - 1));
  const t = toks[k] as Token;
  const prev = toks[k - 1] as Token;
  if (prev.text === "\n" || t.text === "\n" || prev.end === t.start) return undefined;
  return command.slice(0, t.start) + (random() < 0.5 ? "\t " : "   ") + command.slice(t.start);
};

/** A line continuation between two tokens. */
export const continueLine: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks || toks.length < 2) return undefined;
  const k = 1 + Math.floor(random() * (toks.length - 1));
  const t = toks[k] as Token;
  if ((toks[k - 1] as Token).end === t.start || t.text === "\n") return undefined;
  return `${command.slice(0, t.start)}\\\n${command.slice(t.start)}`;
};

/** A newline after `&&`, `||` or `|` (bash reads on), or instead of `;`. */
export const newlines: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks) return undefined;
  const seps = toks.filter((t) => t.plain && /^(&&|\|\||\||;)$/.test(t.text));
  const t = pick(seps, random);
  if (!t) return undefined;
  const replacement = t.text === ";" ? "\n" : `${t.text}\n`;
  return command.slice(0, t.start) + replacement + command.slice(t.end).replace(/^[ \t]+/, "");
};

/** `cd . &&` before the command (changes only OLDPWD). */
export const cdPrefix: Operator = (command) => (/cd -|OLDPWD|popd|pushd|dirs/.test(command) ? undefined : `cd . && ${command}`);

/** A wrapper before a command word: `command`, and for programs `env`, `nice`, `timeout 5`. */
export const wrap: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks) return undefined;
  const words = commandWordIndexes(toks).filter((k) => {
    const t = toks[k] as Token;
    return t.plain && PLAIN_WORD.test(t.text) && !RESERVED.has(t.text) && !t.text.includes("=");
  });
  const k = pick(words, random);
  if (k === undefined) return undefined;
  const t = toks[k] as Token;
  const wrappers = BUILTINS.has(t.text) ? (/^(exec|eval|source|\.|cd|read|export|declare|local|set|shopt|alias|unset|trap|wait|let|typeset|readonly|pushd|popd|hash|enable|builtin|command|exit|return|break|continue|shift)$/.test(t.text) ? [] : ["command "]) : ["command ", "env ", "nice ", "timeout 5 ", "env -- "];
  const w = pick(wrappers, random);
  if (!w) return undefined;
  return command.slice(0, t.start) + w + command.slice(t.start);
};

/** `--long-option` as an unambiguous-looking prefix (getopt_long accepts any unique prefix). */
export const abbreviate: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks) return undefined;
  const longs = toks.filter((t) => t.plain && /^--[a-z][a-z-]{4,}(=|$)/.test(t.text));
  const t = pick(longs, random);
  if (!t) return undefined;
  const [name, ...value] = t.text.split("=");
  const keep = 4 + Math.floor(random() * Math.max(1, (name as string).length - 5));
  const short = (name as string).slice(0, Math.min(keep, (name as string).length - 1));
  return command.slice(0, t.start) + short + (value.length > 0 ? `=${value.join("=")}` : "") + command.slice(t.end);
};

/** `--opt=value` ↔ `--opt value`, `-o value` ↔ `-ovalue` (for options that take a value). */
export const attach: Operator = (command, random) => {
  const toks = tokens(command);
  if (!toks) return undefined;
  const joined = toks.filter((t) => t.plain && /^--[a-z][a-z-]+=./.test(t.text));
  const separate = toks.filter((t, k) => t.plain && /^-[a-zA-Z]$/.test(t.text) && toks[k + 1] && !(toks[k + 1] as Token).text.startsWith("-") && !SEPARATORS.has((toks[k + 1] as Token).text));
  if (joined.length > 0 && (separate.length === 0 || random() < 0.5)) {
    const t = pick(joined, random) as Token;
    const at = t.text.indexOf("=");
    return `${command.slice(0, t.start)}${t.text.slice(0, at)} ${t.text.slice(at + 1)}${command.slice(t.end)}`;
  }
  const t = pick(separate, random);
  if (!t) return undefined;
  const next = toks[toks.indexOf(t) + 1] as Token;
  return command.slice(0, t.end) + command.slice(next.start);
};

export const SEMANTIC_OPERATORS: Record<string, Operator> = { requote, widen, continueLine, newlines, cdPrefix, wrap };
export const OPTION_OPERATORS: Record<string, Operator> = { abbreviate, attach };
