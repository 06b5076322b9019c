// Random bash for the fast parser's differential test (src/shell/fast-parse.test.ts): scripts
// made of the constructs the fast parser knows and of many it does not (backquotes, arithmetic,
// functions, declarations, odd redirects and words), with random one-character edits. `tame`
// keeps to everyday words, so that more of what is generated is parsed by both parsers.

/** A generator of scripts drawn with `r` (a PRNG returning [0, 1)). */
export function bashGenerator(r: () => number, tame = false): () => string {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  const TAME_WORDS = ["ls", "-l", "--name=x", "a.b", "123", "-5", "*.ts", "src/*.ts", "x=y", "-", "--", ".", "README.md", "-n", "HEAD~1", "a:b", "%s", "+x", "http://h:80/x", "-1", "1.5", "a#b", "!"];
  const WORDS = tame ? TAME_WORDS : ["ls", "-l", "--name=x", "a.b", "123", "-5", "0x1f", "x=y", "!", "*.ts", "~/x", "a#b", "%", "+", ":", "@", ",", "-", "--", "src/*.ts", "http://h:80/x", "a=b=c", "07", "-0x5", "1.5", "5#3", "==", "=~", "=", "!=", "-eq", "-f", "-n", "done", "do", "in", "fi", "then", "esac", "{}", "{", "}", "[", "]", "a[1]", "\\", "\\x", "?", "^", ".", "..", "-x", "-2", "2", "12"];
  const NAMES = ["x", "f", "_a", "A1", "1", "10", "count"];
  const SPECIALS = ["?", "@", "#", "$", "!", "*", "-", "_"];
  const TAME_CMDS = ["echo", "git", "grep", "cat", "wc", "jq", "ls", "x", "true", "cd", "time", "sed", "find"];
  const CMDS = tame ? TAME_CMDS : ["echo", "git", "grep", "cat", "wc", "jq", "ls", "x", "true", "[", "test", "export", "local", "declare", "unset", "!", "time", "cd"];
  function dollar(d: number): string {
    switch (Math.floor(r() * 9)) {
      case 0: return "$" + pick(NAMES);
      case 1: return "$" + pick(SPECIALS);
      case 2: return "${" + pick(NAMES) + "}";
      case 3: return "${" + pick(NAMES) + pick([":-", "-", ":=", "=", ":+", "+", ":?", "?", "#", "%", "/", ":"]) + pick(["", "x", ".", "a/b", "$y", "1"]) + "}";
      case 4: return d > 2 ? "$x" : "$(" + statements(d + 1) + ")";
      case 5: return "${#" + pick(NAMES) + "}";
      case 6: return "$((1+2))";
      case 7: return "$";
      default: return "$" + pick(NAMES) + pick(["", "x", "_", "."]);
    }
  }
  function string(d: number): string {
    let s = '"';
    const n = Math.floor(r() * 4);
    for (let i = 0; i < n; i++) {
      const k = Math.floor(r() * 7);
      if (k === 0) s += dollar(d);
      else if (k === 1) s += pick(["\n", "\n  ", " ", "  a", "a\n\nb", "\t"]);
      else if (k === 2) s += tame ? "z" : pick(["$", "`x`", "\\\"", "é"]);
      else s += pick(["a b", "files: ", "x", "-", "*", "#c", "'", "{}", "[x]", ";", "|"]);
    }
    return s + '"';
  }
  function piece(d: number): string {
    const k = Math.floor(r() * 10);
    if (k < 4) return pick(WORDS);
    if (k < 6) return dollar(d);
    if (k === 6) return string(d);
    if (k === 7) return "'" + pick(["x", "a b", "{print $1}", "", "a\nb", "$x"]) + "'";
    if (k === 8) return tame ? pick(["x", "y.z", "-q"]) : pick(["$'x'", '$"x"', "`pwd`", "<(ls)", "{a,b}", "{1..3}", "é"]);
    return pick(["a", "b", "#c", "1", "-1"]);
  }
  function word(d: number): string {
    const n = r() < 0.8 ? 1 : 2 + Math.floor(r() * 2);
    let s = "";
    for (let i = 0; i < n; i++) s += piece(d);
    return s;
  }
  function redirect(): string {
    if (tame) return pick([">", ">>", "<", "2>", "2>&", ">&", "&>"]) + pick(["", " "]) + pick(["f", "/dev/null", "1", "2", "out.txt", "$f", '"x y"']);
    return pick([">", ">>", "<", "2>", "2>&", ">&", "&>", "&>>", "1>", "<&", ">|", "2>>", "<<<", "<<", ">&-", "3<"]) + pick(["", " "]) + pick(["f", "/dev/null", "1", "2", "out.txt", "$f", '"x y"', "-"]);
  }
  function command(d: number): string {
    const parts: string[] = [];
    if (r() < 0.2) parts.push(pick(["x", "A", "_b", "1x", "a"]) + pick(["=", "+="]) + pick(["", "1", "v", "$y", '"a b"', "$(ls)", "(a b)", "#x", "a=b"]));
    if (r() < 0.1) parts.push(pick(["y=2", "z="]));
    if (r() < 0.85 || parts.length === 0) {
      if (r() < 0.05) parts.push(redirect());
      parts.push(r() < 0.7 ? pick(CMDS) : word(d));
      const n = Math.floor(r() * 4);
      for (let i = 0; i < n; i++) parts.push(word(d));
    }
    let s = parts.join(pick([" ", " ", "  ", "\t"]));
    while (r() < 0.2) s += pick([" ", ""]) + redirect() + (r() < 0.2 ? " " + word(d) : "");
    return s;
  }
  function test(): string {
    const open = r() < 0.5 ? "[" : "[[";
    const close = open === "[" ? "]" : "]]";
    const k = Math.floor(r() * 4);
    const w = (): string => pick(["x", '"$a"', "$n", "1", "-x", "'a'", "b*", '"b"', "=", "(", "!"]);
    let inner: string;
    if (k === 0) inner = w();
    else if (k === 1) inner = pick(["-f", "-n", "-z", "-d", "!", "-eq"]) + " " + w();
    else if (k === 2) inner = w() + " " + pick(["=", "!=", "==", "-eq", "-lt", "-nt", "=~", "<", "-a", "-o", "&&"]) + " " + w();
    else inner = w() + " " + w() + " " + w() + " " + w();
    return open + " " + inner + pick([" ", ""]) + close;
  }
  function compound(d: number): string {
    const body = (): string => statements(d + 1, true);
    switch (Math.floor(r() * 8)) {
      case 0: return `for ${pick(["f", "x", "1", "_i"])} in ${word(d)} ${word(d)}${pick([";", "\n", " ;", ""])} do ${body()} done`;
      case 1: return `${pick(["while", "until"])} ${body()} do ${body()} done`;
      case 2: return `if ${body()} then ${body()}${r() < 0.3 ? ` elif ${body()} then ${body()}` : ""}${r() < 0.5 ? ` else ${body()}` : ""} fi`;
      case 3: {
        let s = `case ${word(d)} in`;
        const n = 1 + Math.floor(r() * 3);
        for (let i = 0; i < n; i++) s += pick([" ", "\n  "]) + pick(["a", "start", "*", "-h", "*.txt", "a|b", "(c", "1", "x_y"]) + ")" + pick([" ", ""]) + (r() < 0.8 ? statements(d + 1) : "") + pick([";;", " ;;", ";", ";&", ""]);
        return s + pick([" ", "\n"]) + "esac";
      }
      case 4: return `{ ${body()} }`;
      case 5: return `(${statements(d + 1)})`;
      case 6: return test();
      default: return tame ? `{ ${body()} }` : `${pick(["f", "g"])}() { ${body()} }`;
    }
  }
  function element(d: number): string {
    return d < 3 && r() < 0.25 ? compound(d) : command(d);
  }
  function chain(d: number): string {
    let s = element(d);
    while (r() < 0.35) s += (tame ? pick([" | ", " && ", " || ", "|", " &&\n", " |\n"]) : pick([" | ", " && ", " || ", "|", " |& ", " &&\n", " | # c\n"])) + element(d);
    return s;
  }
  function statements(d: number, terminated = false): string {
    const n = 1 + Math.floor(r() * (d === 0 ? 4 : 2));
    let s = "";
    for (let i = 0; i < n; i++) {
      if (r() < 0.1) s += pick(["# comment\n", "  # x\n", "\n"]);
      s += chain(d);
      const last = i === n - 1;
      if (!last || terminated || r() < 0.3) s += tame ? pick(["; ", "\n", " &\n", ";", " # t\n", "\n\n"]) : pick(["; ", "\n", " &\n", ";", " # t\n", ";;", "&", "\n\n"]);
    }
    return s;
  }
  return () => {
    let s = statements(0);
    if (!tame && r() < 0.15) {
      // a random one-character edit
      const i = Math.floor(r() * (s.length + 1));
      const k = r();
      if (k < 0.4) s = s.slice(0, i) + s.slice(i + 1);
      else s = s.slice(0, i) + pick([";", "|", "&", "(", ")", "{", "}", '"', "'", "$", " ", "\n", "#", "=", ">", "<", "!", "*", "]", "["]) + s.slice(i);
    }
    if (r() < 0.1) s = pick([" ", "\n", "  \n"]) + s;
    if (r() < 0.1) s += pick([" ", "\n", " \n"]);
    return s;
  };
}
