// When the grammar cannot parse a command, deny rules must still see what it may run
// (`for x in a; { rm -rf /; }` is valid bash the grammar rejects). This splits the text at
// every operator, parenthesis, brace and substitution boundary — over-splitting on purpose —
// and returns each piece as words. Used only for parses with errors, which are never
// read-only anyway: it widens what deny rules see, it never makes anything allowed.

const RESERVED = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "time", "coproc", "{", "}", "in", "esac", "function", "always"]);
const NOT_COMMANDS = new Set(["for", "case", "select", "repeat", "foreach"]);

/** Word lists of the pieces of `source` that may be commands. */
export function fallbackSegments(source: string): string[][] {
  const segments: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endSegment = (): void => {
    endWord();
    while (words.length > 0 && (RESERVED.has(words[0] as string) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string))) words.shift();
    if (words.length > 0 && !NOT_COMMANDS.has(words[0] as string)) segments.push(words);
    words = [];
  };
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (c === "\\" && i + 1 < source.length) {
      const next = source[++i] as string;
      if (next !== "\n") {
        word += next;
        inWord = true;
      }
      continue;
    }
    // Substitutions start new segments even inside double quotes.
    if (c === "`" || (c === "$" && source[i + 1] === "(") || ((c === "<" || c === ">") && source[i + 1] === "(")) {
      endSegment();
      if (c !== "`") i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === "$" && source[i + 1] === "'") {
      quote = "'";
      inWord = true;
      i++;
      continue;
    }
    // Brace expansion of a whole word: `{rm,-rf,x}` is three words to bash.
    if (c === "{" && !inWord) {
      const brace = /^\{([^\s{}'"$`]*,[^\s{}'"$`]*)\}(?=[\s;&|)]|$)/.exec(source.slice(i));
      if (brace) {
        words.push(...(brace[1] as string).split(",").filter((w) => w !== ""));
        i += brace[0].length - 1;
        continue;
      }
    }
    if (";&|\n()".includes(c) || ((c === "{" || c === "}") && !inWord)) {
      endSegment();
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      endWord();
      continue;
    }
    word += c;
    inWord = true;
  }
  endSegment();
  return segments;
}
