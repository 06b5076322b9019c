// jq: its command line (jq's own argument parser, not getopt: exact long names, clustered
// short letters, `--arg NAME VALUE` taking two words) and a tokenizer for its programs.
// jq cannot run commands or write files; what it can do beyond its operands is read:
// `--rawfile`/`--slurpfile` files (reported as reads for the permission engine), and modules
// (`import`, `include`, `modulemeta`, `-L`/`--library-path`, a program from `-f`), which are
// objections: their files are found on a search path at run time.
// `env` and `$ENV` read environment variables; like `printenv` (read-only in this analysis)
// they are allowed. `input`/`inputs` read the operands, `debug`/`stderr`/`halt_error` write to
// stderr, `input_filename` and `$__loc__` only name things, `@sh` only formats: all allowed.
import { multibyteHazard } from "./common.js";
import type { Word } from "../words.js";

/** Short options without a value (jq 1.6 and 1.7). */
const SHORT_FLAGS = new Set("srjacCMSenRhV".split(""));
const LONG_FLAGS = new Set([
  "--slurp", "--raw-output", "--join-output", "--ascii-output", "--color-output", "--monochrome-output",
  "--sort-keys", "--exit-status", "--null-input", "--raw-input", "--compact-output", "--help", "--version",
  "--tab", "--seq", "--stream", "--stream-errors", "--unbuffered", "--raw-output0", "--build-configuration",
  "--debug-dump-disasm", "--debug-trace", "--debug-trace=all",
]);
/** Long options and how many words they take. */
const LONG_VALUED = new Map([["--arg", 2], ["--argjson", 2], ["--indent", 1], ["--rawfile", 2], ["--slurpfile", 2]]);
/** Names that load modules from a search path. */
const MODULE_WORDS = new Set(["import", "include", "modulemeta", "module"]);

export interface JqInvocation {
  program?: string;
  /** Files jq reads: input operands and `--rawfile`/`--slurpfile` files. */
  reads: string[];
  objection?: string;
}

/** Parses a jq command line (`words[0]` is `jq`) the way jq's main() does. */
export function parseJqCommand(words: readonly Word[]): JqInvocation {
  const out: JqInvocation = { reads: [] };
  const object = (why: string): void => {
    out.objection ??= why;
  };
  let positionalArgs = false;
  let fromFile = false;
  let optionsDone = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as Word;
    const t = w.text;
    if (!w.isStatic) object(`jq argument ${w.raw} is not static and may expand to an option`);
    if (!optionsDone && t === "--") {
      optionsDone = true;
    } else if (!optionsDone && t.startsWith("--")) {
      const takes = LONG_VALUED.get(t);
      if (takes !== undefined) {
        const file = words[i + 2]?.text;
        if ((t === "--rawfile" || t === "--slurpfile") && file !== undefined) out.reads.push(file);
        if (i + takes >= words.length) object(`jq ${t} is missing its value`);
        i += takes;
      } else if (t === "--args" || t === "--jsonargs") positionalArgs = true;
      else if (t === "--from-file") fromFile = true;
      else if (t === "--library-path") object("jq --library-path loads modules");
      else if (t === "--run-tests") object("jq --run-tests reads a test file");
      else if (!LONG_FLAGS.has(t)) object(`jq option ${t} is not known to be read-only`);
    } else if (!optionsDone && t.startsWith("-") && t !== "-") {
      const letters = t.slice(1);
      for (const [k, letter] of [...letters].entries()) {
        if (letter === "L") {
          object("jq -L loads modules");
          // `-Ldir` or `-L dir`: the directory is not an operand.
          if (k === letters.length - 1) i++;
          break;
        }
        else if (letter === "f") fromFile = true;
        else if (!SHORT_FLAGS.has(letter)) object(`jq option -${letter} is not known to be read-only`);
      }
    } else if (out.program === undefined) out.program = t;
    else if (!positionalArgs && t !== "-") out.reads.push(t);
  }
  if (fromFile) {
    // The first operand names the program file: read, and its program cannot be seen here.
    object("jq -f takes its program from a file");
    if (out.program !== undefined) out.reads.unshift(out.program);
  } else if (out.program !== undefined) {
    const objection = jqProgramObjection(out.program);
    if (objection) object(objection);
  }
  return out;
}

