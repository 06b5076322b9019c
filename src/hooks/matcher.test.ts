import { describe, expect, it } from "vitest";
import { compileMatcher, MatcherSyntaxError } from "./matcher.js";

describe("compileMatcher", () => {
  const cases: Array<[string | undefined, string, boolean]> = [
    [undefined, "Bash", true],
    ["", "Bash", true],
    ["*", "mcp__x__y", true],
    ["  ", "Read", true],
    ["Bash", "Bash", true],
    ["Bash", "bash", false],
    ["Bash", "BashOutput", false], // exact, not a prefix
    ["Edit|Write", "Write", true],
    ["Edit|Write", "NotebookEdit", false],
    ["Edit, Write", "Write", true],
    ["Edit,Write", "Edit", true],
    ["Edit | MultiEdit", "MultiEdit", true],
    ["my-tool", "my-tool", true],
    ["my-tool", "my", false],
    ["mcp__memory", "mcp__memory__create", false], // exact string: matches nothing but itself
    ["mcp__memory__.*", "mcp__memory__create", true],
    ["Edit.*", "NotebookEdit", true], // unanchored
    ["^Edit.*$", "NotebookEdit", false],
    ["^Edit.*$", "Edit", true],
    ["Notebook.*|Write", "Write", true],
    ["^(Read|Grep)$", "Grep", true],
    ["^(Read|Grep)$", "Glob", false],
  ];
  it.each(cases)("matcher %j on %j → %j", (pattern, value, expected) => {
    expect(compileMatcher(pattern)(value)).toBe(expected);
  });

  it("an invalid regex is an error naming the pattern", () => {
    expect(() => compileMatcher("Bash(")).toThrow(MatcherSyntaxError);
    expect(() => compileMatcher("[a-")).toThrow(/invalid matcher "\[a-": not a valid JavaScript regular expression/);
  });
});
