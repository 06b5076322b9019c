// Issue 19: what git reads from the top of its work tree is a fact of its own
// (`CommandFacts.repositoryReads`): the permission layer places it at the repository's top,
// which the shell's directory does not give when the session is in a subdirectory.
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeCommand, ensureBashGrammar } from "./index.js";
import { commandFacts } from "./command-facts.js";

beforeAll(async () => {
  await ensureBashGrammar();
});

const topReads = (command: string): unknown => {
  const subs = analyzeCommand(command).subcommands;
  return subs.map((s) => commandFacts(s).repositoryReads).find((r) => r !== null) ?? null;
};

describe("repositoryReads", () => {
  it.each<[string, unknown]>([
    ["git show HEAD:secret/key", { dir: ".", workTree: null, files: ["secret/key"], trees: [] }],
    ["git cat-file -p HEAD:secret/key", { dir: ".", workTree: null, files: ["secret/key"], trees: [] }],
    ["git -C sub show HEAD:secret/key", { dir: "sub", workTree: null, files: ["secret/key"], trees: [] }],
    ["git config --blob HEAD:secret/key -l", { dir: ".", workTree: null, files: ["secret/key"], trees: [] }],
    ["git log -p", { dir: ".", workTree: null, files: [], trees: ["."] }],
    ["git show HEAD", { dir: ".", workTree: null, files: [], trees: ["."] }],
    ["git diff", { dir: ".", workTree: null, files: [], trees: ["."] }],
    ["git grep x -- :/secret", { dir: ".", workTree: null, files: [], trees: ["secret"] }],
    ["git grep x -- ':(top)secret'", { dir: ".", workTree: null, files: [], trees: ["secret"] }],
    ["git --work-tree=w show HEAD:k", { dir: ".", workTree: "w", files: ["k"], trees: [] }],
    ["timeout 5 git show HEAD:k", { dir: ".", workTree: null, files: ["k"], trees: [] }],
    // From git's own directory, or no contents: nothing read from the top.
    ["git show HEAD:./k", null],
    ["git grep x", null],
    ["git grep x -- sub", null],
    ["git log --oneline", null],
    ["git status", null],
    ["cat HEAD:k", null],
  ])("%s", (command, expected) => {
    expect(topReads(command)).toEqual(expected);
  });
});
