// The one argv parser: table-driven cases for getopt_long and git parse-options behaviour, and
// a differential test against util-linux getopt(1) (which is glibc getopt_long) when installed.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CommandTable } from "./commands/types.js";
import { getopt, type ParsedArgs } from "./getopt.js";
import { literalWord } from "./command.js";

const TABLE: CommandTable = {
  short: "ab:c::o:vI::",
  long: ["output=", "out-dir=", "strings=?", "verbose", "version", "append", "target-directory="],
};

/** The parse in getopt(1)'s canonical order: options as `name=value`, then `--`, then operands. */
function canonical(p: ParsedArgs): string[] {
  return [...p.options.map((o) => (o.value !== undefined ? `${o.name}=${o.value.text}` : o.name)), "--", ...p.operands.map((o) => o.word.text)];
}

function parse(argv: string[], table: CommandTable = TABLE): ParsedArgs {
  return getopt(["cmd", ...argv].map(literalWord), table);
}

describe("getopt: GNU getopt_long", () => {
  it.each<[string[], string[] | "error"]>([
    [["-ab", "val", "x"], ["-a", "-b=val", "--", "x"]],
    [["-abval"], ["-a", "-b=val", "--"]],
    [["x", "-v", "y"], ["-v", "--", "x", "y"]],
    [["--outp=x", "y"], ["--output=x", "--", "y"]],
    [["--outp", "x", "y"], ["--output=x", "--", "y"]],
    [["--output", "x"], ["--output=x", "--"]],
    [["--out", "x"], "error"],
    [["--ver"], "error"],
    [["--verb"], ["--verbose", "--"]],
    [["--app", "f"], ["--append", "--", "f"]],
    [["--t=dir", "f"], ["--target-directory=dir", "--", "f"]],
    // Optional values are only ever attached.
    [["--str", "f"], ["--strings", "--", "f"]],
    [["--str=3", "f"], ["--strings=3", "--", "f"]],
    [["-c5", "f"], ["-c=5", "--", "f"]],
    [["-c", "f"], ["-c", "--", "f"]],
    [["-vI", "f"], ["-v", "-I", "--", "f"]],
    [["-vIx", "f"], ["-v", "-I=x", "--", "f"]],
    [["--", "-a", "--output=x"], ["--", "-a", "--output=x"]],
    [["-", "x"], ["--", "-", "x"]],
    [["-o"], "error"],
    [["--verbose=1"], "error"],
    [["-z"], "error"],
    [["--zzz"], "error"],
  ])("%j", (argv, expected) => {
    const p = parse(argv);
    if (expected === "error") expect(p.errors.length).toBeGreaterThan(0);
    else {
      expect(p.errors).toEqual([]);
      expect(canonical(p)).toEqual(expected);
    }
  });

  it("an exact name wins over a longer one it prefixes; aliases of one option are not ambiguous", () => {
    const t: CommandTable = { long: ["get", "get-all", "transform=", "xform>transform"] };
    expect(canonical(parse(["--get"], t))).toEqual(["--get", "--"]);
    expect(parse(["--ge"], t).errors.length).toBe(1);
    expect(canonical(parse(["--xf=s/a/b/"], t))).toEqual(["--transform=s/a/b/", "--"]);
  });

  it("stops at the first operand when the table says so (wrappers)", () => {
    const t: CommandTable = { short: "k:", stopAtOperand: true };
    expect(canonical(parse(["-k", "1", "cmd", "-k", "x"], t))).toEqual(["-k=1", "--", "cmd", "-k", "x"]);
  });

  it("numeric options (`head -5`) when the table allows them", () => {
    expect(parse(["-5"], { short: "n:", numeric: true }).errors).toEqual([]);
    expect(parse(["-5"], { short: "n:" }).errors.length).toBe(1);
  });

  it("partial tables accept unknown options; the second reading gives them the next word", () => {
    expect(canonical(parse(["--foo", "x", "y"], { partial: true }))).toEqual(["--foo", "--", "x", "y"]);
    expect(canonical(parse(["--foo", "x", "y"], { partial: true, unknownTakesValue: true }))).toEqual(["--foo=x", "--", "y"]);
  });

  it("partial tables: an unknown name that is a prefix of listed ones is an error (the tool refuses it, or which one is not known)", () => {
    const VALGRIND: CommandTable = { partial: true, style: "exact", long: ["log-file=?", "log-fd=?", "tool=?"] };
    expect(parse(["--log=x", "ls"], VALGRIND).errors).toEqual(["unknown option --log"]);
    expect(parse(["--lo=x", "ls"], VALGRIND).errors).toEqual(["unknown option --lo"]);
    expect(parse(["--leak-check=full", "ls"], VALGRIND).errors).toEqual([]);
    expect(parse(["--log-file=x", "ls"], VALGRIND).errors).toEqual([]);
    expect(parse(["--out", "x"], { partial: true, long: ["output-file=", "output-document="] }).errors.length).toBe(1);
  });
});

