import { GrepSearchError } from "../types.js";

export interface RegexOptions {
  caseInsensitive: boolean;
  multiline: boolean;
}

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * Compiles a ripgrep (Rust regex) pattern into a JavaScript RegExp for the built-in search:
 * leading inline flags, `(?P<name>…)`, `\A` / `\z`, one-letter `\pL` classes and POSIX
 * `[[:alpha:]]` classes are translated; the rest of the syntax is shared. Always global.
 * An invalid pattern throws a GrepSearchError worded like ripgrep's.
 */
export function compileSearchRegex(pattern: string, options: RegexOptions): RegExp {
  let source = pattern;
  const flags = new Set<string>(["g"]);
  if (options.caseInsensitive) flags.add("i");
  if (options.multiline) {
    flags.add("m");
    flags.add("s");
  }
  for (let m = /^\(\?([imsxU]+)\)/.exec(source); m; m = /^\(\?([imsxU]+)\)/.exec(source)) {
    for (const f of m[1]!) if (f === "i" || f === "m" || f === "s") flags.add(f);
    source = source.slice(m[0].length);
  }
  const translated = translate(source, options.multiline);
  const base = [...flags].join("");
  try {
    return new RegExp(translated, `${base}u`);
  } catch {
    try {
      return new RegExp(translated, base);
    } catch (err) {
      throw new GrepSearchError(`regex parse error:\n    ${pattern}\nerror: ${(err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "")}`);
    }
  }
}

function translate(source: string, multiline: boolean): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === undefined) {
        out += ch;
        continue;
      }
      i++;
      if (next === "n" && !multiline) throw literalNewline();
      if (!inClass && next === "A") out += "^";
      else if (!inClass && next === "z") out += "$";
      else if ((next === "p" || next === "P") && source[i + 1] !== undefined && source[i + 1] !== "{") {
        out += `\\${next}{${source[i + 1]}}`;
        i++;
      } else out += `\\${next}`;
      continue;
    }
    if (ch === "\n" && !multiline) throw literalNewline();
    if (inClass) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(source.slice(i));
      if (posix && POSIX_CLASSES[posix[2]!] !== undefined && posix[1] === "") {
        out += POSIX_CLASSES[posix[2]!];
        i += posix[0].length - 1;
        continue;
      }
      if (ch === "]") inClass = false;
      out += ch;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
      // A `]` right after `[` or `[^` is a literal in both syntaxes.
      if (source[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (source[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (ch === "(" && source.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
      continue;
    }
    out += ch;
  }
  return out;
}

function literalNewline(): GrepSearchError {
  return new GrepSearchError(
    "the literal '\"\\n\"' is not allowed in a regex\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.",
  );
}
