// The fast parser is exact or silent: wherever it returns a tree, that tree is tree-sitter's for
// the same source, node for node (types, anonymous tokens, ranges, the fields the analysis
// reads, parents, depth) — but where tree-sitter joins two lines into one command (bash never
// does; the walker refuses that tree), where the fast tree must be bash's. Checked on every corpus the project has and on generated scripts
// (ARMATURE_FAST_PARSE_N scales the generated count; the default keeps the suite quick).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bashGenerator } from "../../test/bash-gen.js";
import { OPTION_OPERATORS, rng, SEMANTIC_OPERATORS } from "../../test/fuzz/mutate.js";
import { ATTACKS, BENIGN } from "./corpus.js";
import { fastParseBash } from "./fast-parse.js";
import { ensureBashGrammar, parseBashScript, parseBashScriptTreeSitter } from "./parser.js";
import { joinsLines } from "./source-text.js";
import type { SyntaxNode } from "./syntax-node.js";

const testDir = join(import.meta.dirname, "../../test");

function corpusCommands(): string[] {
  const out: string[] = [];
  for (const line of readFileSync(join(testDir, "security-corpus.jsonl"), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const command = (JSON.parse(line) as { input?: { command?: unknown } }).input?.command;
    if (typeof command === "string") out.push(command);
  }
  for (const file of ["everyday-commands.txt", "everyday-outside.txt", "everyday-sandboxed.txt"]) {
    for (const line of readFileSync(join(testDir, file), "utf8").split("\n")) if (line.trim() !== "" && !line.startsWith("#")) out.push(line);
  }
  for (const c of [...ATTACKS, ...BENIGN]) out.push(c.command);
  return out;
}

/** Where two trees first differ, described; undefined when they are the same. */
function difference(a: SyntaxNode | undefined, b: SyntaxNode | undefined, parent?: SyntaxNode): string | undefined {
  const show = (n: SyntaxNode | undefined): string => (n ? `${n.field ? `${n.field}: ` : ""}${n.isNamed ? n.type : JSON.stringify(n.type)} [${n.startIndex},${n.endIndex}]` : "nothing");
  if (!a || !b || a.type !== b.type || a.isNamed !== b.isNamed || a.field !== b.field || a.isMissing !== b.isMissing || a.startIndex !== b.startIndex || a.endIndex !== b.endIndex) {
    return `fast ${show(a)}, tree-sitter ${show(b)}`;
  }
  if (a.parent !== parent) return `fast ${show(a)} has the wrong parent`;
  const n = Math.max(a.children.length, b.children.length);
  for (let i = 0; i < n; i++) {
    const d = difference(a.children[i], b.children[i], a);
    if (d) return d;
  }
  return undefined;
}

interface Tally {
  accepted: number;
  mismatches: string[];
  /** Sources whose tree-sitter tree joins two lines into one command (the walker refuses it): the fast tree is bash's there. */
  joined: number;
}

function joinedAnywhere(n: SyntaxNode, source: string): boolean {
  return joinsLines(n, source) || n.children.some((c) => joinedAnywhere(c, source));
}

function compare(sources: Iterable<string>): Tally {
  const tally: Tally = { accepted: 0, mismatches: [], joined: 0 };
  for (const source of sources) {
    const fast = fastParseBash(source);
    if (!fast) continue;
    tally.accepted++;
    const ts = parseBashScriptTreeSitter(source);
    if (joinedAnywhere(ts.root, source)) {
      tally.joined++;
      if (joinedAnywhere(fast.root, source)) tally.mismatches.push(`${JSON.stringify(source)}: the fast tree joins two lines too`);
      continue;
    }
    const d = difference(fast.root, ts.root) ?? (fast.depth !== ts.depth ? `depth ${fast.depth} ≠ ${ts.depth}` : undefined);
    if (d) tally.mismatches.push(`${JSON.stringify(source)}: ${d}`);
  }
  return tally;
}

beforeAll(async () => {
  await ensureBashGrammar();
});

describe("the fast parser builds tree-sitter's tree or none", () => {
  it("on every corpus of the project: the same trees, and most commands parsed fast", () => {
    const sources = corpusCommands();
    const { accepted, mismatches, joined } = compare(sources);
    console.log(`fast parser on the corpora: ${accepted} of ${sources.length} parsed fast (${((100 * accepted) / sources.length).toFixed(1)}%), ${mismatches.length} differ from tree-sitter, ${joined} where tree-sitter joins two lines`);
    expect(mismatches).toEqual([]);
    expect(accepted / sources.length).toBeGreaterThan(0.85);
  });

  it("on generated scripts, odd and everyday: the same trees", () => {
    const n = Number(process.env.ARMATURE_FAST_PARSE_N ?? 25_000);
    for (const [seed, tame] of [[19, false], [20, true]] as const) {
      const next = bashGenerator(rng(seed), tame);
      const { accepted, mismatches, joined } = compare(Array.from({ length: n }, next));
      console.log(`fast parser on ${n} generated scripts (${tame ? "everyday" : "odd"} words, seed ${seed}): ${accepted} parsed fast, ${mismatches.length} differ, ${joined} where tree-sitter joins two lines`);
      expect(mismatches).toEqual([]);
      expect(accepted).toBeGreaterThan(n / 50);
    }
  });

  it("on the corpora as the fuzzer rewrites them (requoted, wrapped, split over lines, options reworded): the same trees", () => {
    const random = rng(23);
    const operators = [...Object.values(SEMANTIC_OPERATORS), ...Object.values(OPTION_OPERATORS)];
    const mutated: string[] = [];
    for (const command of corpusCommands()) {
      let current = command;
      for (let depth = 0; depth < 3; depth++) {
        const op = operators[Math.floor(random() * operators.length)];
        const next = op?.(current, random);
        if (next === undefined) continue;
        mutated.push(next);
        current = next;
      }
    }
    const { accepted, mismatches } = compare(mutated);
    console.log(`fast parser on ${mutated.length} fuzzer rewrites of the corpora: ${accepted} parsed fast, ${mismatches.length} differ`);
    expect(mismatches).toEqual([]);
  });

  it("on every double-quoted string of up to four pieces (blanks, newlines, expansions, `$`, `>`): the same trees", () => {
    const pieces = ["a", " ", "  ", "\t", "\n", "\n\n", "$x", "${y}", "$(ls)", "b c", "-", "$", "'", "#", ">"];
    let strings = [""];
    for (let depth = 0; depth < 4; depth++) strings = strings.flatMap((s) => pieces.map((p) => s + p));
    const { accepted, mismatches } = compare(strings.map((s) => `echo "${s}" z`));
    console.log(`fast parser on ${strings.length} strings: ${accepted} parsed fast, ${mismatches.length} differ`);
    expect(mismatches).toEqual([]);
    expect(accepted).toBeGreaterThan(strings.length / 2);
  });

  // Where tree-sitter's reading is not bash's, or depends on more than the fast parser looks
  // at, the fast parser must decline (its tree would be bash's, and differ from the one the
  // analysis is written for).
  it.each([
    ["a | b | c && d", "after three piped commands the list nests inside the pipeline"],
    ["a | b | c # x\nd && e", "three piped commands stay open past a comment"],
    ["echo $f.$f-x", "a long concatenation loses a `$`"],
    ["echo $n.$1", "a positional parameter inside a word"],
    ["wc - 1> x", "a lone `-` before a descriptor is dropped"],
    ['wc 1>"x y" - 2>&1', "a lone `-` destination before a descriptor is dropped"],
    ["[ -d *$n ]", "an operand that reads as an operator"],
    ["a=1 b=2\nls", "assignments go on past the newline"],
    ["a=1 # c\nls", "an assignment goes on past a comment"],
    ["x=\tls", "an empty value before a tab"],
    ["x= | y", "an empty value before an operator"],
    ["case $x in *);; esac", "a pattern's node depends on what follows"],
    ["case $x in -h|--help) a;; esac", "patterns after `|` are extglob patterns"],
    ['echo "a\n\t$x"', "blanks after a newline join the next token"],
    ['echo "\t"', "blanks alone are no content"],
    ["grep -n2>>out", "a word's trailing digits read as a descriptor"],
    ["echo 072> f", "a descriptor with a leading zero"],
    ["if a; then b; else c\n\nfi", "a clause takes in the newlines after it"],
    ["x%s a", "a command name with `%`"],
    ["--name=x y", "a command name with `=` is an assignment"],
    ["declare'x' y", "a keyword at the start of a name"],
    ["[[ $a == b ]]", "`==` in `[[` takes a pattern"],
    ["cat <<EOF\nx\nEOF", "here-documents"],
    ["echo `pwd`", "backquotes"],
    ["echo \\$x", "backslashes"],
    ["f() { a; }", "functions"],
    ["export A=1", "declarations"],
    ["echo $((1 + 2))", "arithmetic"],
  ])("declines %j (%s)", (source) => {
    expect(fastParseBash(source)).toBeUndefined();
    expect(() => parseBashScript(source)).not.toThrow();
  });

  it.each([
    "git log --oneline -10 | grep -i fix && cat package.json | jq -r .version",
    'for f in src/*.ts; do wc -l "$f" | awk \'{print $1}\'; done',
    'if [ -f package.json ]; then jq -r .name package.json; else echo "no package"; fi',
    'count=$(ls -1 | wc -l); echo "files: $count"',
    'case "$1" in start) echo start;; stop) echo stop;; *) echo usage;; esac',
    "timeout 5 curl -fsS http://127.0.0.1:8080/health > /dev/null 2>&1 && echo up",
    "cd .claude && echo x > settings.json",
    'while read -r line; do echo "$line"; done < input.txt',
    "{ a; b; } 2>/dev/null &",
    'while IFS= read -r line; do echo "$line"; done < data/numbers.txt',
    "# a comment alone",
    'git commit -m "fix: the parser\n\nDetails, over\n  several lines."',
  ])("parses %j fast, as tree-sitter does", (source) => {
    const fast = fastParseBash(source);
    expect(fast).toBeDefined();
    expect(compare([source]).mismatches).toEqual([]);
  });

  it("reads a line after three piped commands as bash does, where tree-sitter joins it to the last command", () => {
    const source = "ls | sort | cat\nrm src/a.ts > /dev/null";
    const fast = fastParseBash(source);
    expect(fast?.root.namedChildren.map((c) => c.type)).toEqual(["pipeline", "redirected_statement"]);
    expect(joinedAnywhere(parseBashScriptTreeSitter(source).root, source)).toBe(true);
  });

  it("parses a body of 100,000 statements without exhausting the stack", () => {
    for (const source of [`echo $(${"a;".repeat(99_990)})`, `if a; then ${"b;".repeat(99_990)} fi`, `{ ${"c;".repeat(99_990)} }`]) {
      const parsed = fastParseBash(source);
      expect(parsed?.root.children).toHaveLength(1);
    }
  });

  it("declines deep nesting instead of recursing into it", () => {
    const deep = "$(".repeat(5000) + "ls" + ")".repeat(5000);
    expect(fastParseBash(`echo ${deep}`)).toBeUndefined();
    expect(fastParseBash("( ".repeat(5000) + "ls" + " )".repeat(5000))).toBeUndefined();
  });
});
