// A tokenizer for awk programs (POSIX awk with the gawk and mawk extensions), used to decide
// whether a program is read-only. It lexes the whole program — strings, regex literals,
// comments, continuations — and follows enough of the expression grammar to tell the two
// readings of `/` (regex or division) and of `>` / `<` (redirection or comparison) apart,
// the way gawk's and mawk's parsers do:
// - `/` starts a regex except after an operand (name, number, string, regex, `)`, `]`,
//   postfix `++`/`--`); after the `)` of `if (…)`, `while (…)`, `for (…)` a statement starts;
// - in a `print`/`printf` statement, a `>` or `>>` outside parentheses is a redirection
//   (brackets do not protect it), and the statement goes on over a newline after `,`,
//   `&&`, `||`, `?`, `:` or any other operator;
// - after `getline`, a `<` is an input redirection (mawk: at any depth).
// Objections: `system`, any `|` / `|&` (pipes to and from commands), output redirection other
// than to /dev/stdout or /dev/stderr, `getline <` from anything but a string literal, `ARGV` /
// `SYMTAB` (they can make awk read other files), gawk `@` directives and indirect calls, and
// anything the tokenizer cannot read with certainty. `getline < "file"` is allowed and the
// file reported as a read, for the permission engine to judge.
import { multibyteHazard } from "./common.js";

export interface AwkFiles {
  writes: string[];
  reads: string[];
}

const KEYWORDS = new Set([
  "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for", "do",
  "break", "continue", "next", "nextfile", "exit", "return", "delete", "in", "getline", "print",
  "printf", "switch", "case", "default",
]);
/** Words gawk reads as keywords and mawk as plain names: a `/` after them is read differently. */
const DIALECT_WORDS = new Set(["BEGINFILE", "ENDFILE", "func", "switch", "case", "default", "nextfile"]);
/** Keywords after which a `/` cannot be judged (`getline /x/`, `k in /x/`). */
const NO_SLASH_AFTER = new Set(["getline", "in", "BEGIN", "END", "function"]);
const CONDITION_KEYWORDS = new Set(["if", "while", "for", "switch"]);
/** Output files that are the process's own streams. */
const OWN_OUTPUT = new Set(["/dev/stdout", "/dev/stderr"]);
/** Input files that are the standard input. */
const OWN_INPUT = new Set(["-", "/dev/stdin"]);
/** Names whose use can make awk read files not named on the command line. */
const FILE_LIST_NAMES = new Set(["ARGV", "SYMTAB"]);

type Prev = "operand" | "start" | "operator" | "incdec" | "noslash";

interface Token {
  kind: "name" | "keyword" | "number" | "string" | "regex" | "op" | "newline" | "eof";
  text: string;
  /** For strings: the value when it holds no escape sequence. */
  plain?: string;
}

class NotUnderstood extends Error {}

/** Returns undefined when the program is read-only, else why not; files it names go into `files`. */
export function awkProgramObjection(program: string, files: AwkFiles = { writes: [], reads: [] }): string | undefined {
  const hazard = multibyteHazard("awk", program);
  if (hazard) return hazard;
  const found: AwkFiles = { writes: [], reads: [] };
  let objection: string | undefined;
  try {
    new AwkScanner(program, found, (reason) => (objection ??= reason)).run();
  } catch (e) {
    if (!(e instanceof NotUnderstood)) throw e;
    objection = e.message;
    // Past the point it could not read, name every literal that might be a file, so deny
    // rules still see them (over-inclusive: the command asks anyway).
    for (const m of program.matchAll(/>>?\s*"((?:[^"\\\n]|\\.)*)"/g)) found.writes.push(m[1] as string);
    for (const m of program.matchAll(/<\s*"((?:[^"\\\n]|\\.)*)"/g)) found.reads.push(m[1] as string);
  }
  files.writes.push(...found.writes);
  files.reads.push(...found.reads);
  return objection;
}

interface Open {
  kind: "(" | "[";
  condition: boolean;
}

class AwkScanner {
  private i = 0;
  private prev: Prev = "start";
  /** The token before the previous one was an operand (tells postfix `++` from prefix). */
  private beforeIncdecOperand = false;
  private lastText = "";
  private readonly open: Open[] = [];
  private pendingCondition = false;
  /** Depth of the open `print`/`printf` statement, or -1. */
  private printDepth = -1;
  /** A `getline` was seen in this statement: any later `<` in it is read as an input redirection. */
  private getlineActive = false;

  constructor(
    private readonly s: string,
    private readonly files: AwkFiles,
    private readonly note: (reason: string) => void,
  ) {}

  private fail(why: string): never {
    throw new NotUnderstood(`awk program not understood: ${why}`);
  }

  run(): void {
    while (true) {
      const t = this.token();
      if (t.kind === "eof") {
        if (this.open.length > 0) this.fail("unbalanced parentheses or brackets");
        return;
      }
      this.handle(t);
    }
  }

