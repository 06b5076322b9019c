import { describe, expect, it } from "vitest";
import { sub } from "../../test/permission-helpers.js";
import { analyzeCommand } from "../shell/index.js";
import { restrictiveTexts } from "../shell/bash-rules.js";
import { isStaticWord, localeLiteral } from "../shell/shared.js";
import { mayMatchBelow, pathPattern, patternRoot } from "./path-rules.js";
import { parseRule } from "./rule.js";
import { criticalRemoval, globMayNameProtected } from "./safety.js";
import { derivedShellReads } from "./shell-reads.js";

describe("static words", () => {
  it.each([
    ["build", true],
    ["src/a.ts", true],
    ["~/x", true],
    ["{.git/config,}", false],
    [".{git,x}/config", false],
    ["a{1..3}", false],
    [".gi?/config", false],
    [".gi[t]", false],
    ["$D/config", false],
    ['$"rm"', false],
    ["`pwd`", false],
    ["~root/x", false],
    ["", false],
  ])("%j static → %s", (word, expected) => {
    expect(isStaticWord(word)).toBe(expected);
  });

  it("reads $\"…\" as its literal text", () => {
    expect(localeLiteral('$"rm"', false)).toBe("rm");
    expect(localeLiteral("$secret/key", true)).toBe("secret/key");
    expect(localeLiteral("${x}", true)).toBe("${x}");
    expect(restrictiveTexts(sub('$"rm" x'), true)).toContain("rm x");
    expect(restrictiveTexts(sub('$"rm" x'), false)).not.toContain("rm x");
  });
});

describe("critical removal after cd and through symlinks", () => {
  const base = { cwd: "/w/proj", projectDir: "/w/proj", home: "/home/u", additionalDirectories: [] };
  // `outer` is a link to `..`: /w/proj/outer/proj is the project itself.
  const canonicalize = (p: string): string => p.replace(/^\/w\/proj\/outer(?=\/|$)/, "/w");
  it.each([
    ["rm -rf proj", { bases: ["/w/proj", "/w"] }, true],
    ["rm -rf outer/proj", { canonicalize }, true],
    ["rm -rf outer/other", { canonicalize }, false],
    ["rm -rf $PWD", {}, true],
    ["rm -rf `pwd`", {}, true],
    ["rm -rf $(echo /)", {}, true],
    ["rm -rf {..,build}", {}, true],
    ["rm -rf ../pro?", {}, true],
    ["rm -rf ../*", {}, true],
    ["rm -rf */..", {}, true],
    ["rm -f build/*.o", {}, false],
    ["rm -rf build", { cdUnknown: true }, true],
    ["rm -rf /w/proj/build", { cdUnknown: true }, false],
    ["shred -u $F", {}, true],
    ["find .. -delete", {}, true],
    ["find . -name '*.o' -delete", {}, false],
    ["find /w/proj -delete", {}, false],
    ["find build -delete", {}, false],
  ])("%s → critical %s", (text, extra, expected) => {
    expect(criticalRemoval(sub(text), { ...base, ...extra }) !== null).toBe(expected);
  });

  it("globs that may name a protected path", () => {
    expect(globMayNameProtected(".gi?")).toBe(true);
    expect(globMayNameProtected("*rc")).toBe(true);
    expect(globMayNameProtected("*.o")).toBe(false);
  });
});

describe("what a rule may match below a directory", () => {
  const deny = (content: string) => pathPattern(parseRule(`Read(${content})`, "deny", "cli", "/w/proj"), "/w/proj", "/home/u");
  it.each([
    ["./secret/**", "/w/proj", undefined, true],
    ["./secret/**", "/w", undefined, true],
    ["./secret/**", "/w/proj/src", undefined, false],
    ["./secret/**", "/w/proj/secret/sub", undefined, true],
    [".env", "/w/proj/src", undefined, true],
    ["./secret/**", "/w/proj", "*.md", false],
    ["./secret/**", "/w/proj", "s*", true],
    [".env", "/w/proj", "*.md", true],
    ["//etc/**", "/w/proj", undefined, false],
    ["//etc/**", "/", "e*", true],
  ])("Read(%s) below %s (child %s) → %s", (content, dir, child, expected) => {
    const re = child === undefined ? undefined : (s: string) => new RegExp(`^${child.replace(/\./g, "\\.").replace(/\*/g, ".*")}$`).test(s);
    expect(mayMatchBelow(deny(content), dir, true, re)).toBe(expected);
  });
});

describe("reads the engine derives from the analysis's reader facts", () => {
  it.each([
    ["ls ~/.ssh", ["~/.ssh"], []],
    ["ls -I '*.o' src", ["src"], []],
    ["ls -R", [], ["."]],
    ["find ~/.ssh -name x", ["~/.ssh"], ["~/.ssh"]],
    ["find -L a b -type f", ["a", "b"], ["a", "b"]],
    ["stat -c %s f", ["f"], []],
    ["du -sh d", ["d"], ["d"]],
    ["tree", [], ["."]],
    ["grep -r foo src", ["src"], ["src"]],
    ["grep -r foo", [], ["."]],
    ["grep -e foo -r a", ["a"], ["a"]],
    ["grep foo a", [], []],
    ["rg -g '*.ts' foo src", ["src"], ["src"]],
    ["git grep foo", [], ["."]],
    ["cp -r a b", [], ["a", "b"]],
    ["cp a b", [], []],
    ["tar czf out.tgz dir", [], ["dir"]],
    ["tar -c -C /etc -f x.tar .", [], [".", "/etc"]],
    ["zip -r out.zip .", [], ["out.zip", "."]],
  ])("%s → reads %j, recursive %j", (text, reads, roots) => {
    const got = derivedShellReads(analyzeCommand(text).subcommands);
    expect(got.reads).toEqual(reads);
    expect(got.recursiveRoots).toEqual(roots);
  });
});

describe("the directory a Read rule's matches lie under (what the sandbox's walk must cover to hide them)", () => {
  const root = (content: string) => patternRoot(pathPattern(parseRule(`Read(${content})`, "deny", "cli", "/w/proj"), "/w/proj", "/home/u"));
  it.each([
    ["~/**/.env", "/home/u"],
    ["//etc/**/*.key", "/etc"],
    ["**/.env", "/w/proj"],
    [".env", "/w/proj"],
    ["./secrets/**", "/w/proj/secrets"],
    ["src/*/config.json", "/w/proj/src"],
    ["~/.config/*/token", "/home/u/.config"],
    ["~/.pgpass", undefined],
    ["//etc/shadow", undefined],
  ])("%s: %s", (content, expected) => {
    expect(root(content)).toBe(expected);
  });
});
