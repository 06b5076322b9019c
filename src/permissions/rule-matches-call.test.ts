// A hook's `if` rule (ruleMatchesCall): matched like a deny rule, and a shell command the rule may
// name once its unknown words have values matches too, so that a guard hook is never skipped.
import { describe, expect, it } from "vitest";
import { namedTool, request } from "../../test/permission-helpers.js";
import { analyzeCommand } from "../shell/index.js";
import { patternsIntersect } from "../shell/rule-may-match.js";
import { ruleMatchesCall } from "./rule-matches-call.js";

const matches = (rule: string, command: string) =>
  ruleMatchesCall(rule, request({ tool: namedTool("Bash"), subject: { kind: "shell", facts: analyzeCommand(command) }, cwd: "/tmp", mode: "default" }));

describe("a hook's if rule and words not known before the command runs", () => {
  it.each<[string, string]>([
    ["Bash(git push *)", "c=push; git $c origin"],
    ["Bash(git push *)", "for c in push; do git $c origin; done"],
    ["Bash(git push *)", "git $(echo push) origin main"],
    ["Bash(git push *)", "$(echo git) push"],
    ["Bash(git push *)", "echo push origin | xargs git"],
    ["Bash(git push *)", 'bash -c "$CMD"'],
    ["Bash(git push *)", "eval $cmd"],
    ["Bash(rm src/x.ts)", 'for f in $(git ls-files); do rm "$f"; done'],
    ["Bash(rm src/x.ts)", "git ls-files | xargs rm"],
    ["Bash(rm src/x.ts)", "rm src/*.ts"],
    ["Bash(cat .env)", "cat $(git ls-files .env)"],
    ["Bash(npm publish)", "x=publish; npm $x"],
    ["Bash(npm publish *)", "npm ${VERB:-publish} --tag next"],
  ])("%s guards `%s`", (rule, command) => {
    expect(matches(rule, command)).toBe(true);
  });

  it.each<[string, string]>([
    ["Bash(git push *)", "git status"],
    ["Bash(git push *)", "git log $(git merge-base HEAD main)..HEAD"],
    ["Bash(git push *)", 'for f in $(git ls-files); do wc -l "$f"; done'],
    ["Bash(rm src/x.ts)", "cat $(git ls-files)"],
    ["Bash(npm publish)", "npm test"],
    ["Bash(cat .env)", "cat README.md"],
  ])("%s leaves `%s` alone", (rule, command) => {
    expect(matches(rule, command)).toBe(false);
  });

  it("known words are matched as before", () => {
    expect(matches("Bash(git push *)", "git push origin main")).toBe(true);
    expect(matches("Bash(rm *)", "rm -f x")).toBe(true);
    expect(matches("Bash(rm *)", "ls")).toBe(false);
  });

  it.each<[string, string, boolean]>([
    ["git push *", "git * origin", true],
    ["git push", "git *", true],
    ["git push", "gi*sh", true],
    ["git push", "git pull*", false],
    ["a*b", "*c", false],
    ["*", "", true],
    ["abc", "ab", false],
  ])("`%s` and `%s` share a text: %s", (a, b, expected) => {
    const p = (t: string) => [...t].map((c) => (c === "*" ? null : c));
    expect(patternsIntersect(p(a), p(b))).toBe(expected);
    expect(patternsIntersect(p(b), p(a))).toBe(expected);
  });

  it("a command of any length is judged (no recursion to exhaust the stack)", () => {
    const long = [..."x".repeat(200_000)];
    expect(patternsIntersect([..."git push ", null], [...long, null])).toBe(false);
    expect(patternsIntersect([null], long)).toBe(true);
    expect(matches("Bash(git push *)", `c=push; git $c ${"a".repeat(100_000)}`)).toBe(true);
  });
});