describe("getopt: git parse-options", () => {
  const GIT: CommandTable = { style: "git", short: "f:l", long: ["file=", "list", "includes", "show-origin", "get", "get-all"] };
  it.each<[string[], string[] | "error"]>([
    [["--fil", "x", "--list"], ["--file=x", "--list", "--"]],
    [["--no-includes"], ["--includes", "--"]],
    [["--no-incl"], ["--includes", "--"]],
    [["--get"], ["--get", "--"]],
    [["--ge"], "error"],
    [["--bogus"], "error"],
  ])("%j", (argv, expected) => {
    const p = parse(argv, GIT);
    if (expected === "error") expect(p.errors.length).toBeGreaterThan(0);
    else expect(canonical(p)).toEqual(expected);
  });

  it("marks `--no-NAME` as negated", () => {
    expect(parse(["--no-includes"], GIT).options[0]?.negated).toBe(true);
  });

  it("exact style takes no abbreviations (git log, rg)", () => {
    expect(parse(["--outp=x"], { style: "exact", long: ["output="] }).errors.length).toBe(1);
  });
});

/** Single-quoted words as getopt(1) prints them. */
function shellWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:'[^']*'|\\'|[^\s'\\]+)+/g)) {
    out.push(m[0].replace(/'([^']*)'|\\'/g, (_all, q: string | undefined) => (q !== undefined ? q : "'")));
  }
  return out;
}

const GETOPT = "/usr/bin/getopt";
const haveGetopt = existsSync(GETOPT);

describe.skipIf(!haveGetopt)("getopt: differential against util-linux getopt(1)", () => {
  if (!haveGetopt) console.log("getopt(1) is not installed: the differential test is skipped");
  const long = "output:,out-dir:,strings::,verbose,version,append,target-directory:";
  const optional = new Set(["-c", "-I", "--strings"]);
  const cases: string[][] = [
    ["-ab", "val", "x"], ["-abval"], ["x", "-v", "y"], ["--outp=x", "y"], ["--outp", "x", "y"], ["--out", "x"], ["--ver"],
    ["--verb"], ["--app", "f"], ["--t=dir", "f"], ["--str", "f"], ["--str=3", "f"], ["-c5", "f"], ["-c", "f"], ["-vI", "f"],
    ["-vIx", "f"], ["--", "-a", "--output=x"], ["-", "x"], ["-o"], ["--verbose=1"], ["-z"], ["--zzz"], ["f", "--output", "g", "h"],
    ["-bc", "x"], ["-vvv", "--append", "--", "--verbose"], ["--target", "d", "-o", "o", "i"],
  ];
  it.each(cases.map((c) => [c]))("%j", (argv) => {
    let printed: string | undefined;
    try {
      printed = execFileSync(GETOPT, ["-o", "ab:c::o:vI::", "-l", long, "--", ...argv], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    } catch {
      printed = undefined;
    }
    const ours = parse(argv);
    if (printed === undefined) {
      expect(ours.errors.length, "getopt(1) refused this argv").toBeGreaterThan(0);
      return;
    }
    expect(ours.errors).toEqual([]);
    const words = shellWords(printed);
    const expected: string[] = [];
    let k = 0;
    for (; k < words.length && words[k] !== "--"; k++) {
      const w = words[k] as string;
      const next = words[k + 1];
      const takesValue = optional.has(w) || /^-[bo]$|^--(output|out-dir|target-directory)$/.test(w);
      if (takesValue && next !== undefined) {
        k++;
        expected.push(optional.has(w) && next === "" ? w : `${w}=${next}`);
      } else expected.push(w);
    }
    expected.push("--", ...words.slice(k + 1));
    expect(canonical(ours)).toEqual(expected);
  });
});

describe("short letters paired with long options (`name=|x`)", () => {
  const PAIRED: CommandTable = { short: "o:rRv", long: ["output=|o", "recursive|rR", "verbose"] };
  it("a paired letter carries its long name; the option keeps its letter as written", () => {
    const p = parse(["-rvoX", "f"], PAIRED);
    expect(p.options.map((o) => [o.name, o.long, o.value?.text])).toEqual([["-r", "--recursive", undefined], ["-v", undefined, undefined], ["-o", "--output", "X"]]);
    expect(parse(["-R"], PAIRED).options[0]?.long).toBe("--recursive");
    expect(parse(["--out=x"], PAIRED).options[0]?.name).toBe("--output");
  });

  it("a malformed entry is a clear error", () => {
    expect(() => parse(["-o", "x"], { short: "o:", long: ["output=|"] })).toThrow(/bad long option spec: output=\|/);
  });
});
