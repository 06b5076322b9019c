// A parser for the everyday subset of bash, in plain JS, that builds the very tree tree-sitter's
// bash grammar builds for the same source, or declines. Most commands an agent runs (and most
// lines of most scripts) use a small part of the language: words, quotes, `$x`, `${x}`, `$(…)`,
// pipelines, `&&`/`||`, redirects, `for`/`while`/`if`/`case`, `[ … ]`. For those, a hand-written
// recursive descent is three to six times faster than the GLR parse in WASM and the copy of
// its tree into JS (issue 19's speed targets). It is exact or silent: on anything outside what
// it knows (a backslash, a here-document, backquotes, arithmetic, braces or brackets in a word,
// a function, `declare`, a case pattern other than a plain word or `*`, a syntax error…) it
// returns undefined and the caller parses with tree-sitter. The node types, the anonymous tokens, the
// ranges and the field names the analysis reads are tree-sitter's, quirks included (`-20` is a
// `number`, a redirect's destination takes every word after it, a `*` case pattern is an
// `extglob_pattern`); fast-parse.test.ts compares both parsers on every corpus and on generated
// scripts. One difference is kept on purpose: after three piped commands tree-sitter can join the
// next line to the last command (`a | b | c` newline `rm x > f` is `c rm x > f` to it), which
// bash never does and the walker refuses (source-text.ts, joinsLines); the fast tree there is
// bash's. Node ids are unique but not in tree order (nothing reads their order).
import { NO_CHILDREN, SyntaxNode, type ParsedScript } from "./syntax-node.js";

/** Thrown (one shared value, never escaping this module) to abandon a parse. */
const DECLINE: unique symbol = Symbol("decline");

/** Characters that end a bare word (tree-sitter-bash's special characters and whitespace). */
const SPECIAL = new Uint8Array(128);
for (const c of "'\"<>{}[]()`$|&;\\ \t\n\r\v\f") SPECIAL[c.charCodeAt(0)] = 1;
/** Characters after which a keyword ends (`done;`, `fi)`, `then\n`). */
const KEYWORD_END = new Uint8Array(128);
for (const c of " \t\n;&|()<>") KEYWORD_END[c.charCodeAt(0)] = 1;

/** Words that are not command names: keywords, and commands the grammar gives their own node. */
const RESERVED = new Set([
  "then", "do", "done", "fi", "else", "elif", "esac", "in", "function", "select", "declare", "typeset",
  "export", "readonly", "local", "unset", "unsetenv", "for", "while", "until", "if", "case", "!", "{", "}",
]);
const MAX_NESTING = 40;
/** `$-` is left out: before a blank the grammar can run it into the next word. */
const SPECIAL_VARIABLES = new Set(["?", "@", "#", "$", "!", "*"]);
const EXPANSION_OPERATORS = [":-", ":=", ":+", ":?", "-", "=", "+", "?"];

const enum Ch {
  Tab = 9, Newline = 10, Space = 32, Quote = 34, Hash = 35, Dollar = 36, Amp = 38, Apostrophe = 39,
  Open = 40, Close = 41, Star = 42, Minus = 45, Zero = 48, Nine = 57, Semi = 59, Less = 60, Equal = 61,
  Greater = 62, Tilde = 126, OpenBrace = 123, Pipe = 124, CloseBrace = 125, OpenBracket = 91,
  Backquote = 96, Backslash = 92,
}

const isDigit = (c: number): boolean => c >= Ch.Zero && c <= Ch.Nine;
const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || isDigit(c) || c === 95;
const isBlank = (c: number): boolean => c === Ch.Space || c === Ch.Tab;

/** How a run of statements ends: at the end of the input, a closing character, or keywords. */
interface Stop {
  /** `)` (a subshell, `$(…)`), `}` (a group), or none. */
  close?: number;
  keywords?: readonly string[];
  /** Every statement needs a terminator (`do … done`, `if … fi`, `{ …; }`). */
  terminated: boolean;
  /** A case item's body: `;;` ends it. */
  caseItem?: boolean;
  /** At least one statement (all but a case item's body). */
  nonEmpty: boolean;
}

