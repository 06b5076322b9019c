// Targets the permission engine needs to apply Read/Edit rules and the working-directory check:
// each row is a command and the read and write targets it must report (extra targets are
// allowed for rows marked `atLeast`, exact sets otherwise).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expectTargets, type Row } from "../../test/analysis-helpers.js";
import { analyzeCommand } from "./index.js";
import { HAS_TARGET_RULES } from "./targets.js";


describe("reads that leaked past a Read deny rule", () => {
  it.each<Row>([
    ["grep -r . .", ["."], []],
    ["grep -rn foo", ["."], []],
    ["grep -R foo", ["."], []],
    ["grep --directories=recurse foo", ["."], []],
    ["grep foo", [], []],
    ["git log | grep -r foo", ["."], []],
    ["rg -uu .", ["."], []],
    ["rg foo", ["."], []],
    ["rg --files", ["."], []],
    ["rg --files secret", ["secret"], []],
    ["rg -e key", ["."], []],
    ["git log | rg foo", [], []],
    ["rg foo < in.txt", ["in.txt"], []],
    ["rg foo <<< text", [], []],
    ["rg --type-list", [], []],
    ["git show HEAD:secret/key", ["secret/key"], []],
    ["git show :secret/key :2:other", ["secret/key", "other"], []],
    ["git show origin/main:secret/key", ["secret/key"], []],
    ["git show HEAD:", ["."], []],
    ["git log -p -- secret/key", ["secret/key"], []],
    ["git log -p HEAD~3 -- secret", ["secret"], []],
    ["git log -n 5 -p secret/key", ["secret/key", "."], []],
    ["git log --author alice secret", ["secret"], []],
    ["git log -L 1,5:secret/key", ["secret/key"], []],
    ["git log -S needle", ["."], []],
    ["git cat-file -p HEAD:secret/key", ["secret/key"], []],
    ["git cat-file blob main:secret/key", ["secret/key"], []],
    ["git cat-file -t HEAD", [], []],
    ["git blame secret/key", ["secret/key"], []],
    ["git blame HEAD~1 -- secret/key", ["secret/key"], []],
    ["git blame -L 1,10 src/index.ts", ["src/index.ts"], []],
    ["git blame -S revs.txt f", ["revs.txt", "f"], []],
    ["git annotate secret/key", ["secret/key"], []],
    ["git diff secret", ["secret", "."], []],
    ["git diff HEAD~1 -- src", ["src"], []],
    ["git diff main..feature", ["."], []],
    ["git diff a1b2c3d HEAD^ @{u}", ["."], []],
    ["git diff ../other", ["../other", "."], []],
    ["git diff HEAD:a HEAD:b", ["a", "b"], []],
    ["git diff -O order.txt", ["order.txt", "."], []],
    ["git diff -- ':!secret' x", ["x"], []],
    ["git diff -- ':(exclude)secret'", ["."], []],
    ["git log -- ':(top)secret' ':/lib'", ["secret", "lib"], []],
    ["git grep . -- secret", ["secret"], []],
    ["git grep foo", ["."], []],
    ["git grep foo HEAD", ["."], []],
    ["git grep foo main", ["main", "."], []],
    ["git grep -e foo -- src", ["src"], []],
    ["git grep -f pats.txt -- src", ["pats.txt", "src"], []],
    ["git grep foo -- ':!secret'", ["."], []],
    ["git -C sub grep foo", ["sub"], []],
    // REV:path is from the top of the work tree (which -C into the same repository does not move); REV:./path from git's directory.
    ["git -C sub show HEAD:x", ["x"], []],
    ["git -C sub show HEAD:./x", ["sub/x"], []],
    ["git -C /elsewhere log -p -- f", ["/elsewhere/f"], []],
    ["git hash-object secret/key", ["secret/key"], []],
    ["git archive HEAD", ["."], []],
    ["git archive -o out.tar HEAD sub", ["sub"], ["out.tar"]],
    ["git log --oneline -10", [], []],
    ["git status", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("reads of listing and metadata commands", () => {
  it.each<Row>([
    ["ls ~/.ssh", ["~/.ssh"], []],
    ["ls /etc", ["/etc"], []],
    ["ls -la src", ["src"], []],
    ["ls -R /", ["/"], []],
    ["ls -R", ["."], []],
    ["ls --recursive", ["."], []],
    ["ls", [], []],
    ["ls -I '*.o' --sort size dir", ["dir"], []],
    ["ls secret", ["secret"], []],
    ["find /etc -name x", ["/etc"], []],
    ["find . -name key", ["."], []],
    ["find", ["."], []],
    ["find -name key", ["."], []],
    ["find -L /etc -type l", ["/etc"], []],
    ["find a b -maxdepth 1", ["a", "b"], []],
    ["stat /etc/shadow", ["/etc/shadow"], []],
    ["stat -c %s secret/key", ["secret/key"], []],
    ["du -sh /etc", ["/etc"], []],
    ["du -d 1", ["."], []],
    ["du -X excl.txt src", ["excl.txt", "src"], []],
    ["tree /etc", ["/etc"], []],
    ["tree", ["."], []],
    ["tree -L 2 secret", ["secret"], []],
    ["tree -o out.txt", ["."], ["out.txt"]],
    ["realpath x", ["x"], []],
    ["realpath --relative-to /etc x", ["/etc", "x"], []],
    ["readlink -f x", ["x"], []],
    ["file -m magic.mgc secret/key", ["magic.mgc", "secret/key"], []],
    ["wc -l secret/key", ["secret/key"], []],
    ["md5sum a b", ["a", "b"], []],
    ["sha256sum secret/key", ["secret/key"], []],
    ["zcat log.gz", ["log.gz"], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("glob operands are read as written", () => {
  it.each<Row>([
    ["echo /etc/*", ["/etc/*"], []],
    ["echo ~/.ssh/*", ["~/.ssh/*"], []],
    ["printf '%s\\n' secret/?", ["secret/?"], []],
    ["cat src/*.ts", ["src/*.ts"], []],
    ["find . -name *.o", [".", "*.o"], []],
    ["echo '/etc/*' \"*\"", [], []],
    ["echo a\\*", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("writes that leaked past an Edit deny rule", () => {
  it.each<Row>([
    ["patch sub/x < p", ["p"], ["sub/x"]],
    ["patch -p1 < p", ["p"], ["."]],
    ["patch", [], ["."]],
    ["patch -d sub -p1 < p", ["p"], ["sub"]],
    ["patch -d sub -i ../fix.diff", ["fix.diff"], ["sub"]],
    ["patch -o out.c in.c fix.diff", ["fix.diff"], ["in.c", "out.c"]],
    ["unzip a.zip -d sub", ["a.zip"], ["sub"]],
    ["unzip -o a.zip", ["a.zip"], ["."]],
    ["unzip -qd sub a.zip", ["a.zip"], ["sub"]],
    ["unzip a.zip x -x y -d sub", ["a.zip"], ["sub"]],
    ["unzip -l a.zip", ["a.zip"], []],
    ["unzip -p a.zip f", ["a.zip"], []],
    ["tar -x -C sub -f a.tar", ["a.tar"], ["sub"]],
    ["tar xf a.tar -C sub", ["a.tar"], ["sub"]],
    ["tar --extract --file a.tar --directory sub", ["a.tar"], ["sub"]],
    ["tar xf a.tar", ["a.tar"], ["."]],
    ["perl -pi -e s/a/b/ sub/y", ["sub/y"], ["sub/y"]],
    ["perl -i.bak -pe 's/x/y/' f g", ["f", "g"], ["f", "g"]],
    ["perl -i -n -e 'print' f", ["f"], ["f"]],
    ["perl -pie 's/a/b/' f", ["s/a/b/", "f"], ["f"]],
    ["perl -I lib -pi -e 1 f", ["f"], ["f"]],
    ["perl -ne print f", ["f"], []],
    ["perl script.pl a", ["script.pl"], []],
    ["ruby -pi -e 'gsub(/a/, %q(b))' sub/z", ["sub/z"], ["sub/z"]],
    ["ruby -i.orig -p -e 1 sub/z", ["sub/z"], ["sub/z"]],
    ["split -b1 x sub/", ["x"], ["sub/"]],
    ["split -l 10 x", ["x"], ["."]],
    ["split -n 2 - sub/part", [], ["sub/part"]],
    ["csplit -f sub/p f /x/", ["f"], ["sub/p"]],
    ["mkfifo sub/p", [], ["sub/p"]],
    ["mkfifo -m 600 sub/p sub/q", [], ["sub/p", "sub/q"]],
    ["mknod -m 600 sub/n p", [], ["sub/n"]],
    ["mknod sub/d b 8 0", [], ["sub/d"]],
    ["gzip sub/y", ["sub/y"], ["sub/y"]],
    ["gunzip -f sub/y.gz", ["sub/y.gz"], ["sub/y.gz"]],
    ["xz -k sub/y", ["sub/y"], ["sub/y"]],
    ["zstd sub/y -o sub/y.zst", ["sub/y"], ["sub/y", "sub/y.zst"]],
    ["gzip -c sub/y", ["sub/y"], []],
    ["gzip -dc a.gz", ["a.gz"], []],
    ["bzip2 -t a.bz2", ["a.bz2"], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe("git commands that rewrite the work tree write the repository directory", () => {
  it.each<Row>([
    ["git -C sub checkout .", [], ["sub"]],
    ["cd sub && git checkout .", [], [".", "sub"]],
    ["git checkout -- f", [], ["."]],
    ["git switch main", [], ["."]],
    ["git restore .", [], ["."]],
    ["git -C a -C b restore x", [], ["a/b"]],
    ["git -C sub reset --hard", [], ["sub"]],
    ["git reset --hard HEAD~1", [], ["."]],
    ["git reset HEAD f", [], []],
    ["git -C sub stash", [], ["sub"]],
    ["git stash pop", [], ["."]],
    ["git stash list", [], []],
    ["git -C sub clean -fdx", [], ["sub"]],
    ["git -C sub apply p.diff", [], ["sub"]],
    ["git apply --check p.diff", [], []],
    ["git -C sub am x.mbox", [], ["sub"]],
    ["git -C sub merge main", [], ["sub"]],
    ["git -C sub pull", [], ["sub"]],
    ["git -C sub rebase main", [], ["sub"]],
    ["git cherry-pick abc1234", [], ["."]],
    ["git --work-tree=w checkout .", [], ["w"]],
    ["git --work-tree w checkout .", [], ["w"]],
    ["git -C sub --work-tree ../w checkout .", [], ["w"]],
    ["git clone https://example.com/x/repo.git", [], ["repo"]],
    ["git clone https://example.com/x/repo.git sub/dir", [], ["sub/dir"]],
    ["git init sub", [], ["sub"]],
    ["git worktree add ../wt main", [], ["../wt"]],
    ["git worktree list", [], []],
    ["git -C sub commit -m x", [], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));
});

describe('$"…" words are their own text', () => {
  it.each<Row>([
    ['cat $"secret/key"', ["secret/key"], []],
    ['$"rm" -f $"sub/x"', [], ["sub/x"]],
    ['ls $"secret"', ["secret"], []],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));

  it('deny rules see $"rm" as rm', () => {
    expect(analyzeCommand('$"rm" -rf /').subcommands[0]?.text).toBe("rm -rf /");
  });
});

// commandTargets returns early for a command with no rule of its own: every command the rules
// name (the read-all and write-all sets and each `case` of its switch) must be in the set
// that lets it through, or its targets would silently go missing.
describe("commandTargets early return", () => {
  it("lets through every command its switch has a case for", () => {
    const source = readFileSync(new URL("./targets.ts", import.meta.url), "utf8");
    const body = source.slice(source.indexOf("export function commandTargets"), source.indexOf("function findTargets"));
    const cases = [...body.matchAll(/^\s*case "([^"]+)":/gm)].map((m) => m[1] as string);
    expect(cases.length).toBeGreaterThan(20);
    for (const name of cases) expect([...HAS_TARGET_RULES], name).toContain(name);
  });
});
