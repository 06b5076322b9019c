// The sed, awk and jq tokenizers, table-driven: everyday programs stay read-only; each
// grammar point that once let a write or exec through is an attack row.
import { describe, expect, it } from "vitest";
import { literalWord } from "../command.js";
import { awkProgramObjection, type AwkFiles } from "./awk.js";
import { jqCommandObjection, jqProgramObjection, jqReadTargets } from "./jq.js";
import { sedScriptObjection, type SedFiles } from "./sed.js";

const files = (): SedFiles & AwkFiles => ({ writes: [], reads: [] });

describe("sed tokenizer", () => {
  it.each([
    ["-n 's/foo/bar/p'", "s/foo/bar/p"], ["-E", "s/[0-9]+/N/g"], ["range", "1,20p"], ["regex range", "/start/,/end/p"],
    ["join lines", ":a;N;$!ba;s/\\n/ /g"], ["label then command", ":a\nN\nba"], ["block", "/x/{p;d}"],
    ["alternate delimiter", "s|a/b|c|g"], ["escaped delimiter", "s/a\\/b/c/"], ["bracket hides delimiter", "s/[/]/x/"],
    ["class in bracket", "s/[[:space:]]*$//"], ["y", "y/abc/xyz/"], ["one-line a text with w", "a foo;w out"],
    ["i\\ text", "i\\\nw out"], ["comment", "# w out\np"], ["#n", "#n\np"], ["q exit code", "q5"], ["l width", "l 40"],
    ["GNU extras", "F;z;="], ["w /dev/stdout", "w /dev/stdout"], ["s///w /dev/stderr", "s/a/b/w /dev/stderr"],
    ["v", "v 4.2"], ["step address", "0~3d"], ["addr+N", "/x/,+2d"], ["bang with blanks", "1 ! d"], ["s flags", "s/a/b/gI2"],
    ["CRLF after s", "s/a/b/\r\np"], ["label then }", "/x/{:a;N;ba}"],
  ])("%s: %j is read-only", (_name, script) => {
    expect(sedScriptObjection(script)).toBeUndefined();
  });

  it.each([
    ["r file", "1r header.txt", ["header.txt"]], ["R file", "R in.txt", ["in.txt"]], ["r runs to end of line", "r a; p", ["a; p"]],
    ["r /dev/stdin", "r /dev/stdin", []],
  ])("%s: %j is read-only and reports its reads", (_name, script, reads) => {
    const f = files();
    expect(sedScriptObjection(script, f)).toBeUndefined();
    expect(f.reads).toEqual(reads);
  });

  it.each([
    ["label ends at a blank", ":a w out", ["out"]], ["label ends at a blank (b)", "b a w out\n:a", ["out"]],
    ["label then ;", "ba;w out\n:a", ["out"]], ["label with leading blank", ": a w out", ["out"]],
    ["w", "w out", ["out"]], ["W", "1W out", ["out"]], ["s///w", "s/a/b/w out", ["out"]], ["blank before w flag", "s/a/b/ w out", ["out"]],
    ["flags then w", "s/a/b/gpw out", ["out"]], ["alternate delimiter w", "s|a|b|w out", ["out"]],
    ["bracket then w", "s/[/]/x/w out", ["out"]], ["w name runs to end of line", "w out; p", ["out; p"]],
    ["a\\\\ then newline", "a\\\\\nw out", ["out"]], ["after }", "{p};w out", ["out"]], ["after comment line", "p # c\nw out", ["out"]],
    ["in a block", "$!{h;d};x;s/a/b/gw out", ["out"]], ["several", "w a\nw b", ["a", "b"]],
  ])("%s: %j writes", (_name, script, writes) => {
    const f = files();
    expect(sedScriptObjection(script, f)).toBeDefined();
    expect(f.writes).toEqual(writes);
  });

  it.each([
    ["e cmd", "1e id"], ["e alone", "e"], ["s///e", "s/x/id/e"], ["blank before e flag", "s/a/b/ e"], ["e after label", ":a e id"],
    ["unknown command", "k"], ["unterminated s", "s/a"], ["newline delimiter", "s\na\nb\n"], ["backslash delimiter", "s\\a\\b\\"],
    ["unknown s flag", "s/a/b/x"], ["junk after y", "y/a/b/ w out"], ["multibyte hazard", "s/é\\/x/y/"], ["+N first", "+1p"],
  ])("%s: %j is refused", (_name, script) => {
    expect(sedScriptObjection(script)).toBeDefined();
  });
});