const PROGRAM: Stop = { terminated: false, nonEmpty: false };
const IN_PARENS: Stop = { close: Ch.Close, terminated: false, nonEmpty: true };
const IN_BRACES: Stop = { close: Ch.CloseBrace, terminated: true, nonEmpty: true };
const UNTIL_DONE: Stop = { keywords: ["done"], terminated: true, nonEmpty: true };
const UNTIL_DO: Stop = { keywords: ["do"], terminated: true, nonEmpty: true };
const UNTIL_THEN: Stop = { keywords: ["then"], terminated: true, nonEmpty: true };
const UNTIL_ELSE: Stop = { keywords: ["elif", "else", "fi"], terminated: true, nonEmpty: true };
const UNTIL_FI: Stop = { keywords: ["fi"], terminated: true, nonEmpty: true };
const CASE_BODY: Stop = { keywords: ["esac"], terminated: false, caseItem: true, nonEmpty: false };

class FastParser {
  private pos = 0;
  private nextId = 0;
  /** By node id (ids are given in order from 0): how many nodes its longest path down holds. */
  private readonly heights: number[] = [];
  /** How many runs of statements are open (`$(…)`, groups, bodies). */
  private nesting = 0;
  /** Whether the chain just read ends in three or more piped commands. */
  private longPipeline = false;
  /** Whether the statement just read was ended by a newline (not `;` or `&`). */
  private endedByNewline = false;

  constructor(private readonly src: string) {}

  private decline(): never {
    throw DECLINE;
  }

  private code(at = this.pos): number {
    return this.src.charCodeAt(at);
  }

  private node(type: string, named: boolean, start: number, end: number, children: SyntaxNode[] = NO_CHILDREN): SyntaxNode {
    const n = new SyntaxNode(this.nextId++, type, named, undefined, false, this.src);
    n.startIndex = start;
    n.endIndex = end;
    let height = 1;
    if (children.length > 0) {
      n.children = children;
      for (const c of children) {
        c.parent = n;
        const below = (this.heights[c.id] as number) + 1;
        if (below > height) height = below;
      }
    }
    this.heights[n.id] = height;
    return n;
  }

  /** The anonymous token `type`, here, consumed. */
  private token(type: string): SyntaxNode {
    const start = this.pos;
    this.pos += type.length;
    return this.node(type, false, start, this.pos);
  }

  private withField<T extends SyntaxNode>(n: T, field: string): T {
    n.field = field;
    return n;
  }

  program(): ParsedScript {
    const children = this.statements(PROGRAM);
    if (this.pos < this.src.length) this.decline();
    const first = children[0];
    if (!first) this.decline();
    const root = this.node("program", true, first.startIndex, this.src.length, children);
    return { root, depth: this.heights[root.id] as number };
  }

  // ---- whitespace, comments, keywords

  private skipBlanks(): void {
    while (isBlank(this.code())) this.pos++;
  }

  /** Skips blanks and newlines; comments become children of `into` (or decline if not wanted). */
  private skipSpace(into: SyntaxNode[] | undefined): void {
    for (;;) {
      const c = this.code();
      if (isBlank(c) || c === Ch.Newline) this.pos++;
      else if (c === Ch.Hash) {
        if (!into) this.decline();
        into.push(this.comment());
      } else return;
    }
  }

  private comment(): SyntaxNode {
    const start = this.pos;
    let end = this.src.indexOf("\n", start);
    if (end < 0) end = this.src.length;
    this.pos = end;
    return this.node("comment", true, start, end);
  }

  /** Whether `word` stands here as a whole word (a keyword, not the start of a longer word). */
  private atKeyword(word: string): boolean {
    if (!this.src.startsWith(word, this.pos)) return false;
    const after = this.pos + word.length;
    return after >= this.src.length || KEYWORD_END[this.code(after)] === 1;
  }

  private expectKeyword(word: string): SyntaxNode {
    if (!this.atKeyword(word)) this.decline();
    return this.token(word);
  }

  private atStop(stop: Stop): boolean {
    const c = this.code();
    if (stop.close !== undefined && c === stop.close) {
      if (c !== Ch.CloseBrace) return true;
      const after = this.pos + 1;
      return after >= this.src.length || KEYWORD_END[this.code(after)] === 1;
    }
    if (stop.caseItem && c === Ch.Semi && this.code(this.pos + 1) === Ch.Semi) return true;
    return stop.keywords?.some((k) => this.atKeyword(k)) ?? false;
  }

  // ---- statements