  private handle(t: Token): void {
    switch (t.kind) {
      case "newline":
        this.newline();
        return;
      case "name":
        if (t.text === "system") this.note("awk system() runs a shell command");
        if (FILE_LIST_NAMES.has(t.text)) this.note(`awk ${t.text} can make awk read files not named on the command line`);
        this.operand(t.text);
        return;
      case "keyword":
        this.keyword(t.text);
        return;
      case "number":
      case "string":
      case "regex":
        this.operand(t.text);
        return;
      case "op":
        this.operator(t.text);
        return;
      default:
        this.fail("an unexpected token");
    }
  }

  private operand(text: string): void {
    this.set("operand", text);
  }

  private set(prev: Prev, text: string): void {
    this.beforeIncdecOperand = this.prev === "operand";
    this.prev = prev;
    this.lastText = text;
  }

  private keyword(word: string): void {
    if (word === "print" || word === "printf") {
      if (this.printDepth >= 0) this.fail("print inside print");
      this.printDepth = this.open.length;
    }
    if (word === "getline") this.getlineActive = true;
    if (CONDITION_KEYWORDS.has(word)) this.pendingCondition = true;
    this.set(NO_SLASH_AFTER.has(word) || DIALECT_WORDS.has(word) ? "noslash" : "start", word);
  }

  /**
   * Whether a newline here goes on with the statement. The real grammars allow it after `,`,
   * `{`, `&&`, `||`, `do`, `else` (gawk also `?` and `:`); after any other operator the program
   * is invalid anyway, so going on there only widens a print statement (more `>` are redirects).
   */
  private continues(): boolean {
    if (this.prev === "operand" || this.prev === "incdec") return false;
    if (this.lastText === "do" || this.lastText === "else") return true;
    return !KEYWORDS.has(this.lastText);
  }

  private newline(): void {
    if (this.continues()) return;
    if (this.open.length > 0) this.fail("a newline inside parentheses");
    this.endStatement();
    this.set("start", "\n");
  }

  private endStatement(): void {
    this.printDepth = -1;
    this.getlineActive = false;
  }

  /** Whether a `(` was opened since the `print` keyword (brackets do not count). */
  private parenSincePrint(): boolean {
    return this.open.slice(this.printDepth).some((o) => o.kind === "(");
  }

  private operator(op: string): void {
    switch (op) {
      case "(":
        this.open.push({ kind: "(", condition: this.pendingCondition });
        this.pendingCondition = false;
        this.set("operator", op);
        return;
      case "[":
        this.open.push({ kind: "[", condition: false });
        this.set("operator", op);
        return;
      case ")":
      case "]": {
        const o = this.open.pop();
        if (!o || o.kind !== (op === ")" ? "(" : "[")) this.fail(`an unmatched \`${op}\``);
        if (this.printDepth > this.open.length) this.printDepth = -1;
        this.set(o.condition ? "start" : "operand", op);
        return;
      }
      case "{":
      case "}":
        if (this.open.length > 0) this.fail(`\`${op}\` inside parentheses`);
        this.endStatement();
        this.set("start", op);
        return;
      case ";":
        if (this.open.length > 0 && !this.open.every((o) => o.kind === "(" && o.condition)) this.fail("`;` inside parentheses");
        if (this.open.length === 0) this.endStatement();
        this.set("start", op);
        return;
      case "|":
      case "|&":
        this.note("awk pipes run shell commands");
        this.set("operator", op);
        return;
      case ">":
      case ">>":
      case ">=":
        if (this.printDepth >= 0 && !this.parenSincePrint()) {
          if (op === ">=") this.fail("`>=` in a print statement");
          this.redirectOut();
          return;
        }
        if (op === ">>") this.fail("`>>` outside a print statement");
        this.set("operator", op);
        return;
      case "<":
        if (this.getlineActive) {
          this.redirectIn();
          return;
        }
        this.set("operator", op);
        return;
      case "++":
      case "--":
        this.set("incdec", op);
        return;
      case "$":
        this.set("noslash", op);
        return;
      default:
        this.set("operator", op);
    }
  }

