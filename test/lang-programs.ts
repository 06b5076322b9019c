// Seeded, grammar-based generators of sed, awk and jq programs for the differential tests of
// the embedded-language tokenizers: safe constructs, write/exec/read constructs, and the
// lexical traps (regex vs division, newlines after commas, labels followed by commands,
// `}` inside strings and regexes, escaped and alternate delimiters, comments).

import { rng } from "./fuzz/mutate.js";

export { rng };

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const some = (r: Rand, min: number, max: number, make: () => string): string[] =>
  Array.from({ length: min + Math.floor(r() * (max - min + 1)) }, make);

// ---- sed ----

const SED_ADDRESSES = ["", "", "", "1", "2,3", "$", "/a/", "\\,a,", "/A/I", "0~2", "1,+1", "/[/]/", "/x\\/y/", "1!", " 2 ! ", "/pwn/,$", "$!"];
const SED_SAFE = [
  "p", "d", "=", "l", "l 5", "n", "N", "g", "G", "h", "H", "x", "z", "F", "q", "Q", "q 3",
  "s/a/b/", "s/a/b/g", "s|a|b|2", "s,a,b,p", "y/ab/ba/", "s/[/]/X/", "s/x\\/y/z/", "s/a/}/", "s/a/#/g",
  "s/a/b/ ; p", "s/a/b/I", "s/[[:alpha:]]/X/2", "s/\\(a\\)/\\1\\n/", "s/[]/]/x/",
  ":x1", ": x2", "b lbl", "t lbl", "T", "b", "{p}", "{ s/a/b/ ; p }", "a text", "i\\\ntext", "c\\",
  "a foo;w out1", "a\\", "# comment w out2", "#n", "r secret.txt", "R secret.txt", "r /dev/stdin",
  "w /dev/stdout", "s/a/b/w /dev/stderr", "v", "v 4.2",
];
const SED_DANGER = [
  "w out1", "W out2", "s/a/b/w out3", "s/a/b/ w out4", "s/a/pwn/e", "e pwn", "e", "s/.*/pwn/e",
  ":a w out5", ": a w out6", "b lbl w out7", "blbl;w out8", "a\\\\\nw out9", "s|a|b|w out10",
  "s/[/]/x/w out11", "y/a/b/;w out12", "{p};w out13", "s/a/b/ # c\nw out14", "s/a/b/gpw out15",
  "1~2 w out16", "$!{h;d};x;s/a/b/gw out17", "t lbl;e pwn", ":lbl}\ne pwn", "s/a/b/e", "1e pwn x",
  "s/a/b/ e", "s,a,b, w out18",
];
const SED_SEPARATORS = [";", "\n", " ; ", "\n\n", " ;\n", "; "];

export function sedProgram(r: Rand): string {
  const commands = some(r, 1, 4, () => pick(r, SED_ADDRESSES) + (r() < 0.25 ? pick(r, SED_DANGER) : pick(r, SED_SAFE)));
  let script = commands[0] as string;
  for (const c of commands.slice(1)) script += pick(r, SED_SEPARATORS) + c;
  if (r() < 0.15) script = `${pick(r, ["1", "/a/", ""])}{${script}\n}`;
  // Jumps go forward only (a backward `b` would loop for ever).
  if (script.includes("lbl")) script += "\n:lbl";
  return script;
}

// ---- awk ----