describe("awk tokenizer", () => {
  it.each([
    "{print $1}", "-F, NR>1{s+=$3} END{print s}", "NR>1{s+=$3} END{print s}", "$3 > 100 {print $1}", "{ print ($1 > 5) }",
    "/a|b/", "$1 ~ /x|y/ {n++} END {print n}", "BEGIN{FS=\":\"} {print $1}", "{ a[$1] += $2 } END { for (k in a) print k, a[k] }",
    "{ printf \"%s\\n\", $0 }", "{ x = $1 / 2; print x }", "{ if (length($0) > 80) print }", "{ print > \"/dev/stderr\" }",
    "{ printf(\"%s\\n\", $0) > \"/dev/stderr\" }", "{ x = a / b / c }", "{ y = /x/ ? 1 : 0 }", "{ print length / 2 }",
    "{ x = y++ / 2 }", "{ print \"}\" }", "{ print \"a\",\n\"b\" }", "{ if ($0 ~ /\"/) n++ }", "# comment \" x\n{ print }",
    "{ getline; print }", "{ getline line; print line }", "{ print ENVIRON[\"HOME\"] }", "{ z /= 2 }", "{ n = split($0, p, /,/) }",
    "{ x = 0x1F / 2 }", "{ print a[1] }", "function f(a) { return a / 2 } { print f($1) }", "{ if (x) print; else print \"n\" }",
    "{ print $1 }\n\n/x/ { print }", "{ c = $1 ~ /^[#]/ }", "BEGIN { while ((getline line) > 0) n++ }",
  ])("%j is read-only", (program) => {
    expect(awkProgramObjection(program)).toBeUndefined();
  });

  it.each([
    ["getline < literal", "BEGIN { while ((getline l < \"in.txt\") > 0) print l }", ["in.txt"]],
    ["getline var < literal", "{ getline x < \"a b\" }", ["a b"]], ["getline < stdin", "{ getline < \"-\" }", []],
  ])("%s: %j is read-only and reports its reads", (_name, program, reads) => {
    const f = files();
    expect(awkProgramObjection(program, f)).toBeUndefined();
    expect(f.reads).toEqual(reads);
  });

  it.each([
    ["print >", "{print > \"out\"}", ["out"]], ["print >>", "{print >> \"out\"}", ["out"]], ["printf >", "{printf \"x\" > \"f\"}", ["f"]],
    ["newline after comma", "{print a,\nb > \"f\"}", ["f"]], ["newline after &&", "{print a &&\n b > \"f\"}", ["f"]],
    ["newline after ?", "{print a ?\n b : c > \"f\"}", ["f"]], ["grouped then >", "{print (1)(2) > \"f\"}", ["f"]],
    ["brackets do not protect", "{print a[1 > 0] > \"f\"}", ["f"]], ["printf(...) >", "{ printf(\"%s\", $0) > \"f\" }", ["f"]],
    ["concatenated target", "{ print > \"out\" \"1\" }", []], ["in if", "{ if (1) print > \"f\" }", ["f"]],
    ["after a regex with a quote", "{ if (/\"/) print > \"f\" }", ["f"]], ["after }", "{ print \"}\" > \"f\" }", ["f"]],
    ["BEGIN x=1", "BEGIN{x=1; print x > \".git/config\"}", [".git/config"]],
  ])("%s: %j writes", (_name, program, writes) => {
    const f = files();
    expect(awkProgramObjection(program, f)).toBeDefined();
    expect(f.writes).toEqual(writes);
  });

  it("names the literal files of a program it cannot read, for deny rules", () => {
    const f = files();
    expect(awkProgramObjection("{ x = /[/]/; print > \".git/config\"; getline < \".env\" }", f)).toBeDefined();
    expect(f.writes).toContain(".git/config");
    expect(f.reads).toContain(".env");
  });

  it.each([
    "BEGIN{system(\"id\")}", "{print | \"sh\"}", "BEGIN{\"id\" | getline}", "BEGIN { \"id\" | getline x }", "{print |& \"cmd\"}",
    "BEGIN{f=\"system\"; @f(\"id\")}", "@include \"x\"", "@load \"ordchr\"", "x++ /1; print | \"sh\" #/",
    "{ a = /x/ ; system(\"id\") }", "BEGIN { ARGV[1] = \"/etc/shadow\"; ARGC = 2 } { print }", "BEGIN { split(\"x /etc/shadow\", ARGV) }",
    "BEGIN { f = \"/etc/shadow\"; getline l < f }", "BEGIN { getline l < \"/inet/tcp/0/example.com/80\" }",
    "{ print \"x\" > \"/inet/tcp/0/h/80\" }", "{ x = a:: b }", "{ print a >= \"f\" }", "{ x = \"a\\\nb\" }", "{ x = /a\\\nb/ }",
    "{ x = /[/]/ }", "{ case /x/: }", "{ x = getline / 2 }", "{ x = $/a/ }", "{ print\t\\ x }", "# c \\\n system(\"id\")",
    "{ (a\n > \"f\") }", "{ print \"é\\\" > \\\"f\" }",
  ])("%j is refused", (program) => {
    expect(awkProgramObjection(program)).toBeDefined();
  });
});

