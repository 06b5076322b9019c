import { describe, expect, it } from "vitest";
import { compileOverrides, matchIgnoreList, parseIgnoreFile, parseIgnoreLine } from "./gitignore.js";
import { comparePathsDepthFirst, displayPath, resolveSearchPath } from "./paths.js";

describe("gitignore lists", () => {
  const list = (text: string) => ({ base: "/r", rules: parseIgnoreFile(text) });

  it.each([
    // [rules, path, isDir, decision]
    ["*.log", "/r/a.log", false, "ignore"],
    ["*.log", "/r/deep/x/a.log", false, "ignore"],
    ["*.log\n!keep.log", "/r/keep.log", false, "whitelist"],
    ["!keep.log\n*.log", "/r/keep.log", false, "ignore"],
    ["build/", "/r/build", true, "ignore"],
    ["build/", "/r/build", false, undefined],
    ["build/", "/r/x/build", true, "ignore"],
    ["/build", "/r/x/build", true, undefined],
    ["/build", "/r/build", true, "ignore"],
    ["doc/*.txt", "/r/doc/a.txt", false, "ignore"],
    ["doc/*.txt", "/r/doc/x/a.txt", false, undefined],
    ["doc/**/*.txt", "/r/doc/x/a.txt", false, "ignore"],
    ["**/tmp", "/r/a/b/tmp", true, "ignore"],
    ["# comment\n\n", "/r/# comment", false, undefined],
    ["\\#hash", "/r/#hash", false, "ignore"],
    ["\\!bang", "/r/!bang", false, "ignore"],
    ["trail   ", "/r/trail", false, "ignore"],
    ["crlf\r", "/r/crlf", false, "ignore"],
    [".env*", "/r/.env.local", false, "ignore"],
    ["*.log", "/elsewhere/a.log", false, undefined],
  ] as const)("%j on %s (dir %s) → %s", (rules, path, isDir, expected) => {
    expect(matchIgnoreList(list(rules), path, isDir)).toBe(expected);
  });

  it("skips blank and comment lines", () => {
    expect(parseIgnoreLine("")).toBeUndefined();
    expect(parseIgnoreLine("   ")).toBeUndefined();
    expect(parseIgnoreLine("# x")).toBeUndefined();
    expect(parseIgnoreLine("/")).toBeUndefined();
  });
});

describe("glob overrides (ripgrep --glob)", () => {
  it.each([
    [["*.ts"], "a.ts", false, "whitelist"],
    [["*.ts"], "a.js", false, "ignore"],
    [["*.ts"], "src", true, undefined],
    [["!*.ts"], "a.ts", false, "ignore"],
    [["!*.ts"], "a.js", false, undefined],
    [["*.ts", "!a.ts"], "a.ts", false, "ignore"],
    [["!a.ts", "*.ts"], "a.ts", false, "whitelist"],
    [["src/*.ts"], "src/a.ts", false, "whitelist"],
    [["src/*.ts"], "x/src/a.ts", false, "ignore"],
    [["!node_modules"], "node_modules", true, "ignore"],
    [[], "a", false, undefined],
  ] as const)("%j on %s (dir %s) → %s", (globs, path, isDir, expected) => {
    expect(compileOverrides(globs).decide(path, isDir)).toBe(expected);
  });
});

describe("paths", () => {
  it.each([
    ["/p/a.ts", "/p", "a.ts"],
    ["/p/sub/a.ts", "/p", "sub/a.ts"],
    ["/p", "/p", "."],
    ["/proj-evil/a", "/proj", "/proj-evil/a"],
    ["/other/a", "/p", "/other/a"],
  ])("displayPath(%s, %s) = %s", (abs, cwd, expected) => {
    expect(displayPath(abs, cwd)).toBe(expected);
  });

  it.each([
    [undefined, "/c"],
    ["", "/c"],
    ["null", "/c"],
    ["x/../y", "/c/y"],
    ["/abs//z/", "/abs/z"],
  ])("resolveSearchPath(%j) = %s", (path, expected) => {
    expect(resolveSearchPath(path, "/c")).toBe(expected);
  });

  it("sorts depth first like ripgrep --sort path", () => {
    const paths = ["a.txt", "a/b", "b", "a/a/z", ".x", "A"];
    expect([...paths].sort(comparePathsDepthFirst)).toEqual([".x", "A", "a/a/z", "a/b", "a.txt", "b"]);
  });
});
