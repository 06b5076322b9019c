// Issue 19, fewer prompts soundly: file-name producers feeding `$(…)`, loops and xargs; the
// names they print, judged when deciding; `git -C`; literal shell variables.
import { describe, expect, it } from "vitest";
import { analyzeCommand, GIT_AFTER_CD } from "./index.js";
import { gitLocationVariable, producedNames } from "./producers.js";

describe("file-name producers", () => {
  it.each([
    ["wc -l $(git ls-files '*.ts')", "$(git ls-files '*.ts')", ["git", "ls-files", "*.ts"]],
    ["git ls-files | xargs grep -n TODO", "$(git ls-files)", ["git", "ls-files"]],
    ["find src -name '*.ts' | xargs wc -l", "$(find src -name '*.ts')", ["find", "src", "-name", "*.ts"]],
    ["for f in $(git ls-files -m); do cat \"$f\"; done", "$(git ls-files -m)", ["git", "ls-files", "-m"]],
  ])("%s reads what %s prints", (command, word, argv) => {
    const facts = analyzeCommand(command);
    expect(facts.readOnly).toBe(true);
    expect(facts.readTargets).toContain(word);
    expect(facts.producers?.[word]).toEqual(argv);
  });

  it.each([
    ["cat $(cat list)", "not a producer"],
    ["cat list | xargs cat", "not a producer"],
    ["git ls-files -z | xargs -0 cat", "another output format and splitting"],
    ["git ls-files --format=%(path) | xargs cat", "another output format"],
    ["find . -print0 | xargs -0 cat", "another output format"],
    ["find / -name x | xargs cat", "a start point outside the cwd"],
    ["find ../x | xargs cat", "a start point outside the cwd"],
    ["git ls-files | xargs -d , cat", "xargs splits otherwise"],
    ["cd src && cat $(git ls-files)", "after a cd"],
    ["cat x$(git ls-files)", "not the whole word"],
  ])("%s has no producer to run (%s)", (command) => {
    expect(analyzeCommand(command).producers).toBeUndefined();
  });

  it.each([
    ["git ls-files | xargs -I{} sh -c 'cat {}'", "-I puts input inside a script"],
    ["git ls-files | xargs sort -o out", "sort writes"],
    ["git ls-files | xargs sort", "a word that may be an option to sort"],
    ["git ls-files | xargs tee", "tee writes its operands"],
    ["git ls-files | xargs uniq", "uniq writes its second operand"],
    ["git ls-files | xargs rg x", "rg --pre runs programs"],
    ["git ls-files | xargs -p cat", "xargs -p asks on a terminal"],
    ["git ls-files | xargs", "runs echo"],
    ["git ls-files | xargs rm", "rm"],
  ])("%s is not read-only (%s)", (command) => {
    expect(analyzeCommand(command).readOnly).toBe(false);
  });

  it("judges printed names: plain lines are names; blanks, quotes, globs, leading - or @ are not", () => {
    expect(producedNames("src/a.ts\n./b.md\nc\n")).toEqual(["src/a.ts", "./b.md", "c"]);
    expect(producedNames("")).toEqual([]);
    for (const odd of ["-r", "--files0-from=.env", "@list", "a b", "a\tb", '"\\303\\251"', "*", "a?", "[x]", "it's", "~/x"]) {
      expect(producedNames(`ok\n${odd}\n`), odd).toHaveProperty("unknown");
    }
  });
});

describe("git -C", () => {
  it("is judged as git after a cd to its directory (checked on the file system when deciding)", () => {
    const facts = analyzeCommand("git -C src log --oneline");
    expect(facts.cdTargets).toEqual(["src"]);
    expect(facts.reasons).toEqual([GIT_AFTER_CD]);
    expect(analyzeCommand("git -C a -C b status").cdTargets).toEqual(["a/b"]);
  });

  it("--git-dir=…/.git and --work-tree=dir are judged like -C (the decision requires the cwd's own repository)", () => {
    expect(analyzeCommand("git --git-dir=x/.git log").cdTargets).toEqual(["x"]);
    expect(analyzeCommand("git --work-tree=x status").cdTargets).toEqual(["x"]);
    expect(analyzeCommand("git -C a --git-dir=../.git --work-tree=.. status").cdTargets).toEqual(["."]);
  });

  it("with a directory not known in advance, or a --git-dir that is not a .git, is not read-only", () => {
    for (const c of ['git -C "$d" status', "git --git-dir=x log", 'git --work-tree="$d" status', 'git --git-dir="$d/.git" log']) {
      const facts = analyzeCommand(c);
      expect(facts.reasons.some((r) => r !== GIT_AFTER_CD), c).toBe(true);
    }
  });
});