describe("jq tokenizer and command line", () => {
  const jq = (line: string[]): string | undefined => jqCommandObjection(["jq", ...line].map(literalWord));
  it.each([
    [["-r", ".items[].name"]], [[".[] | select(.x > 1)", "f.json"]], [[".a | length", "f.json"]], [["-n", "env.HOME"]],
    [["-n", "$ENV.PATH"]], [["input_filename"]], [["$__loc__"]], [["-r", "@sh \"echo \\(.a)\""]], [[".import"]],
    [["\"import \\(.a)\""]], [["-nr", "--arg", "x", "-L", "$x"]], [["--rawfile", "a", "f.txt", "$a"]], [["# c\n."]],
    [["--args", ".", "a", "-"]], [["-S", "--tab", "--indent", "3", "."]], [["{\"modulemeta\": 1}"]], [["def f: .; f"]],
  ])("jq %j is read-only", (line) => {
    expect(jq(line)).toBeUndefined();
  });

  it.each([
    [["-L", ".", "import \"x\" as x; ."]], [["-L.", "."]], [["--library-path", "lib", "."]], [["-nL", "lib", "."]],
    [["import \"x\" as x; ."]], [["include \"x\"; ."]], [["\"x\" | modulemeta"]], [["\"\\(\"x\" | modulemeta)\""]],
    [["x::f"]], [["$d::d"]], [["-f", "prog.jq", "f.json"]], [["--from-file", "p.jq"]], [["--run-tests", "t"]],
    [["--out", "."]], [["-Z", "."]], [["\"unterminated"]], [["# c \\\nimport \"x\" as x; ."]], [["(."]], [[".)"]],
    [["--arg", "x"]],
  ])("jq %j is refused", (line) => {
    expect(jq(line)).toBeDefined();
  });

  it("reports operands, --rawfile and --slurpfile files and -f program files as reads", () => {
    const reads = (line: string[]): string[] => jqReadTargets(["jq", ...line].map(literalWord));
    expect(reads(["--rawfile", "a", "/etc/shadow", "."])).toEqual(["/etc/shadow"]);
    expect(reads(["--slurpfile", "a", "s.json", ".", "f.json", "-"])).toEqual(["s.json", "f.json"]);
    expect(reads(["-nf", "prog.jq", "f.json"])).toEqual(["prog.jq", "f.json"]);
    expect(reads(["--args", ".", "a", "b"])).toEqual([]);
    expect(reads(["-L", "lib", "import \"x\" as x; .", "f.json"])).toEqual(["f.json"]);
    expect(reads(["-Llib", ".", "f.json"])).toEqual(["f.json"]);
    expect(reads(["--arg", "x", "y", ".", "--", "-n"])).toEqual(["-n"]);
  });

  it("lexes string interpolation as code", () => {
    expect(jqProgramObjection('"a\\("b\\("c" | modulemeta)")"')).toBeDefined();
    expect(jqProgramObjection('"a\\("b\\("c" | ascii)")" | "\\\\(import)"')).toBeUndefined();
  });
});