  /**
   * Statements with their terminators and comments, up to (not including) what ends them,
   * appended to `out` (never spread into a call: a body may hold 100,000 of them).
   */
  private statements(stop: Stop, out: SyntaxNode[] = []): SyntaxNode[] {
    // Deep nesting is left to tree-sitter (and this recursion stays far from the stack's end).
    if (++this.nesting > MAX_NESTING) this.decline();
    let statements = 0;
    for (;;) {
      this.skipSpace(out);
      if (this.pos >= this.src.length) {
        if (stop !== PROGRAM) this.decline();
        break;
      }
      if (this.atStop(stop)) break;
      out.push(this.chain());
      statements++;
      this.endedByNewline = false;
      this.skipBlanks();
      const c = this.code();
      if (c === Ch.Semi) {
        const next = this.code(this.pos + 1);
        if (next === Ch.Semi) {
          if (!stop.caseItem) this.decline();
          break;
        }
        if (next === Ch.Amp) this.decline();
        out.push(this.token(";"));
      } else if (c === Ch.Amp) {
        out.push(this.token("&"));
      } else if (c === Ch.Newline) {
        this.pos++;
        this.endedByNewline = true;
      } else if (c === Ch.Hash) {
        // The grammar keeps three piped commands, or assignments, open past a comment
        // (`a | b | c # x` + newline + `d && e`; `a=1 # x` + newline + `ls`).
        if (this.longPipeline || (out[out.length - 1] as SyntaxNode).type === "variable_assignment") this.decline();
        out.push(this.comment());
        if (this.pos < this.src.length) {
          this.pos++; // the newline after it
          this.endedByNewline = true;
        }
      } else if (this.pos >= this.src.length) {
        if (stop.terminated) this.decline();
        break;
      } else if (this.atStop(stop) && !stop.terminated) {
        break;
      } else {
        this.decline();
      }
    }
    if (statements === 0 && stop.nonEmpty) this.decline();
    this.nesting--;
    return out;
  }

  /**
   * Statements joined by `|`, `&&` and `||`, with their redirects. Pipelines bind tighter than
   * lists, lists group from the left, and (the grammar's reading) redirects after a statement
   * apply to the whole chain before them: `a && b > f` is `(a && b) > f`, `a | b > f | c` is
   * `(a | b) > f | c`.
   */
  private chain(): SyntaxNode {
    let list: SyntaxNode | undefined;
    let operator: SyntaxNode | undefined;
    let pipe: SyntaxNode[] = [];
    /** Commands piped since the last `&&`/`||`, those a redirect wrapped included. */
    let piped = 0;
    const sofar = (): SyntaxNode => {
      const first = pipe[0] as SyntaxNode;
      const right = pipe.length === 1 ? first : this.node("pipeline", true, first.startIndex, lastEnd(pipe), pipe);
      return list && operator ? this.node("list", true, list.startIndex, right.endIndex, [list, operator, right]) : right;
    };
    for (;;) {
      pipe.push(this.primary());
      piped++;
      let save = this.pos;
      this.skipBlanks();
      if (this.redirectOperator() !== undefined) {
        if ((pipe[pipe.length - 1] as SyntaxNode).type === "variable_assignment") this.decline();
        const body = sofar();
        const children = [this.withField(body, "body")];
        for (;;) {
          children.push(this.withField(this.fileRedirect(), "redirect"));
          save = this.pos;
          this.skipBlanks();
          if (this.redirectOperator() === undefined) break;
        }
        list = operator = undefined;
        pipe = [this.node("redirected_statement", true, body.startIndex, lastEnd(children), children)];
      }
      const c = this.code();
      if (this.atPipe()) {
        pipe.push(this.token("|"));
      } else if ((c === Ch.Amp || c === Ch.Pipe) && this.code(this.pos + 1) === c) {
        // After three or more piped commands the grammar nests the list inside the pipeline
        // (`a | b | c && d` is `a | (b | c && d)` there, `a | b | c > f | d && e` too): left to
        // tree-sitter, unless a redirect has just closed the pipeline (`a | b | c > f && d`).
        if (piped >= 3 && pipe.length > 1) this.decline();
        piped = 0;
        list = sofar();
        operator = this.token(c === Ch.Amp ? "&&" : "||");
        pipe = [];
      } else {
        this.pos = save;
        this.longPipeline = piped >= 3;
        return sofar();
      }
      this.skipSpace(undefined);
    }
  }

  private atPipe(): boolean {
    if (this.code() !== Ch.Pipe) return false;
    const next = this.code(this.pos + 1);
    return next !== Ch.Pipe && next !== Ch.Amp;
  }

