// The syntax tree copied with direct cursor calls must be the one the public TreeCursor API
// gives, node for node, on every corpus string (attacks exercise the error and odd paths).
import { describe, expect, it } from "vitest";
import { ATTACKS, BENIGN } from "./corpus.js";
import { parseBashScript, parseBashScriptAsWritten, parseBashScriptPublic, usesDirectCursor, type SyntaxNode } from "./parser.js";

interface Plain {
  type: string;
  named: boolean;
  field: string | undefined;
  missing: boolean;
  range: [number, number];
  children: Plain[];
}

function plain(node: SyntaxNode): Plain {
  return {
    type: node.type,
    named: node.isNamed,
    field: node.field,
    missing: node.isMissing,
    range: [node.startIndex, node.endIndex],
    children: node.children.map(plain),
  };
}

const SCRIPTS = [
  ...ATTACKS.map((a) => a.command),
  ...BENIGN.map((b) => b.command),
  "",
  "\n\n# only a comment",
  "cat <<-'EOF'\n\tliteral $(x)\n\tEOF\necho done",
  "a=(1 2 3); echo ${a[@]:1} ${#a} \"${b//x/y}\" $'\\n' $\"t\"",
  "case $x in a|b) :;; *) f() { g; }; esac; select v in 1 2; do break; done",
  "echo 'unterminated",
  "if then fi )))",
  "x=$(( (1 + 2) * 3 )); [[ $x =~ ^[0-9]+$ && -n $y ]]; echo {a,b}{1..3}",
  "é ü 中文 😀 | grep 'ö' > /tmp/ß",
];

describe("syntax tree copy", () => {
  it("uses the direct cursor calls in this runtime", () => {
    expect(usesDirectCursor()).toBe(true);
  });

  it.each(SCRIPTS.map((s) => [JSON.stringify(s.slice(0, 60)), s] as const))("%s: same tree both ways", (_label, script) => {
    const direct = parseBashScript(script);
    const viaPublic = parseBashScriptPublic(script);
    expect(direct.depth).toBe(viaPublic.depth);
    expect(plain(direct.root)).toEqual(plain(viaPublic.root));
  });
});

/** Ends the parse with a newline may not change: continuations, here-documents, errors, blanks. */
const ENDINGS = [
  "a | b | c", "git log --oneline -20 | grep -i fix | head -5", "a | b | c # comment", "a | b |\n c", "a && b | c | d",
  "if a | b | c; then :; fi", "while read l; do :; done < <(a | b | c)", "echo `a | b | c`", "x=$(a | b | c)",
  "ls \\", "\\", "rg -n \"describe\\", "ls \\\n", "ls \\\r", "ls\r", "ls\n\n", " ", "  \t", "ls &", "ls;", "ls |& cat",
  "cat <<EOF\nhi\nEOF", "cat <<-EOF\n\thi\n\tEOF", "cat <<'EOF'\n$x\nEOF", "cat <<EOF | grep x\nhi\nEOF", "cat <<EOF\nunterminated",
  "cat <<EOF\n$(rm x)", "git \"log\"\\ ", "ls \\\n ", "ls \\\n  ", "echo \"a", "echo 'a", "arr=(a b", "ls &&", "ls |", "(ls", "for i in 1 2; do echo $i; done", "case x in a) ;; esac", "echo $'a\\n'",
];

describe("the newline a parse adds after the source", () => {
  const prefixes = (s: string): string[] => Array.from({ length: s.length + 1 }, (_, k) => s.slice(0, k));
  const inputs = [...new Set([...SCRIPTS, ...ENDINGS.flatMap(prefixes), ...SCRIPTS.filter((s) => s.length < 100).flatMap(prefixes)])];
  it(`changes no tree (${inputs.length} sources and prefixes)`, () => {
    const differ = inputs.filter((s) => {
      const a = parseBashScript(s);
      const b = parseBashScriptAsWritten(s);
      return a.depth !== b.depth || JSON.stringify(plain(a.root)) !== JSON.stringify(plain(b.root));
    });
    expect(differ).toEqual([]);
  });
});
