// A tokenizer for GNU sed scripts (sed 4.x compile.c grammar), used to decide whether a script
// is read-only. It accepts only what it fully understands: every command, address, label,
// file name and `s` flag is read exactly as GNU sed reads it, and anything else is an
// objection. Reads are allowed but reported (`r`/`R` name files the permission engine must
// judge); writes (`w`, `W`, `s///w`) and execution (`e`, `s///e`) are objections.
//
// Grammar points that matter (each one a past bypass elsewhere):
// - labels (`:`, `b`, `t`, `T`, `v`) end at a blank, `;`, `}`, `#` or newline, and the next
//   command may follow WITHOUT a separator: `:a w out` is a label then a `w` command;
// - file names (`r R w W`, `s///w`) run to the end of the line, `;` and `}` included;
// - blanks are allowed between `s` flags: `s/a/b/ w out` writes;
// - `a`, `i`, `c` take text to the end of the line (GNU one-line form): `a x;w f` is text;
// - a bracket expression in a regex hides the delimiter: `s/[/]/x/w f`.

import { multibyteHazard } from "./common.js";

export interface SedFiles {
  writes: string[];
  reads: string[];
}

/** Commands that take no argument and print, delete or move text between buffers only. */
const PLAIN_COMMANDS = new Set(["=", "d", "D", "F", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z"]);
/** `w` targets that GNU sed maps to its own standard streams instead of opening a file. */
const OWN_STREAMS = new Set(["/dev/stdout", "/dev/stderr"]);
/** `r` targets that read the standard input, not a file. */
const STDIN_NAMES = new Set(["/dev/stdin"]);

const isBlank = (c: string | undefined): boolean => c === " " || c === "\t";
const isSpace = (c: string | undefined): boolean => c !== undefined && " \t\n\v\f\r".includes(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

class NotUnderstood extends Error {}

/**
 * Returns undefined when the script is read-only, else why not. Files the script names are
 * added to `files`: reads (`r`, `R`) always, writes (`w`, `W`, `s///w`) with their objection.
 * Scanning goes on past write and exec commands so that every file is found.
 */
export function sedScriptObjection(script: string, files: SedFiles = { writes: [], reads: [] }): string | undefined {
  const found: SedFiles = { writes: [], reads: [] };
  let objection: string | undefined = multibyteHazard("sed", script);
  if (objection) return objection;
  try {
    new SedTokenizer(script, found, (reason) => (objection ??= reason)).program();
  } catch (e) {
    if (!(e instanceof NotUnderstood)) throw e;
    objection = e.message;
  }
  files.writes.push(...found.writes);
  files.reads.push(...found.reads);
  return objection;
}

class SedTokenizer {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly files: SedFiles,
    private readonly note: (reason: string) => void,
  ) {}

  private fail(why: string): never {
    throw new NotUnderstood(`sed script not understood: ${why}`);
  }
  private peek(): string | undefined {
    return this.s[this.i];
  }
  private next(): string | undefined {
    return this.s[this.i++];
  }
  /** GNU `in_nonblank`: the next character that is not a space or tab. */
  private nonBlank(): string | undefined {
    while (isBlank(this.peek())) this.i++;
    return this.next();
  }
  private unread(c: string | undefined): void {
    if (c !== undefined) this.i--;
  }

  program(): void {
    while (true) {
      while (this.peek() === ";" || isSpace(this.peek())) this.i++;
      const c = this.next();
      if (c === undefined) return;
      this.command(c);
    }
  }

  private command(first: string): void {
    let c: string | undefined = first;
    let addresses = 0;
    if (this.address(c, false)) {
      addresses = 1;
      c = this.nonBlank();
      if (c === ",") {
        if (!this.address(this.nonBlank(), true)) this.fail("a second address is missing after `,`");
        addresses = 2;
        c = this.nonBlank();
      }
    }
    if (c === "!") {
      c = this.nonBlank();
      if (c === "!") this.fail("multiple `!`");
    }
    if (c === undefined) this.fail("a command is missing");
    switch (c) {
      case "#":
        if (addresses > 0) this.fail("a comment after an address");
        while (this.peek() !== undefined && this.peek() !== "\n") this.i++;
        return;
      case "{":
        return;
      case "}":
        if (addresses > 0) this.fail("`}` with an address");
        this.endOfCommand(c);
        return;
      case ":":
        if (addresses > 0) this.fail("`:` with an address");
        if (this.label() === "") this.fail("`:` without a label");
        return;
      case "b":
      case "t":
      case "T":
      case "v":
        this.label();
        return;
      case "q":
      case "Q":
      case "l": {
        const d = this.nonBlank();
        if (isDigit(d)) while (isDigit(this.peek())) this.i++;
        else this.unread(d);
        this.endOfCommand(c);
        return;
      }
      case "a":
      case "i":
      case "c":
        this.text(this.nonBlank());
        return;
      case "e": {
        const d = this.nonBlank();
        this.note(d === undefined || d === "\n" ? "sed 'e' runs the pattern space as a shell command" : "sed 'e' runs a shell command");
        if (d !== undefined && d !== "\n") this.text(d);
        return;
      }
      case "r":
      case "R": {
        const name = this.fileName();
        if (!STDIN_NAMES.has(name)) this.files.reads.push(name);
        return;
      }
      case "w":
      case "W":
        this.write(`sed '${c}' writes a file`);
        return;
      case "s":
        this.substitute();
        return;
      case "y": {
        const delim = this.delimiter();
        this.delimited(delim, false);
        this.delimited(delim, false);
        this.endOfCommand(c);
        return;
      }
      default:
        if (PLAIN_COMMANDS.has(c)) {
          this.endOfCommand(c);
          return;
        }
        this.fail(`unknown command \`${c === "\n" ? "\\n" : c}\``);
    }
  }

  /** GNU `compile_address`: `/re/` or `\cREc` with I/M flags, `N`, `N~S`, `$`, and (second only) `+N`, `~N`. */
  private address(c: string | undefined, second: boolean): boolean {
    if (c === "/" || c === "\\") {
      const delim = c === "/" ? "/" : this.delimiter();
      this.delimited(delim, true);
      while (true) {
        const f = this.nonBlank();
        if (f !== "I" && f !== "M") {
          this.unread(f);
          return true;
        }
      }
    }
    if (isDigit(c)) {
      while (isDigit(this.peek())) this.i++;
      const t = this.nonBlank();
      if (t === "~") {
        const d = this.nonBlank();
        this.unread(d);
        while (isDigit(this.peek())) this.i++;
      } else this.unread(t);
      return true;
    }
    if (c === "+" || c === "~") {
      if (!second) this.fail("`+N` or `~N` as the first address");
      const d = this.nonBlank();
      this.unread(d);
      while (isDigit(this.peek())) this.i++;
      return true;
    }
    return c === "$";
  }

  /** GNU `read_end_of_cmd`: blanks, then `;`, newline, end, or (left for the loop) `}` / `#`. */
  private endOfCommand(command: string): void {
    const c = this.nonBlank();
    if (c === "}" || c === "#") this.unread(c);
    else if (c !== undefined && c !== "\n" && c !== ";") this.fail(`extra characters after \`${command}\``);
  }

  /** GNU `read_label`: after blanks, up to a blank, `;`, `}`, `#` or newline (which stays unread). */
  private label(): string {
    const c = this.nonBlank();
    this.unread(c);
    const start = this.i;
    while (this.peek() !== undefined && !isBlank(this.peek()) && !";}#\n".includes(this.peek() as string)) this.i++;
    return this.s.slice(start, this.i);
  }

  /** a/i/c (and `e cmd`) text: after an optional `\`, up to an unescaped newline. */
  private text(lead: string | undefined): void {
    if (lead === undefined) this.fail("`a`, `i` or `c` without text");
    // After `\`, GNU takes the next character as it is (a newline, or the first of the text).
    if (lead !== "\\") this.unread(lead);
    else this.next();
    while (true) {
      const c = this.next();
      if (c === undefined || c === "\n") return;
      if (c === "\\") this.next();
    }
  }

  /** GNU `read_filename`: after blanks, everything to the end of the line. */
  private fileName(): string {
    while (isBlank(this.peek())) this.i++;
    const start = this.i;
    while (this.peek() !== undefined && this.peek() !== "\n") this.i++;
    const name = this.s.slice(start, this.i);
    if (name === "") this.fail("a file name is missing");
    return name;
  }

  private write(reason: string): void {
    const name = this.fileName();
    if (OWN_STREAMS.has(name)) return;
    this.files.writes.push(name);
    this.note(reason);
  }

  private delimiter(): string {
    const d = this.next();
    if (d === undefined || d === "\n" || d === "\\") this.fail("a missing or unusable delimiter");
    if (d.charCodeAt(0) > 0x7f) this.fail("a delimiter that is not a single-byte character");
    return d;
  }

  /** GNU `match_slash`: up to the unescaped delimiter; in a regex, `[...]` hides it. */
  private delimited(delim: string, regex: boolean): void {
    while (true) {
      const c = this.next();
      if (c === undefined || c === "\n") this.fail("an unterminated regex, replacement or `y` string");
      if (c === delim) return;
      if (c === "\\") {
        if (this.next() === undefined) this.fail("a backslash at the end of the script");
      } else if (c === "[" && regex) this.bracket();
    }
  }

  /** GNU `snarf_char_class`: a bracket expression, with `[:class:]`, `[.coll.]`, `[=equiv=]` inside. */
  private bracket(): void {
    if (this.peek() === "^") this.i++;
    if (this.peek() === "]") this.i++;
    let state = 0;
    let open = "";
    while (true) {
      const c = this.next();
      if (c === undefined || c === "\n") this.fail("an unterminated bracket expression");
      if (c === "." || c === ":" || c === "=") {
        if (state === 1) {
          open = c;
          state = 2;
          continue;
        }
        if (state === 2 && c === open) {
          state = 3;
          continue;
        }
      } else if (c === "[") {
        if (state === 0) state = 1;
        continue;
      } else if (c === "]") {
        if (state === 0 || state === 1) return;
        if (state === 3) state = 0;
      }
      state &= ~1;
    }
  }

  private substitute(): void {
    const delim = this.delimiter();
    this.delimited(delim, true);
    this.delimited(delim, false);
    let printed = false;
    let global = false;
    let numbered = false;
    while (true) {
      const f = this.nonBlank();
      if (f === "i" || f === "I" || f === "m" || f === "M") continue;
      if (f === "e") {
        this.note("sed s///e runs the pattern space as a shell command");
        continue;
      }
      if (f === "p" || f === "g") {
        if (f === "p" ? printed : global) this.fail(`multiple \`${f}\` flags`);
        if (f === "p") printed = true;
        else global = true;
        continue;
      }
      if (isDigit(f)) {
        if (numbered) this.fail("multiple number flags");
        numbered = true;
        while (isDigit(this.peek())) this.i++;
        continue;
      }
      if (f === "w") {
        this.write("sed s///w writes a file");
        return;
      }
      if (f === "}" || f === "#") {
        this.unread(f);
        return;
      }
      if (f === undefined || f === "\n" || f === ";") return;
      if (f === "\r" && this.peek() === "\n") {
        this.i++;
        return;
      }
      this.fail(`unknown flag \`${f}\` to \`s\``);
    }
  }
}