const AWK_SAFE = [
  "print $1", "print $1, $2", "n++", "s += $2", "x = $1 / 2", "x = NR / 2 / 1", "if ($1 > 0) print",
  "print ($1 > 2)", "print > \"/dev/stderr\"", "printf \"%s\\n\", $0 > \"/dev/stderr\"", "a[$1] = 1",
  "for (k in a) print k", "getline", "getline line", "print length", "x = length / 2", "y = /pwn/ ? 1 : 0",
  "z = 4; z /= 2", "print \"}\"", "print \"/\"", "gsub(/a/, \"b\")", "print ENVIRON[\"HOME\"]",
  "print substr($0, 2)", "close(\"x\")", "if ($0 ~ /\"/) n++", "print \"a/b\"", "x = 1 /2/ 1",
  "while ((getline line < \"secret.txt\") > 0) print line", "print \"a\",\n\"b\"", "print \"x\" >> \"/dev/stderr\"",
  "if (NR > 1) { print $0 }", "x = (1 > 2)", "print (1 > 2) ? \"y\" : \"n\"", "n = split($0, parts, /,/)",
  "printf(\"%d\\n\", NR)", "print $NF", "x = a[1] / 2", "c = $1 ~ /^[#]/", "fflush()", "x = y++ / 2",
  "# \" system(\"pwn\")", "print 1 # > \"out\"", "do n++; while (n < 3)", "if (x) print; else print \"no\"",
];
const AWK_DANGER = [
  "system(\"pwn\")", "print | \"pwn\"", "\"pwn\" | getline", "\"pwn\" | getline x", "print > \"out1\"",
  "print >> \"out2\"", "printf \"x\" > \"out3\"", "print \"a\", \"b\" > \"out4\"", "print \"a\",\n \"b\" > \"out5\"",
  "print \"a\" &&\n \"b\" > \"out6\"", "print (1)(2) > \"out7\"", "print a[1 > 0] > \"out8\"",
  "ARGV[1] = \"secret.txt\"; ARGC = 2", "f = \"secret.txt\"; while ((getline l < f) > 0) print l",
  "a = /x/ ; system(\"pwn\")", "x++ /1; print | \"pwn\" #/", "printf(\"%s\", $0) > \"out9\"",
  "print \"x\" > \"out\" \"10\"", "print 1,\n2 > \"out11\"", "print |& \"pwn\"", "if (1) print > \"out12\"",
  "print \"/\" > \"out13\"", "print \"}\" > \"out14\"", "x = \"pwn\"; system(x)", "print 1 ?\n 2 : 3 > \"out15\"",
  "getline < \"secret.txt\"; print", "split(\"secret.txt\", ARGV)",
];
const AWK_RULES = ["BEGIN", "", "END", "NR==1", "/pwn/", "$1 > 0", "!/x/", "NR > 1 && /a/", "$0 ~ \"}\""];

export function awkProgram(r: Rand): string {
  const rules = some(r, 1, 3, () => {
    const statements = some(r, 1, 3, () => (r() < 0.3 ? pick(r, AWK_DANGER) : pick(r, AWK_SAFE)));
    let body = statements[0] as string;
    for (const s of statements.slice(1)) body += pick(r, ["; ", "\n", ";\n", " ;"]) + s;
    return `${pick(r, AWK_RULES)} {${pick(r, [" ", "\n", ""])}${body}${pick(r, [" ", "\n", ""])}}`;
  });
  return rules.join(pick(r, ["\n", " ", "\n\n"]));
}

// ---- jq ----

const JQ_SAFE = [
  ".", ".a", ".[]", ".a | length", "select(.x > 1)", "\"\\(.a)\"", "@sh \"echo \\(.a)\"", "env.HOME | type",
  "$ENV | type", "input_filename", "$__loc__", "# comment\n.", "\"import\"", ".import", "\"a\\\"b\"",
  "\"\\(\"x\" | ascii_downcase)\"", "[.[] | .x?]", "{a: 1}", "reduce .[] as $x (0; . + 1)", "[range(3)]",
  "try error(\"x\") catch .", "def f: .; f", "if . then 1 else 2 end", ".a // \"d\"", "[paths]", "tostream",
  "\"# not a comment\"", "\"\\u0041\"", "@base64", "debug", "stderr", "{\"modulemeta\": 1}", "to_entries",
];
const JQ_DANGER = [
  "import \"m\" as m; .", "include \"m\"; .", "import \"d\" as $d; $d", "\"m\" | modulemeta",
  "\"\\(\"m\" | modulemeta)\"", "import \"m\" as m; m::f", "include \"m\"; f", "# c \\\nimport \"m\" as m; .",
  "import \"d\" as $d; $d::d",
];

export function jqProgram(r: Rand): string {
  const danger = r() < 0.3;
  const parts = some(r, 1, 3, () => pick(r, JQ_SAFE));
  const body = parts.join(pick(r, [" | ", " , ", "\n| "]));
  if (!danger) return body;
  const d = pick(r, JQ_DANGER);
  return /^(import|include|#)/.test(d) ? `${d} | ${body}` : `${body} | ${d}`;
}