  /** The target of `getline <`: a string literal standing alone is a read; anything else asks. */
  private redirectIn(): void {
    this.getlineActive = false;
    const name = this.literalTarget();
    if (name === undefined) this.note("awk getline reads a file named at run time");
    else if (/^\/inet[46]?\//.test(name)) this.note(`awk getline opens a network connection: ${name}`);
    else if (!OWN_INPUT.has(name)) this.files.reads.push(name);
  }

  /** The target of `print >` / `>>`: only the process's own output streams are not writes. */
  private redirectOut(): void {
    const name = this.literalTarget();
    if (name !== undefined && OWN_OUTPUT.has(name)) return;
    if (name !== undefined) this.files.writes.push(name);
    this.note(name === undefined ? "awk print redirection writes a file named at run time" : "awk print redirection writes a file");
  }

  /** A string literal followed by the end of the expression; else undefined (and the tokens are handled normally). */
  private literalTarget(): string | undefined {
    this.set("operator", "<");
    const t = this.token();
    if (t.kind !== "string" || t.plain === undefined) {
      this.handle(t);
      return undefined;
    }
    this.operand(t.text);
    const save = this.i;
    const after = this.token();
    this.i = save;
    const ends = after.kind === "eof" || after.kind === "newline" || (after.kind === "op" && [")", ";", "}"].includes(after.text));
    return ends ? t.plain : undefined;
  }

  // ---- lexer ----

  private token(): Token {
    const s = this.s;
    while (true) {
      const c = s[this.i];
      if (c === " " || c === "\t") {
        this.i++;
      } else if (c === "\\") {
        if (s[this.i + 1] !== "\n") this.fail("a backslash outside a string or regex");
        this.i += 2;
      } else if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        if (s[this.i - 1] === "\\") this.fail("a comment ending in a backslash");
      } else break;
    }
    const c = s[this.i];
    if (c === undefined) return { kind: "eof", text: "" };
    if (c === "\n") {
      this.i++;
      return { kind: "newline", text: "\n" };
    }
    if (c === '"') return this.string();
    if (c === "/" && this.regexHere()) return this.regex();
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i)) as RegExpExecArray;
      this.i += m[0].length;
      if (s.startsWith("::", this.i)) this.fail("a gawk namespace name");
      return { kind: KEYWORDS.has(m[0]) ? "keyword" : "name", text: m[0] };
    }
    if (/[0-9.]/.test(c)) {
      const m = /^(?:0[xX][0-9A-Fa-f]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/.exec(s.slice(this.i));
      if (!m) this.fail("a lone `.`");
      this.i += m[0].length;
      return { kind: "number", text: m[0] };
    }
    if (c === "@") this.fail("gawk @-directives and indirect calls");
    const three = s.slice(this.i, this.i + 3);
    const two = s.slice(this.i, this.i + 2);
    const op = three === "**=" ? three : ["+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "++", "--", "&&", "||", ">>", "**", "!~", "|&"].includes(two) ? two : c;
    if (op.length === 1 && !"+-*/%^!><|?:~$=()[]{},;".includes(op)) this.fail(`unexpected character ${JSON.stringify(c)}`);
    this.i += op.length;
    return { kind: "op", text: op };
  }

  /** Whether a `/` at this point starts a regex (else it divides). */
  private regexHere(): boolean {
    switch (this.prev) {
      case "operand":
        return false;
      case "start":
      case "operator":
        return true;
      case "incdec":
        if (this.beforeIncdecOperand) return false;
        return this.fail("`/` after a prefix `++` or `--`");
      default:
        return this.fail(`\`/\` after \`${this.lastText}\``);
    }
  }

  private string(): Token {
    const start = this.i++;
    let escaped = false;
    while (true) {
      const c = this.s[this.i++];
      if (c === undefined || c === "\n") this.fail("an unterminated string");
      if (c === '"') break;
      if (c === "\\") {
        const d = this.s[this.i++];
        if (d === undefined || d === "\n" || d === "\r") this.fail("a backslash-newline inside a string");
        escaped = true;
      }
    }
    const text = this.s.slice(start, this.i);
    return { kind: "string", text, plain: escaped ? undefined : text.slice(1, -1) };
  }

  private regex(): Token {
    const start = this.i++;
    while (true) {
      const c = this.s[this.i++];
      if (c === undefined || c === "\n") this.fail("an unterminated regex");
      if (c === "/") break;
      if (c === "\\") {
        const d = this.s[this.i++];
        if (d === undefined || d === "\n" || d === "\r") this.fail("a backslash-newline inside a regex");
      } else if (c === "[") this.bracket();
    }
    return { kind: "regex", text: this.s.slice(start, this.i) };
  }

  /** A bracket expression: implementations differ on `/` and `\` inside one, so those are refused. */
  private bracket(): void {
    if (this.s[this.i] === "^") this.i++;
    if (this.s[this.i] === "]") this.i++;
    while (true) {
      const c = this.s[this.i++];
      if (c === undefined || c === "\n" || c === "/" || c === "\\") this.fail("a bracket expression holding `/`, `\\` or a newline");
      if (c === "]") return;
      if (c === "[" && /[:.=]/.test(this.s[this.i] ?? "")) {
        const close = (this.s[this.i] as string) + "]";
        const end = this.s.indexOf(close, this.i + 1);
        if (end < 0 || this.s.slice(this.i, end).includes("\n")) this.fail("an unterminated character class");
        this.i = end + 2;
      }
    }
  }
}
