// The roots the engine reads recursively for git: the analysis's read targets of each git
// subcommand (`.` when contents are printed and no pathspec limits them), `.` without them.
import { describe, expect, it } from "vitest";
import { analyzeCommand, MAX_ANALYSED_COMMAND_LENGTH } from "../shell/index.js";
import { derivedShellReads } from "./shell-reads.js";

describe("git readers are recursive readers of what they read", () => {
  it.each([
    ["git log -p -1", ["."]],
    ["git show", ["."]],
    ["git diff-tree -p HEAD", ["."]],
    ["git log --all -p", ["."]],
    ["git show 0123456789abcdef", ["."]],
    ["git cat-file -p 0123456789abcdef", ["."]],
    ["git cat-file --batch-all-objects --batch", ["."]],
    ["git archive HEAD", ["."]],
    ["git diff", ["."]],
    ["git diff HEAD~1", ["."]],
    ["git stash show -p", ["."]],
    // git's history readers print the whole repository wherever -C points (issue 19).
    ["git -C sub log -p", ["sub", "."]],
    ["git grep foo", ["."]],
    ["git show HEAD:secret/key", ["secret/key"]],
    ["git log -p -- secret", ["secret"]],
    ["timeout 5 git log -p", ["."]],
    ["git status", []],
    ["git log --oneline -5", []],
    ["git diff --stat", []],
    ["git rev-parse HEAD", []],
    ["diff -r . /tmp/empty", [".", "/tmp/empty"]],
    ["diff -ru a b", ["a", "b"]],
    ["diff a b", []],
  ])("%s → recursive %j", (command, roots) => {
    const got = derivedShellReads(analyzeCommand(command).subcommands);
    expect([...new Set(got.recursiveRoots)]).toEqual(roots);
  });

  it.each([
    ["git grep foo", ["."]],
    ["git -C sub --no-pager show", ["."]],
    ["git log --oneline", ["."]],
    ["git status", []],
    ["git -c x=y commit -m m", []],
  ])("without the analysis's targets (a command too long to parse, only split), %s → recursive %j", (text, roots) => {
    const long = `${text} # ${"x".repeat(MAX_ANALYSED_COMMAND_LENGTH)}`;
    const first = analyzeCommand(long).subcommands[0]!;
    expect(first.targets).toBeUndefined();
    expect(derivedShellReads([first]).recursiveRoots).toEqual(roots);
  });
});

describe("recursive readers that follow symlinks below their roots (issue 8 class 6)", () => {
  it.each([
    ["grep -R x .", ["."]],
    ["grep --dereference-recursive x src", ["src"]],
    ["rg -L x", ["."]],
    ["rg --follow x docs", ["docs"]],
    ["find -L . -name k", ["."]],
    ["find src -follow", ["src"]],
    ["cp -rL a b", ["a", "b"]],
    // The archive is -f's value (written), not a member read.
    ["tar -chf x.tar dir", ["dir"]],
    ["tar chf x.tar dir", ["dir"]],
    ["du -L .", ["."]],
    ["ls -RL src", ["src"]],
    ["tree -l", ["."]],
    ["zip -r x.zip dir", ["x.zip", "dir"]],
    ["diff -r a b", ["a", "b"]],
    // Controls: these read links as links (or only those named on the command line).
    ["grep -r x .", []],
    ["rg x", []],
    ["find . -name k", []],
    ["cp -r a b", []],
    ["tar -cf x.tar dir", []],
    ["ls -R", []],
    ["zip -ry x.zip dir", []],
    ["diff -r --no-dereference a b", []],
    ["git grep x", []],
  ])("%s follows links below %j", (command, roots) => {
    expect(derivedShellReads(analyzeCommand(command).subcommands).followingRoots).toEqual(roots);
  });

  it.each([
    ["ln .env x", [".env"]],
    ["ln a b dir", ["a", "b"]],
    ["ln -t dir a", ["a"]],
    ["ln a", ["a"]],
    ["link .env x", [".env"]],
    ["ln -s .env x", []],
    ["ln --symbolic .env x", []],
  ])("a hard link reads its source: %s", (command, reads) => {
    expect(derivedShellReads(analyzeCommand(command).subcommands).reads).toEqual(reads);
  });
});
