// Quote removal for one shell word, as bash would do it before running the command.
// A word is "static" when its value is known without running anything: no parameter
// expansion, no substitution, no glob or brace expansion. Non-static parts are kept as written.
import type { Node } from "./parser.js";

export interface Word {
  /** The value after quote removal; non-static parts appear as written (`$HOME`, `$(id)`). */
  text: string;
  /** Known without expansion: no `$…`, no substitution, no unquoted glob or brace pattern. */
  isStatic: boolean;
  /** Has an unquoted `*`, `?` or `[` (pathname expansion may turn it into other words). */
  glob: boolean;
  /** Has an unquoted brace pattern (`{a,b}`, `{1..3}`) that bash expands into several words. */
  brace: boolean;
  /** Has an unquoted `$IFS` / `${IFS}`, i.e. the word is split where it appears. */
  ifs: boolean;
  /** Contains a parameter expansion bash evaluates with side effects or indirection. */
  unsafeExpansion: boolean;
  /**
   * May become a number of words not known in advance: an unquoted parameter expansion or
   * command substitution (its result is split on blanks, then each piece is a glob), a brace
   * pattern, or `"$@"` / `"${a[@]}"` even in double quotes. Arithmetic and `<(…)` stay one word.
   */
  split: boolean;
  /** The source text of the word. */
  raw: string;
}

/** A placeholder for a quoted character in the "unquoted view" of a word. */
const QUOTED = "\u0000";
/** Where an unquoted `$IFS` splits the word. */
export const IFS_SPLIT = "\u0001";

interface Acc {
  text: string;
  /** The word with every quoted character replaced by QUOTED: what glob/brace detection sees. */
  unquoted: string;
  isStatic: boolean;
  ifs: boolean;
  unsafeExpansion: boolean;
  split: boolean;
}

export function evaluateWord(node: Node): Word {
  const acc: Acc = { text: "", unquoted: "", isStatic: true, ifs: false, unsafeExpansion: false, split: false };
  appendPart(node, acc, false);
  const glob = /[*?[]/.test(acc.unquoted);
  const brace = /\{[^{}]*(,|\.\.)[^{}]*\}/.test(acc.unquoted);
  return {
    text: acc.text,
    isStatic: acc.isStatic && !glob && !brace && !acc.ifs,
    glob,
    brace,
    ifs: acc.ifs,
    unsafeExpansion: acc.unsafeExpansion,
    split: acc.split || brace || acc.ifs,
    raw: node.text,
  };
}

function appendQuoted(acc: Acc, s: string): void {
  acc.text += s;
  acc.unquoted += QUOTED.repeat(s.length);
}

function appendDynamic(acc: Acc, node: Node): void {
  acc.text += node.text;
  acc.unquoted += QUOTED.repeat(node.text.length);
  acc.isStatic = false;
}

function appendPart(node: Node, acc: Acc, inDoubleQuotes: boolean): void {
  switch (node.type) {
    case "word":
    case "number":
    case "command_name":
    case "extglob_pattern":
    case "regex":
      if (node.type === "command_name" || node.namedChildCount > 0) {
        for (const child of node.namedChildren) if (child) appendPart(child, acc, inDoubleQuotes);
        return;
      }
      appendUnquotedText(node.text, acc);
      return;
    case "raw_string":
      appendQuoted(acc, node.text.slice(1, -1));
      return;
    case "ansi_c_string": {
      const decoded = decodeAnsiC(node.text.slice(2, -1));
      if (decoded === undefined) appendDynamic(acc, node);
      else appendQuoted(acc, decoded);
      return;
    }
    case "string":
      for (const child of node.children) {
        if (child.isNamed) appendPart(child, acc, true);
        // A `$` the grammar leaves unnamed (`"a$"`) is a literal dollar sign.
        else if (child.type === "$") appendQuoted(acc, "$");
      }
      return;
    case "string_content":
      appendQuoted(acc, unescapeDoubleQuoted(node.text));
      return;
    case "translated_string":
      // $"…" is looked up in TEXTDOMAIN's message catalogue; with none set (or in the C locale)
      // it is the double-quoted string itself. analyzeCommand flags commands that set TEXTDOMAIN.
      for (const child of node.namedChildren) appendPart(child, acc, inDoubleQuotes);
      return;
    case "concatenation":
      for (let i = 0; i < node.childCount; i++) {
        const child = node.child(i);
        if (!child) continue;
        // `$"text"` parses as an anonymous `$` followed by a string: a translated string, which
        // is the string itself (see translated_string). A `$` not before a string is literal.
        if (!child.isNamed && child.type === "$") {
          if (!isTranslatedDollar(node, i)) appendUnquotedText("$", acc);
          continue;
        }
        appendPart(child, acc, inDoubleQuotes);
      }
      return;
    case "simple_expansion":
    case "expansion": {
      if (!inDoubleQuotes && isIfsExpansion(node)) {
        acc.text += IFS_SPLIT;
        acc.unquoted += QUOTED;
        acc.ifs = true;
        acc.isStatic = false;
        return;
      }
      if (node.type === "expansion" && !isPlainExpansion(node)) acc.unsafeExpansion = true;
      if (!inDoubleQuotes || expandsToAllElements(node)) acc.split = true;
      appendDynamic(acc, node);
      return;
    }
    default:
      // command/process substitution, arithmetic expansion, brace_expression, anything else.
      if (node.type === "brace_expression") {
        acc.text += node.text;
        acc.unquoted += node.text;
        acc.isStatic = false;
        return;
      }
      if (!inDoubleQuotes && node.type !== "arithmetic_expansion" && node.type !== "process_substitution") acc.split = true;
      appendDynamic(acc, node);
  }
}

/** True when the unnamed `$` at `parent.child(i)` opens a `$"…"` (a string touches it). */
export function isTranslatedDollar(parent: Node, i: number): boolean {
  const dollar = parent.child(i);
  const next = parent.child(i + 1);
  if (dollar === undefined || next === undefined || next.startIndex !== dollar.endIndex) return false;
  // `$"a"$"b"` as a command argument: `$` then a concatenation that starts with the string.
  return next.type === "string" || (next.type === "concatenation" && next.child(0)?.type === "string");
}

/** An unquoted word: backslash quotes the next character; backslash-newline disappears. */
function appendUnquotedText(s: string, acc: Acc): void {
  if (!s.includes("\\")) {
    acc.text += s;
    acc.unquoted += s;
    return;
  }
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "\\" && i + 1 < s.length) {
      const next = s[i + 1] as string;
      i++;
      if (next === "\n") continue;
      appendQuoted(acc, next);
      continue;
    }
    acc.text += c;
    acc.unquoted += c;
  }
}