  private primary(): SyntaxNode {
    const c = this.code();
    if (c === Ch.Open) {
      if (this.code(this.pos + 1) === Ch.Open) this.decline();
      return this.group("subshell", "(", IN_PARENS, ")");
    }
    if (c === Ch.OpenBrace) {
      if (!isBlank(this.code(this.pos + 1)) && this.code(this.pos + 1) !== Ch.Newline) this.decline();
      return this.group("compound_statement", "{", IN_BRACES, "}");
    }
    if (c === Ch.OpenBracket) return this.testCommand();
    if (this.atKeyword("for")) return this.forStatement();
    if (this.atKeyword("while") || this.atKeyword("until")) return this.whileStatement();
    if (this.atKeyword("if")) return this.ifStatement();
    if (this.atKeyword("case")) return this.caseStatement();
    return this.simpleCommand();
  }

  private group(type: string, open: string, stop: Stop, close: string): SyntaxNode {
    const start = this.pos;
    const children = this.statements(stop, [this.token(open)]);
    if (this.code() !== close.charCodeAt(0)) this.decline();
    children.push(this.token(close));
    return this.node(type, true, start, this.pos, children);
  }

  private simpleCommand(): SyntaxNode {
    const start = this.pos;
    const children: SyntaxNode[] = [];
    while (this.atAssignment()) {
      children.push(this.assignment());
      const save = this.pos;
      this.skipBlanks();
      if (this.redirectOperator() !== undefined) this.decline();
      if (!this.atLiteralStart()) {
        // An assignment alone (`x=1`); two or more (`a=1 b=2`) go on past a newline in the
        // grammar: left to tree-sitter.
        this.pos = save;
        if (children.length > 1) this.decline();
        return children[0] as SyntaxNode;
      }
    }
    if (!this.atLiteralStart()) this.decline();
    const name = this.literal();
    // A keyword, or a name starting with one (`then%`, `declare'x'`), is not a command's name.
    const head = /^[\w!]+/.exec(name.text)?.[0];
    if (head !== undefined && RESERVED.has(head)) this.decline();
    // A name with `#` or `=` in a word of it reads as a comment or an assignment to the grammar.
    if (name.text.includes("#") || name.text.includes("=")) this.decline();
    // Its bare words: letters, digits and a few marks (`x%s`, `a@b` are errors there), not
    // starting with a digit or `-`; after assignments, no more than a path.
    const words = name.type === "concatenation" ? name.children.filter((c) => c.type === "word" || c.type === "number") : name.type === "word" ? [name] : [];
    if (!/^[A-Za-z_./~"'$]/.test(name.text) || words.some((w) => !/^[\w./:+,~-]+$/.test(w.text))) this.decline();
    if (children.length > 0 && !/^[\w./-]+$/.test(name.text)) this.decline();
    children.push(this.withField(this.node("command_name", true, name.startIndex, name.endIndex, [name]), "name"));
    let end = name.endIndex;
    for (;;) {
      const save = this.pos;
      this.skipBlanks();
      if (!this.atLiteralStart()) {
        this.pos = save;
        break;
      }
      const argument = this.literal();
      this.declineDroppedDash(argument);
      children.push(this.withField(argument, "argument"));
      end = argument.endIndex;
    }
    return this.node("command", true, start, end, children);
  }

  private atAssignment(): boolean {
    let p = this.pos;
    const c = this.code(p);
    if (!isWordChar(c)) return false;
    while (isWordChar(this.code(p))) p++;
    const at = this.code(p);
    const assigns = at === Ch.Equal || (at === 43 && this.code(p + 1) === Ch.Equal);
    if (!assigns) return false;
    if (isDigit(c)) this.decline(); // `1x=…`: not a name; leave it to the grammar
    return true;
  }

  private assignment(): SyntaxNode {
    const start = this.pos;
    while (isWordChar(this.code())) this.pos++;
    if (this.pos === start + 1 && this.code(start) === 95) this.decline(); // `_=…` is a command there
    const name = this.withField(this.node("variable_name", true, start, this.pos), "name");
    const op = this.code() === Ch.Equal ? this.token("=") : this.token("+=");
    const c = this.code();
    if (c === Ch.Open || c === Ch.Hash) this.decline();
    // An empty value (`IFS= read`) reads in several ways to the grammar, depending on what
    // follows: only a blank and a command's name are left to the fast parser.
    if (!this.atLiteralStart()) {
      if (this.code() !== Ch.Space || !/[A-Za-z_./]/.test(this.src.charAt(this.pos + 1))) this.decline();
      return this.node("variable_assignment", true, start, this.pos, [name, op]);
    }
    const value = this.withField(this.literal(), "value");
    return this.node("variable_assignment", true, start, value.endIndex, [name, op, value]);
  }

  // ---- redirects

  /** The redirect operator starting here (after an optional descriptor), if one does. */
  private redirectOperator(): string | undefined {
    let p = this.pos;
    while (isDigit(this.code(p))) p++;
    const c = this.code(p);
    const next = this.code(p + 1);
    if (c === Ch.Greater) {
      if (next === Ch.Greater) return ">>";
      if (next === Ch.Amp) return this.code(p + 2) === Ch.Minus ? this.decline() : ">&";
      if (next === Ch.Pipe || next === Ch.Open) this.decline();
      return ">";
    }
    if (c === Ch.Less) {
      if (next === Ch.Less || next === Ch.Open) this.decline();
      if (next === Ch.Amp) return this.code(p + 2) === Ch.Minus ? this.decline() : "<&";
      return "<";
    }
    if (p === this.pos && c === Ch.Amp && next === Ch.Greater) return this.code(p + 2) === Ch.Greater ? "&>>" : "&>";
    return undefined;
  }

  /** The grammar drops a lone `-` before a descriptor's redirect (`wc - 1> x`, `> f - 2>&1`) from its tree. */
  private declineDroppedDash(word: SyntaxNode): void {
    if (word.type !== "word" || word.text !== "-" || !isBlank(this.code())) return;
    let p = this.pos;
    while (isBlank(this.code(p))) p++;
    if (isDigit(this.code(p))) this.decline();
  }

  private fileRedirect(): SyntaxNode {
    const start = this.pos;
    const op = this.redirectOperator() as string;
    const children: SyntaxNode[] = [];
    if (isDigit(this.code())) {
      // One digit: `072>` or `10>` read otherwise.
      if (this.code() === Ch.Zero || isDigit(this.code(this.pos + 1))) this.decline();
      this.pos++;
      children.push(this.withField(this.node("file_descriptor", true, start, this.pos), "descriptor"));
    }
    children.push(this.token(op));
    this.skipBlanks();
    if (!this.atLiteralStart()) this.decline();
    if (op.endsWith("&") && this.code() === Ch.Minus) this.decline(); // `>& -` closes a descriptor
    let end = this.pos;
    for (;;) {
      const destination = this.literal();
      this.declineDroppedDash(destination);
      children.push(this.withField(destination, "destination"));
      end = destination.endIndex;
      const save = this.pos;
      this.skipBlanks();
      if (!this.atLiteralStart()) {
        this.pos = save;
        break;
      }
    }
    return this.node("file_redirect", true, start, end, children);
  }

  // ---- words

  /** Whether a word (not an operator, a redirect or a comment) starts here. */
  private atLiteralStart(): boolean {
    const c = this.code();
    if (Number.isNaN(c)) return false;
    if (c >= 128) this.decline();
    if (c === Ch.Hash || c === Ch.Semi || c === Ch.Amp || c === Ch.Pipe || c === Ch.Close || c === Ch.Open) return false;
    if (isBlank(c) || c === Ch.Newline) return false;
    if (c === Ch.Less || c === Ch.Greater) return false;
    if (isDigit(c) && this.redirectOperator() !== undefined) return false;
    if (c === Ch.Equal && (this.code(this.pos + 1) === Ch.Equal || this.code(this.pos + 1) === Ch.Tilde)) this.decline();
    return true;
  }

  /** A word: one piece, or several written together (a `concatenation`). */
  private literal(): SyntaxNode {
    const start = this.pos;
    const pieces: SyntaxNode[] = [];
    for (;;) {
      const c = this.code();
      if (Number.isNaN(c) || isBlank(c) || c === Ch.Newline || c === Ch.Semi || c === Ch.Amp || c === Ch.Pipe) break;
      if (c === Ch.Open || c === Ch.Close || c === Ch.Less || c === Ch.Greater) break;
      if (c === Ch.Quote) pieces.push(this.string());
      else if (c === Ch.Apostrophe) pieces.push(this.rawString());
      else if (c === Ch.Dollar) pieces.push(this.dollar());
      else if (SPECIAL[c] === 1 || c >= 128) this.decline();
      else pieces.push(this.bareWord(pieces.length === 0));
    }
    // Longer concatenations can lose a `$` to the grammar (`$f.$f-x` is `$f.$` and `f-x` there);
    // `!` is left alone but as a word of its own.
    if (pieces.length === 0 || pieces.length > 3) this.decline();
    // A positional parameter after the first piece (`$n.$1`) is a lone `$` there too.
    if (pieces.length > 1 && pieces.some((p) => p.type === "word" && p.textHasChar("!"))) this.decline();
    if (pieces.some((p, i) => i > 0 && p.type === "simple_expansion" && isDigit(this.code(p.startIndex + 1)))) this.decline();
    // `x2>f`, `$n>f`: the grammar may read the end of the word as a descriptor.
    if (this.code() === Ch.Less || this.code() === Ch.Greater) this.decline();
    if (pieces.length === 1) return pieces[0] as SyntaxNode;
    return this.node("concatenation", true, start, this.pos, pieces);
  }

  private bareWord(first: boolean): SyntaxNode {
    const start = this.pos;
    if (first && this.code() === Ch.Hash) this.decline();
    for (;;) {
      const c = this.code();
      if (Number.isNaN(c) || SPECIAL[c] === 1) break;
      if (c >= 128) this.decline();
      this.pos++;
    }
    const text = this.src.slice(start, this.pos);
    if (/^-?(0x)?[0-9]+#/.test(text)) this.decline();
    if (text.includes("!") && text !== "!" && text !== "!=") this.decline();
    const number = /^-?(0x)?[0-9]+$/.test(text);
    if (number && !first) this.decline();
    return this.node(number ? "number" : "word", true, start, this.pos);
  }

  private rawString(): SyntaxNode {
    const start = this.pos;
    const end = this.src.indexOf("'", start + 1);
    if (end < 0) this.decline();
    this.pos = end + 1;
    return this.node("raw_string", true, start, this.pos);
  }

  private string(): SyntaxNode {
    const start = this.pos;
    const children = [this.token('"')];
    for (;;) {
      const c = this.code();
      if (Number.isNaN(c) || c === Ch.Backquote || c === Ch.Backslash) this.decline();
      if (c === Ch.Quote) break;
      // A newline is in no node (blanks after it open the next content, or join a `$` token:
      // blanks alone are declined below).
      if (c === Ch.Newline) {
        this.pos++;
        continue;
      }
      if (c === Ch.Dollar) {
        if (this.code(this.pos + 1) === Ch.Quote) children.push(this.token("$"));
        else children.push(this.dollar());
        continue;
      }
      const from = this.pos;
      for (;;) {
        const d = this.code();
        if (Number.isNaN(d) || d === Ch.Quote || d === Ch.Dollar || d === Ch.Newline || d === Ch.Backquote || d === Ch.Backslash) break;
        if (d >= 128) this.decline();
        this.pos++;
      }
      // Blanks alone are no content to the grammar (they join the next token).
      if (/^[ \t]*$/.test(this.src.slice(from, this.pos))) this.decline();
      children.push(this.node("string_content", true, from, this.pos));
    }
    children.push(this.token('"'));
    return this.node("string", true, start, this.pos, children);
  }

  /** `$name`, `$?`, `${name}`, `${name:-word}`, `$(…)`. */
  private dollar(): SyntaxNode {
    const start = this.pos;
    const next = this.code(start + 1);
    if (next === Ch.Open) {
      if (this.code(start + 2) === Ch.Open) this.decline();
      const children = this.statements(IN_PARENS, [this.token("$(")]);
      if (this.code() !== Ch.Close) this.decline();
      children.push(this.token(")"));
      return this.node("command_substitution", true, start, this.pos, children);
    }
    if (next === Ch.OpenBrace) return this.expansion();
    if (isWordChar(next)) {
      const dollar = this.token("$");
      const from = this.pos;
      while (isWordChar(this.code())) this.pos++;
      const name = this.src.slice(from, this.pos);
      // `$_` is the grammar's special variable; `$1x` reads differently in bash and the grammar.
      if (name.startsWith("_") || (isDigit(next) && !/^[0-9]+$/.test(name))) this.decline();
      return this.node("simple_expansion", true, start, this.pos, [dollar, this.node("variable_name", true, from, this.pos)]);
    }
    if (SPECIAL_VARIABLES.has(String.fromCharCode(next))) {
      const after = this.code(start + 2);
      if (next === Ch.Dollar || isWordChar(after) || after === Ch.OpenBrace || after === Ch.Dollar || SPECIAL_VARIABLES.has(String.fromCharCode(after))) this.decline();
      const dollar = this.token("$");
      const name = this.node("special_variable_name", true, this.pos, this.pos + 1);
      this.pos++;
      return this.node("simple_expansion", true, start, this.pos, [dollar, name]);
    }
    return this.decline();
  }

  private expansion(): SyntaxNode {
    const start = this.pos;
    const children = [this.token("${")];
    const from = this.pos;
    const first = this.code();
    if (isDigit(first)) while (isDigit(this.code())) this.pos++;
    else if (isWordChar(first) && first !== 95) while (isWordChar(this.code())) this.pos++;
    if (this.pos === from) this.decline();
    children.push(this.node("variable_name", true, from, this.pos));
    if (this.code() !== Ch.CloseBrace) {
      const op = EXPANSION_OPERATORS.find((o) => this.src.startsWith(o, this.pos));
      if (!op) this.decline();
      children.push(this.withField(this.token(op), "operator"));
      const word = this.pos;
      while (/[A-Za-z0-9_./-]/.test(this.src[this.pos] ?? "")) this.pos++;
      if (this.pos > word) children.push(this.node("word", true, word, this.pos));
      if (this.code() !== Ch.CloseBrace) this.decline();
    }
    children.push(this.token("}"));
    return this.node("expansion", true, start, this.pos, children);
  }

  // ---- compound commands

  private forStatement(): SyntaxNode {
    const start = this.pos;
    const children = [this.token("for")];
    this.skipBlanks();
    const name = this.pos;
    if (isDigit(this.code())) this.decline();
    while (isWordChar(this.code())) this.pos++;
    if (this.pos === name || !isBlank(this.code())) this.decline();
    children.push(this.node("variable_name", true, name, this.pos));
    this.skipBlanks();
    children.push(this.expectKeyword("in"));
    let values = 0;
    for (;;) {
      this.skipBlanks();
      if (!this.atLiteralStart()) break;
      const value = this.literal();
      if (value.type === "word" && RESERVED.has(value.text)) this.decline();
      children.push(value);
      values++;
    }
    if (values === 0) this.decline();
    this.terminator(children);
    this.skipSpace(undefined);
    children.push(this.doGroup());
    return this.node("for_statement", true, start, this.pos, children);
  }

  /** The `;` or newline after a clause (`for … in a b;`), before `do`. */
  private terminator(into: SyntaxNode[]): void {
    const c = this.code();
    if (c === Ch.Semi && this.code(this.pos + 1) !== Ch.Semi && this.code(this.pos + 1) !== Ch.Amp) into.push(this.token(";"));
    else if (c === Ch.Newline) this.pos++;
    else this.decline();
  }

  private doGroup(): SyntaxNode {
    const start = this.pos;
    const children = this.statements(UNTIL_DONE, [this.expectKeyword("do")]);
    children.push(this.expectKeyword("done"));
    return this.node("do_group", true, start, this.pos, children);
  }

  private whileStatement(): SyntaxNode {
    const start = this.pos;
    const children = this.statements(UNTIL_DO, [this.token(this.atKeyword("while") ? "while" : "until")]);
    children.push(this.doGroup());
    return this.node("while_statement", true, start, this.pos, children);
  }

  private ifStatement(): SyntaxNode {
    const start = this.pos;
    const children = this.statements(UNTIL_THEN, [this.token("if")]);
    children.push(this.expectKeyword("then"));
    this.statements(UNTIL_ELSE, children);
    while (this.atKeyword("elif")) {
      const from = this.pos;
      const clause = this.statements(UNTIL_THEN, [this.token("elif")]);
      clause.push(this.expectKeyword("then"));
      this.statements(UNTIL_ELSE, clause);
      this.clauseEnd();
      children.push(this.node("elif_clause", true, from, lastEnd(clause), clause));
    }
    if (this.atKeyword("else")) {
      const from = this.pos;
      const clause = this.statements(UNTIL_FI, [this.token("else")]);
      this.clauseEnd();
      children.push(this.node("else_clause", true, from, lastEnd(clause), clause));
    }
    children.push(this.expectKeyword("fi"));
    return this.node("if_statement", true, start, this.pos, children);
  }

  /** An `elif`/`else` clause whose last statement ends at a newline takes in the newlines after it. */
  private clauseEnd(): void {
    if (this.endedByNewline) this.decline();
  }

  private caseStatement(): SyntaxNode {
    const start = this.pos;
    const children = [this.token("case")];
    this.skipBlanks();
    if (!this.atLiteralStart()) this.decline();
    children.push(this.literal());
    this.skipBlanks();
    children.push(this.expectKeyword("in"));
    for (;;) {
      this.skipSpace(undefined);
      if (this.atKeyword("esac")) break;
      children.push(this.caseItem());
    }
    children.push(this.token("esac"));
    const after = this.code();
    if (!(Number.isNaN(after) || isBlank(after) || after === Ch.Newline || after === Ch.Semi)) this.decline(); // `esac)` errs there
    return this.node("case_statement", true, start, this.pos, children);
  }

  /** `word)` or `*)`, a body, and `;;`. */
  private caseItem(): SyntaxNode {
    const start = this.pos;
    if (isDigit(this.code())) this.decline();
    while (isWordChar(this.code()) && this.code() !== 95) this.pos++;
    let pattern: SyntaxNode;
    if (this.pos > start) pattern = this.node("word", true, start, this.pos);
    else if (this.code() === Ch.Star) {
      this.pos++;
      pattern = this.node("extglob_pattern", true, start, this.pos);
    } else return this.decline();
    // The pattern's node depends on what follows `)` (`*);;` is a word): a blank, then a body.
    if (this.code() !== Ch.Close || !isBlank(this.code(this.pos + 1))) this.decline();
    const children = this.statements(CASE_BODY, [pattern, this.token(")")]);
    if (children.length === 2) this.decline();
    if (this.code() === Ch.Semi) {
      if (this.code(this.pos + 1) !== Ch.Semi || this.code(this.pos + 2) === Ch.Amp) this.decline();
      children.push(this.token(";;"));
    } else this.decline(); // without `;;` the item's range takes in the newline after it
    return this.node("case_item", true, start, lastEnd(children), children);
  }

  /** `[ x ]`, `[ -f x ]`, `[ a = b ]`, `[ a -eq b ]` and the same in `[[ … ]]`. */
  private testCommand(): SyntaxNode {
    const start = this.pos;
    const double = this.code(start + 1) === Ch.OpenBracket;
    const open = double ? "[[" : "[";
    const close = double ? "]]" : "]";
    const children = [this.token(open)];
    if (!isBlank(this.code())) this.decline();
    const operands: SyntaxNode[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.src.startsWith(close, this.pos)) {
        const after = this.pos + close.length;
        if (after < this.src.length && KEYWORD_END[this.code(after)] !== 1) this.decline();
        break;
      }
      if (!this.atLiteralStart() || operands.length === 3) this.decline();
      operands.push(this.literal());
    }
    const isOperator = (n: SyntaxNode): boolean => n.type === "word" && /^-[a-zA-Z]+$/.test(n.text);
    // Operands that could read as operators (`-x`, `!`, `=`, `(`, `*$n` is `* $n` there) or hold
    // a `#` (a comment there) are left to tree-sitter.
    const plain = (n: SyntaxNode): boolean => !/^[-!=(*+/%<>&|^~]/.test(n.text) && !n.textHasChar("#");
    const [a, b, c] = operands;
    if (a && !b) {
      if (!plain(a)) this.decline();
      children.push(a);
    } else if (a && b && !c) {
      if (!isOperator(a) || !plain(b)) this.decline();
      const op = this.node("test_operator", true, a.startIndex, a.endIndex);
      children.push(this.node("unary_expression", true, a.startIndex, b.endIndex, [op, b]));
    } else if (a && b && c) {
      if (!plain(a) || !plain(c)) this.decline();
      let op: SyntaxNode;
      if (isOperator(b) && b.text.length === 3) op = this.node("test_operator", true, b.startIndex, b.endIndex);
      else if (!double && b.type === "word" && (b.text === "=" || (b.text === "!=" && c.type !== "word"))) op = this.node(b.text, false, b.startIndex, b.endIndex);
      else return this.decline();
      const expr = [this.withField(a, "left"), this.withField(op, "operator"), this.withField(c, "right")];
      children.push(this.node("binary_expression", true, a.startIndex, c.endIndex, expr));
    } else {
      this.decline();
    }
    children.push(this.token(close));
    return this.node("test_command", true, start, this.pos, children);
  }
}

function lastEnd(nodes: readonly SyntaxNode[]): number {
  return (nodes[nodes.length - 1] as SyntaxNode).endIndex;
}

/**
 * The tree of `source` as tree-sitter's bash grammar parses it, or undefined when the source
 * uses anything this parser does not know (then parse it with tree-sitter).
 */
export function fastParseBash(source: string): ParsedScript | undefined {
  if (source.includes("\\") || source.includes("`") || source.includes("<<")) return undefined;
  try {
    return new FastParser(source).program();
  } catch (err) {
    if (err === DECLINE) return undefined;
    throw err;
  }
}
