// An awk program is read-only when it cannot run commands or write files: no `system()`,
// no pipes (`print | "sh"`, `"cmd" | getline`), no output redirection in print statements,
// no `getline` (it reads other files), no gawk `@include`/`@load`/indirect calls.

/** Returns undefined when the program is read-only, else why not. */
export function awkProgramObjection(program: string): string | undefined {
  // Searched in the whole text, strings and regexes included: a false alarm only costs a prompt.
  const word = /\b(system|getline)\b|@/.exec(program);
  if (word) return word[0] === "@" ? "gawk @-directives and indirect calls are not read-only" : `awk ${word[0]} runs commands or reads other files`;
  let i = 0;
  let inPrint = false;
  let printDepth = 0;
  let depth = 0;
  /** Whether a `/` here starts a regex (after an operator) rather than dividing. */
  let regexAllowed = true;
  const n = program.length;
  while (i < n) {
    const c = program[i] as string;
    if (c === '"') {
      i++;
      while (i < n && program[i] !== '"') i += program[i] === "\\" ? 2 : 1;
      i++;
      regexAllowed = false;
      continue;
    }
    if (c === "/" && regexAllowed) {
      i++;
      let inBracket = false;
      while (i < n && (program[i] !== "/" || inBracket)) {
        if (program[i] === "\\") i++;
        else if (program[i] === "[") inBracket = true;
        else if (program[i] === "]") inBracket = false;
        else if (program[i] === "\n") return "awk regular expression not understood";
        i++;
      }
      i++;
      regexAllowed = false;
      continue;
    }
    if (c === "#") {
      while (i < n && program[i] !== "\n") i++;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_]/.test(program[j] as string)) j++;
      const ident = program.slice(i, j);
      if (ident === "system") return "awk system() runs a shell command";
      if (ident === "getline") return "awk getline reads commands or other files";
      if (ident === "print" || ident === "printf") {
        inPrint = true;
        printDepth = depth;
      }
      i = j;
      regexAllowed = ident === "print" || ident === "printf" || ident === "return" || ident === "in";
      continue;
    }
    if (c === "@") return "gawk @-directives and indirect calls are not read-only";
    if (c === "|") {
      if (program[i + 1] === "|") {
        i += 2;
        regexAllowed = true;
        continue;
      }
      return "awk pipe runs a shell command";
    }
    if (c === ">" && inPrint && depth === printDepth) return "awk print redirection writes a file";
    if (c === "(" || c === "[") depth++;
    if (c === ")" || c === "]") depth--;
    if (c === ";" || c === "\n" || c === "{" || c === "}") inPrint = false;
    // A regex may only follow these; after anything else `/` divides.
    if (c !== " " && c !== "\t") regexAllowed = /[(,~!{};\n&|]/.test(c);
    i++;
  }
  return undefined;
}