describe("literal shell variables", () => {
  it.each([
    ['f=README.md; cat "$f"', ["README.md"]],
    ["f=a && cat $f", ["a"]],
    ['cat "$f"; f=README.md', ["$f"]],
    ['true || f=README.md; cat "$f"', ["$f"]],
    ['f=README.md & cat "$f"', ["$f"]],
    ['(f=README.md); cat "$f"', ["$f"]],
    ['f=README.md; f=.env; cat "$f"', ["$f"]],
    ['f=-n; cat "$f"', ["$f"]],
    ['f=*.md; cat $f', ["$f"]],
  ])("%s reads %j", (command, reads) => {
    expect(analyzeCommand(command).readTargets).toEqual(reads);
  });
});

describe("substitutions git reads as revisions", () => {
  it.each([
    "git diff --stat $(git merge-base HEAD main)",
    "git log --oneline $(git rev-parse --verify HEAD)",
    "git diff $(git rev-parse --abbrev-ref HEAD)",
  ])("%s is read-only (the printed names are judged when deciding)", (command) => {
    const facts = analyzeCommand(command);
    expect(facts.readOnly).toBe(true);
    expect(Object.keys(facts.producers ?? {})).toHaveLength(1);
  });

  it.each(["git diff $(cat list)", "git diff $(git rev-parse HEAD --output=x)", "git diff $(git merge-base -x HEAD)", "sort $(git merge-base HEAD main)"])("%s is not", (command) => {
    expect(analyzeCommand(command).readOnly).toBe(false);
  });
});

describe("jq over a loop of produced names", () => {
  it("reads them in a file operand's place only", () => {
    expect(analyzeCommand('for f in $(git ls-files); do jq empty "$f"; done').readOnly).toBe(true);
    for (const c of ['for f in $(git ls-files); do jq "$f"; done', 'for f in $(git ls-files); do jq --args . "$f"; done', 'for f in $(cat list); do jq empty "$f"; done', "for f in $(git ls-files); do jq empty $f; done"]) {
      expect(analyzeCommand(c).readOnly, c).toBe(false);
    }
  });
});

describe("git's variables where the command runs", () => {
  const own = { HOME: "/home/u", PATH: "/usr/bin" };
  it.each([
    ["GIT_DIR", { GIT_DIR: "/elsewhere/.git" }],
    ["GIT_WORK_TREE", { GIT_WORK_TREE: "/elsewhere" }],
    ["GIT_COMMON_DIR", { GIT_COMMON_DIR: "/x" }],
    ["GIT_INDEX_FILE", { GIT_INDEX_FILE: "/x/index" }],
    ["GIT_CONFIG_COUNT", { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.worktree", GIT_CONFIG_VALUE_0: "/x" }],
    ["GIT_CONFIG_PARAMETERS", { GIT_CONFIG_PARAMETERS: "'core.worktree'='/x'" }],
    ["GIT_ICASE_PATHSPECS", { GIT_ICASE_PATHSPECS: "1" }],
    ["HOME", { HOME: "/home/other" }],
    ["XDG_CONFIG_HOME", { XDG_CONFIG_HOME: "/x" }],
  ])("%s makes git's listing another one than armature's", (name, extra) => {
    expect(gitLocationVariable({ ...own, ...extra }, own)).toBe(name);
  });

  it("transport, identity and trace variables do not", () => {
    const env = { ...own, GIT_SSL_CAINFO: "/ca", GIT_SSH_COMMAND: "ssh", GIT_AUTHOR_NAME: "a", GIT_TRACE: "1", GIT_PAGER: "cat", GIT_EDITOR: "true", GIT_TERMINAL_PROMPT: "0" };
    expect(gitLocationVariable(env, own)).toBeUndefined();
  });
});
