// Targets found missing by the second review: backup names that cp/mv/ln/install write, git
// commands that print file contents without naming a path, options whose value is a file read,
// and tests on a path. Each row: command, read targets, write targets (exact sets).
import { describe, expect, it } from "vitest";
import { expectTargets, type Row } from "../../test/analysis-helpers.js";
import { analyzeCommand } from "./index.js";


describe("backups name the files they write", () => {
  it.each<Row>([
    ["cp -b --suffix=t sub/x sub/.gi", ["sub/x"], ["sub/.gi", "sub/.git", "sub/.gi/xt"]],
    ["cp -b --suffix=rc a .npm", ["a"], [".npm", ".npmrc", ".npm/arc"]],
    ["cp --backup -S t a .gi", ["a"], [".gi", ".git", ".gi/at"]],
    ["cp -S t a .gi", ["a"], [".gi", ".git", ".gi/at"]],
    ["cp --backup=simple --suffix t a .gi", ["a"], [".gi", ".git", ".gi/at"]],
    ["mv -b -S t x sub/.gi", [], ["x", "sub/.gi", "sub/.git", "sub/.gi/xt"]],
    ["mv --suffix=rc a .npm", [], ["a", ".npm", ".npmrc", ".npm/arc"]],
    ["install -b -S rc a .npm", [], [".npm", ".npmrc", ".npm/arc"]],
    ["ln -sb -S t x .gi", [], [".gi", ".git", ".gi/xt"]],
    ["ln -b -S t sub/.gi", [], [".gi", ".git"]],
    ["cp -b -S t -t sub a", ["a"], ["sub", "sub/at"]],
    ["cp -b a b", ["a"], ["b", "b~", "b/a~"]],
    ["cp --backup=numbered a b", ["a"], ["b", "b~", "b.~$N~", "b/a~", "b/a.~$N~"]],
    ["cp --backup=t a b", ["a"], ["b", "b~", "b.~$N~", "b/a~", "b/a.~$N~"]],
    ["cp --backup=none a b", ["a"], ["b"]],
    // `--suf` is `--suffix` (getopt_long takes unambiguous prefixes): the suffix is `t`.
    ["cp --suf t a .gi", ["a"], [".gi", ".git", ".gi/at"]],
    ["SIMPLE_BACKUP_SUFFIX=t cp -b x .gi", ["x"], [".gi", ".git", ".gi.~$N~", ".gi/xt", ".gi/x.~$N~"]],
    ["VERSION_CONTROL=numbered cp -b x y", ["x"], ["y", "y~", "y$SIMPLE_BACKUP_SUFFIX", "y.~$N~", "y/x~", "y/x$SIMPLE_BACKUP_SUFFIX", "y/x.~$N~"]],
    ["export SIMPLE_BACKUP_SUFFIX=t; cp -b x .gi", ["x"], [".gi", ".gi~", ".gi$SIMPLE_BACKUP_SUFFIX", ".gi.~$N~", ".gi/x~", ".gi/x$SIMPLE_BACKUP_SUFFIX", ".gi/x.~$N~"]],
    ["set -a; cp -b x y", ["x"], ["y", "y~", "y$SIMPLE_BACKUP_SUFFIX", "y.~$N~", "y/x~", "y/x$SIMPLE_BACKUP_SUFFIX", "y/x.~$N~"]],
    ["install -d -b sub", [], ["sub"]],
    ["cp a b", ["a"], ["b"]],
    ["mv a b", [], ["a", "b"]],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("git after cd or pointed at another repository is not read-only", () => {
  it.each([
    "cd sub && git status", "cd sub; git status", "cd sub\ngit status", "pushd sub; git log",
    "git -C sub status", "GIT_DIR=x git status", "GIT_WORK_TREE=w git status", "git --git-dir=x status",
    "git --git-dir x status", "git --work-tree w status", "git --work-tree=w status", "GIT_CONFIG_GLOBAL=x git status",
  ])("%s", (command) => expect(analyzeCommand(command).readOnly).toBe(false));
  it.each(["git status", "git log --oneline -5", "git diff --stat"])("%s stays read-only", (command) =>
    expect(analyzeCommand(command).readOnly).toBe(true));
});

describe("git commands that print contents read the whole tree unless limited", () => {
  it.each<Row>([
    ["git log -p -1", ["."], []],
    ["git log --all -p", ["."], []],
    ["git log -U5", ["."], []],
    ["git log --patch --since=1.week", ["."], []],
    ["git log -G secret", ["."], []],
    ["git whatchanged -p", ["."], []],
    ["git show", ["."], []],
    ["git show HEAD~1", ["."], []],
    ["git show 0123456789abcdef0123456789abcdef01234567", ["."], []],
    ["git show --stat", [], []],
    ["git show -s HEAD", [], []],
    ["git show --stat v1.0", ["v1.0", "."], []],
    ["git show -s --format=%H 0123abc", ["."], []],
    ["git show HEAD HEAD:x", ["x", "."], []],
    ["git diff-tree -p HEAD", ["."], []],
    ["git diff-tree --name-only -r HEAD", [], []],
    ["git diff-index -p HEAD", ["."], []],
    ["git diff-files", [], []],
    ["git cat-file -p 0123456789abcdef", ["."], []],
    ["git cat-file blob 0123456", ["."], []],
    ["git cat-file --batch-all-objects --batch", ["."], []],
    ["git cat-file --batch-check --batch-all-objects", [], []],
    ["git cat-file -s HEAD", [], []],
    ["git -C sub archive HEAD", ["sub"], []],
    ["git diff", ["."], []],
    ["git diff HEAD~1", ["."], []],
    ["git diff --cached", ["."], []],
    ["git diff --check", ["."], []],
    ["git -C sub diff", ["sub"], []],
    ["git diff --stat", [], []],
    ["git diff --name-only HEAD~1", [], []],
    ["git diff --stat -p", ["."], []],
    ["git diff --no-index a b", ["a", "b"], []],
    ["git stash show -p", ["."], []],
    ["git stash show", ["."], []],
    ["git -C sub stash show -p", ["sub"], []],
    ["git range-diff a...b", ["."], []],
    ["git diff HEAD -- src", ["src"], []],
    ["git log --oneline -5", [], []],
    ["git log --stat", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("git commands that name a path's object or entry read it", () => {
  it.each<Row>([
    ["git ls-files -s secret", ["secret"], []],
    ["git ls-files", [], []],
    ["git ls-files -X excl.txt src", ["excl.txt", "src"], []],
    ["git ls-tree HEAD secret", ["secret"], []],
    ["git ls-tree -r HEAD", [], []],
    ["git rev-parse HEAD:secret/key", ["secret/key"], []],
    ["git rev-parse :secret/key", ["secret/key"], []],
    ["git rev-parse HEAD", [], []],
    ["git rev-parse --show-toplevel", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("options and operands that name files read", () => {
  it.each<Row>([
    ["date -f secret/key", ["secret/key"], []],
    ["date --file=secret/key", ["secret/key"], []],
    ["date -r secret/key", ["secret/key"], []],
    ["date +%s", [], []],
    ["date", [], []],
    // The list names more files to read: they are not known before the command runs.
    ["wc --files0-from=secret/key", ["secret/key", "$(files listed in secret/key)"], []],
    ["wc --files0-from secret/key", ["secret/key", "$(files listed in secret/key)"], []],
    ["sort --files0-from=secret/key", ["secret/key", "$(files listed in secret/key)"], []],
    ["sort --random-source=secret/key a", ["secret/key", "a"], []],
    ["sort -T tmpdir a", ["a"], ["tmpdir"]],
    ["diff --from-file=secret/key x", ["secret/key", "x"], []],
    ["diff --to-file=secret/key x", ["secret/key", "x"], []],
    ["diff -X excl a b", ["excl", "a", "b"], []],
    ["grep -f secret/key x", ["secret/key", "x"], []],
    ["grep -fsecret/key x", ["secret/key", "x"], []],
    ["cmp -n 10 secret/key x", ["secret/key", "x"], []],
    ["comm a secret/key", ["a", "secret/key"], []],
    ["join -t , a secret/key", ["a", "secret/key"], []],
    ["paste -d , a secret/key", ["a", "secret/key"], []],
    ["look abc secret/key", ["secret/key"], []],
    ["look -t x abc secret/key", ["secret/key"], []],
    ["look abc", [], []],
    ["split secret/key", ["secret/key"], ["."]],
    ["tr a b < secret/key", ["secret/key"], []],
    ["tr a b", [], []],
    ["xxd secret/key", ["secret/key"], []],
    ["xxd -ps secret/key", ["secret/key"], []],
    ["xxd -ps in out", ["in"], ["out"]],
    ["xxd -c 8 secret/key", ["secret/key"], []],
    ["xxd -cols 8 secret/key", ["secret/key"], []],
    ["xxd -c8 secret/key", ["secret/key"], []],
    ["xxd -s 0x10 -l 4 secret/key", ["secret/key"], []],
    ["od -An -tx1 secret/key", ["secret/key"], []],
    ["od -w secret/key", ["secret/key"], []],
    ["od -t x1 secret/key", ["secret/key"], []],
    ["hexdump -C secret/key", ["secret/key"], []],
    ["hexdump -fsecret/key x", ["secret/key", "x"], []],
    ["hd secret/key", ["secret/key"], []],
    ["base64 secret/key", ["secret/key"], []],
    ["base64 -w 0 secret/key", ["secret/key"], []],
    ["basenc --base64 secret/key", ["secret/key"], []],
    ["strings -n 3 secret/key", ["secret/key"], []],
    ["nl -b a secret/key", ["secret/key"], []],
    ["fold -w 10 secret/key", ["secret/key"], []],
    ["fmt -w 10 secret/key", ["secret/key"], []],
    ["column -t secret/key", ["secret/key"], []],
    ["pr secret/key", ["secret/key"], []],
    ["shuf secret/key", ["secret/key"], []],
    ["shuf -e a b", [], []],
    ["shuf -n 1 -o out secret/key", ["secret/key"], ["out"]],
    ["iconv -f utf-8 -t ascii secret/key", ["secret/key"], []],
    ["sdiff -o out a secret/key", ["a", "secret/key"], ["out"]],
    ["diff3 a b secret/key", ["a", "b", "secret/key"], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));

  it("xxd -ps in out writes: not read-only", () => expect(analyzeCommand("xxd -ps in out").readOnly).toBe(false));
});

describe("tests on a path read it", () => {
  it.each<Row>([
    ["test -s secret/key", ["secret/key"], []],
    ["test -f README.md", ["README.md"], []],
    ["[ -f secret/key ]", ["secret/key"], []],
    ["[ -e a -a -r b ]", ["a", "b"], []],
    ["[ a -nt b ]", ["a", "b"], []],
    ["[[ -e secret/key ]]", ["secret/key"], []],
    ["[[ -s 'secret/key' ]] && echo yes", ["secret/key"], []],
    ["[[ a -ot secret/key ]]", ["a", "secret/key"], []],
    ["cd sub && [[ -f key ]]", ["key", "sub/key"], []],
    ["[ -n x ]", [], []],
    ["[[ $a == b ]]", [], []],
    ["test x = y", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});