/** Returns undefined when a jq command is read-only, else why not. */
export function jqCommandObjection(words: readonly Word[]): string | undefined {
  return parseJqCommand(words).objection;
}

/** Files a jq command reads (operands, `--rawfile`, `--slurpfile`). */
export function jqReadTargets(words: readonly Word[]): string[] {
  return parseJqCommand(words).reads;
}

class NotUnderstood extends Error {}

/** Returns undefined when the jq program is understood and loads no module, else why not. */
export function jqProgramObjection(program: string): string | undefined {
  const hazard = multibyteHazard("jq", program);
  if (hazard) return hazard;
  try {
    return new JqLexer(program).run();
  } catch (e) {
    if (!(e instanceof NotUnderstood)) throw e;
    return e.message;
  }
}

const OPERATORS = ["?//=", "?//", "//=", "|=", "+=", "-=", "*=", "/=", "%=", "==", "!=", "<=", ">=", "//", ".."];

class JqLexer {
  private i = 0;
  constructor(private readonly s: string) {}

  private fail(why: string): never {
    throw new NotUnderstood(`jq program not understood: ${why}`);
  }

  run(): string | undefined {
    const objection = this.code(false);
    if (this.i < this.s.length) this.fail("an unmatched `)`");
    return objection;
  }

  /** Tokens up to the end (or, inside `\(…)`, up to the matching `)`); the first objection found. */
  private code(interpolation: boolean): string | undefined {
    let objection: string | undefined;
    let depth = 0;
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i] as string;
      if (" \t\r\n".includes(c)) {
        this.i++;
      } else if (c === "#") {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
        // jq 1.7.1 continues a comment after an odd number of backslashes; 1.6 does not.
        if (/\\\r?$/.test(s.slice(0, this.i))) this.fail("a comment ending in a backslash");
      } else if (c === '"') {
        const inner = this.string();
        objection ??= inner;
      } else if (/[A-Za-z_]/.test(c)) {
        const field = s[this.i - 1] === "." && s[this.i - 2] !== ".";
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i)) as RegExpExecArray;
        this.i += m[0].length;
        if (s.startsWith("::", this.i)) this.fail("a module-qualified name");
        if (!field && MODULE_WORDS.has(m[0])) objection ??= `jq ${m[0]} loads modules from a search path`;
      } else if (c === "$") {
        const m = /^\$(?:__loc__|[A-Za-z_][A-Za-z0-9_]*)/.exec(s.slice(this.i));
        if (!m) this.fail("`$` without a name");
        this.i += m[0].length;
        if (s.startsWith("::", this.i)) this.fail("a module-qualified variable");
      } else if (c === "@") {
        const m = /^@[A-Za-z0-9_]+/.exec(s.slice(this.i));
        if (!m) this.fail("`@` without a format name");
        this.i += m[0].length;
      } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(s[this.i + 1] ?? ""))) {
        const m = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(s.slice(this.i)) as RegExpExecArray;
        this.i += m[0].length;
      } else if (c === "(") {
        depth++;
        this.i++;
      } else if (c === ")") {
        if (depth === 0) {
          if (interpolation) return objection;
          this.fail("an unmatched `)`");
        }
        depth--;
        this.i++;
      } else {
        const op = OPERATORS.find((o) => s.startsWith(o, this.i));
        if (op) this.i += op.length;
        else if (".[]{},:;|+-*/%=<>?".includes(c)) this.i++;
        else this.fail(`unexpected character ${JSON.stringify(c)}`);
      }
    }
    if (interpolation) this.fail("an unterminated string interpolation");
    if (depth > 0) this.fail("an unmatched `(`");
    return objection;
  }

  /** A string literal; `\(…)` holds code, which is lexed too. */
  private string(): string | undefined {
    let objection: string | undefined;
    this.i++;
    while (true) {
      const c = this.s[this.i++];
      if (c === undefined) this.fail("an unterminated string");
      if (c === '"') return objection;
      if (c !== "\\") continue;
      const e = this.s[this.i++];
      if (e === "(") {
        const inner = this.code(true);
        objection ??= inner;
        this.i++;
      } else if (e === "u") {
        if (!/^[0-9A-Fa-f]{4}/.test(this.s.slice(this.i))) this.fail("a bad \\u escape");
        this.i += 4;
      } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail("a bad escape in a string");
    }
  }
}
