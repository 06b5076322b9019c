// A GNU sed script is read-only when it only prints, deletes and substitutes. Rather than
// looking for dangerous commands (the approach behind CVE-2025-64755), this scanner accepts
// only a known-safe subset and rejects everything else: `w`/`W`/`e`/`r`/`R` commands, the
// `w` and `e` flags of `s`, and anything it does not recognise.

const SIMPLE_COMMANDS = new Set(["=", "d", "D", "g", "G", "h", "H", "l", "n", "N", "p", "P", "x", "z", "F"]);
const SAFE_S_FLAGS = /^[gpiImM0-9]$/;

export interface SedFiles {
  writes: string[];
  reads: string[];
}

/**
 * Returns undefined when the script is read-only, else why not. Files named by `w`, `W`,
 * `s///w`, `r` and `R` are added to `files` (scanning goes on past them to find them all).
 */
export function sedScriptObjection(script: string, files: SedFiles = { writes: [], reads: [] }): string | undefined {
  const s = new Scanner(script);
  let objection: string | undefined;
  const note = (reason: string): void => {
    objection ??= reason;
  };
  while (true) {
    s.skip(/[\s;]/);
    if (s.done()) return objection;
    if (s.peek() === "#") {
      s.skipLine();
      continue;
    }
    if (s.peek() === "}") {
      s.next();
      continue;
    }
    if (!s.address()) return "sed address not understood";
    s.skip(/[ \t]/);
    if (s.peek() === ",") {
      s.next();
      s.skip(/[ \t]/);
      if (s.peek() === "+" || s.peek() === "~") s.next();
      if (!s.address(true)) return "sed address not understood";
    }
    s.skip(/[ \t]/);
    while (s.peek() === "!") {
      s.next();
      s.skip(/[ \t]/);
    }
    const c = s.next();
    if (c === undefined) return "sed script ends after an address";
    if (c === "{") continue;
    if (SIMPLE_COMMANDS.has(c)) {
      if (c === "l") {
        s.skip(/[ \t]/);
        s.skip(/[0-9]/);
      }
    } else if (c === "q" || c === "Q") {
      s.skip(/[ \t]/);
      s.skip(/[0-9]/);
    } else if (c === ":") {
      s.skip(/[ \t]/);
      if (!s.label()) return "sed label missing";
    } else if (c === "b" || c === "t" || c === "T") {
      s.skip(/[ \t]/);
      s.label();
    } else if (c === "a" || c === "i" || c === "c") {
      s.skipText();
      continue;
    } else if (c === "s") {
      const flag = s.substitute();
      if (flag === "e") note("sed s///e runs the pattern space as a shell command");
      else if (flag === "w") {
        note("sed s///w writes a file");
        files.writes.push(s.restOfLine());
        continue;
      } else if (flag !== undefined) return flag;
    } else if (c === "y") {
      const delim = s.next();
      if (delim === undefined || delim === "\n" || delim === "\\") return "sed y command not understood";
      if (!s.delimited(delim) || !s.delimited(delim)) return "sed y command not understood";
    } else if (c === "v") {
      s.label();
    } else if (c === "w" || c === "W") {
      note(`sed '${c}' command writes a file`);
      files.writes.push(s.restOfLine());
      continue;
    } else if (c === "e") {
      note("sed 'e' command runs a shell command");
      s.restOfLine();
      continue;
    } else if (c === "r" || c === "R") {
      note(`sed '${c}' command reads another file`);
      files.reads.push(s.restOfLine());
      continue;
    } else {
      return `sed command '${c}' is not known to be read-only`;
    }
    s.skip(/[ \t]/);
    const end = s.peek();
    if (end !== undefined && end !== ";" && end !== "\n" && end !== "}" && end !== "#") {
      return `unexpected text after sed command '${c}'`;
    }
  }
}

class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }
  peek(): string | undefined {
    return this.s[this.i];
  }
  next(): string | undefined {
    return this.s[this.i++];
  }
  skip(re: RegExp): void {
    while (!this.done() && re.test(this.s[this.i] as string)) this.i++;
  }
  skipLine(): void {
    while (!this.done() && this.s[this.i] !== "\n") this.i++;
  }

  /** Text of a/i/c: up to an unescaped newline. */
  skipText(): void {
    while (!this.done()) {
      const c = this.s[this.i++];
      if (c === "\\") this.i++;
      else if (c === "\n") return;
    }
  }

  /** A label runs to a newline or semicolon. */
  label(): boolean {
    const start = this.i;
    while (!this.done() && this.s[this.i] !== "\n" && this.s[this.i] !== ";") this.i++;
    return this.i > start;
  }

  /** Optional address: number, `first~step`, `$`, `/re/`, `\cREc`, each with I/M flags for regexes. */
  address(required = false): boolean {
    const c = this.peek();
    if (c !== undefined && /[0-9]/.test(c)) {
      this.skip(/[0-9]/);
      if (this.peek() === "~") {
        this.next();
        this.skip(/[0-9]/);
      }
      return true;
    }
    if (c === "$") {
      this.next();
      return true;
    }
    if (c === "/" || c === "\\") {
      this.next();
      const delim = c === "/" ? "/" : this.next();
      if (delim === undefined || delim === "\n") return false;
      if (!this.delimited(delim)) return false;
      this.skip(/[IM]/);
      return true;
    }
    return !required;
  }

  /** Reads up to the unescaped `delim`, consuming it. */
  delimited(delim: string): boolean {
    while (!this.done()) {
      const c = this.s[this.i++];
      if (c === "\\") {
        this.i++;
        continue;
      }
      if (c === delim) return true;
    }
    return false;
  }

  /** Reads `s/re/repl/flags`; returns "w" or "e" for those flags (after consuming them), or an objection. */
  substitute(): string | undefined {
    const delim = this.next();
    if (delim === undefined || delim === "\n" || delim === "\\") return "sed s command not understood";
    if (!this.delimited(delim) || !this.delimited(delim)) return "sed s command not understood";
    let e = false;
    while (!this.done()) {
      const f = this.peek() as string;
      if (f === "w") {
        this.next();
        return "w";
      }
      if (f === "e") e = true;
      else if (!SAFE_S_FLAGS.test(f)) break;
      this.next();
    }
    return e ? "e" : undefined;
  }

  /** The file name argument of w/r commands: up to the end of the line. */
  restOfLine(): string {
    this.skip(/[ \t]/);
    const start = this.i;
    this.skipLine();
    return this.s.slice(start, this.i);
  }
}