/** Inside double quotes a backslash only quotes `$`, backquote, `"`, `\` and newline. */
export function unescapeDoubleQuoted(s: string): string {
  if (!s.includes("\\")) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === "\\" && i + 1 < s.length) {
      const next = s[i + 1] as string;
      if (next === "\n") {
        i++;
        continue;
      }
      if (next === "$" || next === "`" || next === '"' || next === "\\") {
        out += next;
        i++;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** `$@`, `${@…}`, `${name[@]…}`, `${!prefix@}`: one word per element even in double quotes. */
function expandsToAllElements(node: Node): boolean {
  return /^\$(@|\{@|\{!?[A-Za-z_][A-Za-z0-9_]*(\[@\]|@\}))/.test(node.text);
}

function isIfsExpansion(node: Node): boolean {
  if (node.type === "simple_expansion") return node.text === "$IFS";
  return node.text === "${IFS}";
}

/**
 * `${name}`, `${#name}`, `${name:-word}`, `${name#pat}`, `${name/a/b}`, `${name^^}`… are plain.
 * Assignment (`:=`), indirection (`${!x}`), transformations (`@P` runs prompt expansion, which
 * may run command substitutions) and arithmetic subscripts or offsets that name variables
 * (bash evaluates their values recursively, `a[$(cmd)]` included) are not.
 */
function isPlainExpansion(node: Node): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (!child) continue;
    if (child.type === "subscript") {
      const index = child.childForFieldName("index");
      if (index && !/^(\d+|@|\*)$/.test(index.text)) return false;
    }
    if (!child.isNamed || node.fieldNameForChild(i) === "operator") {
      const op = child.type;
      if (op === "!" || op === "=" || op === ":=" || op === "@") return false;
      if (op === ":") {
        // Substring offsets are arithmetic: only literal numbers are plain.
        const next = node.child(i + 1);
        if (next && next.type !== "number" && !/^-?\d+$/.test(next.text.trim())) return false;
      }
    }
  }
  return true;
}

/**
 * Decodes the body of a `$'…'` string. Returns undefined for escapes whose value depends on
 * the locale or that are not modelled, so that the caller treats the word as unknown.
 */
export function decodeAnsiC(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    const simple: Record<string, string> = {
      a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v",
      "\\": "\\", "'": "'", '"': '"', "?": "?",
    };
    if (e in simple) {
      out += simple[e];
      continue;
    }
    if (/[0-7]/.test(e)) {
      let digits = e;
      while (digits.length < 3 && /[0-7]/.test(body[i + 1] ?? "")) digits += body[++i];
      out += String.fromCharCode(parseInt(digits, 8) & 0xff);
      continue;
    }
    const hexLen = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (hexLen > 0) {
      let digits = "";
      while (digits.length < hexLen && /[0-9a-fA-F]/.test(body[i + 1] ?? "")) digits += body[++i];
      if (digits === "") return undefined;
      const code = parseInt(digits, 16);
      if (e === "x") {
        out += String.fromCharCode(code);
        continue;
      }
      if (code > 0x10ffff) return undefined;
      out += String.fromCodePoint(code);
      continue;
    }
    if (e === "c") {
      const ctl = body[++i];
      if (ctl === undefined) return undefined;
      out += String.fromCharCode(ctl.toUpperCase().charCodeAt(0) & 0x1f);
      continue;
    }
    // Unknown escape: bash keeps the backslash.
    out += "\\" + e;
  }
  // A NUL ends the string in bash.
  const nul = out.indexOf("\0");
  return nul === -1 ? out : out.slice(0, nul);
}
