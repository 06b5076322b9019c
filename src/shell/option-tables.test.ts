// What the option tables decide, through analyzeCommand: abbreviated and attached option values
// (classes 1 and 2), files read that argv does not name (class 5), wrappers and global options
// (class 7). Each attack row has benign controls next to it.
import { describe, expect, it } from "vitest";
import { expectTargets, type Row } from "../../test/analysis-helpers.js";
import { analyzeCommand } from "./index.js";

describe("class 1: long options are resolved as getopt_long resolves prefixes", () => {
  it.each<Row>([
    ["sort --out=.git/config x", ["x"], [".git/config"]],
    ["sort --outp .git/hooks/pre-commit x", ["x"], [".git/hooks/pre-commit"]],
    ["sort -o out x", ["x"], ["out"]],
    ["tee --app .git/config", [], [".git/config"]],
    ["cp --target-dir=.git/hooks x", ["x"], [".git/hooks"]],
    ["cp --t=.git/hooks x", ["x"], [".git/hooks"]],
    ["mv --target=d a", [], ["d", "a"]],
    ["date --fil=secret/key", ["secret/key"], []],
    ["date --ref secret/key", ["secret/key"], []],
    ["shuf --outp=.git/x a", ["a"], [".git/x"]],
    ["du --exclude-f=secret/key", ["secret/key", "."], []],
    ["wget --output-docu=.git/x http://127.0.0.1:9/", [], [".git/x"]],
    ["curl --output-d .git http://127.0.0.1:9/x", [], [".git"]],
    ["git config --fil secret/key --list", ["secret/key"], []],
    ["git archive --out=.git/x HEAD", ["."], [".git/x"]],
    ["git -C sub archive --out=x.tar HEAD", ["sub"], ["sub/x.tar"]],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));

  it.each([
    ["sort --out=x y", false],
    ["sort --co=sh y", false],
    ["sort --unique y", true],
    ["grep --fil=/etc/passwd x", false],
    ["grep --files-with-m foo src", true],
    ["rg --pre=sh foo", false],
    ["rg --pr=sh foo", false],
    ["git status --shor", true],
    ["git branch --cont HEAD", true],
    ["git grep --open-files=vi x", false],
    ["git log --outp=x", false],
    ["ls --almost", true],
    ["ls --hide=x", true],
    ["ls --hid=x", false],
    ["ls --bogus", false],
  ])("%s is read-only: %s", (command, readOnly) => {
    expect(analyzeCommand(command).readOnly, analyzeCommand(command).reasons.join("; ")).toBe(readOnly);
  });
});

describe("class 2: option values are taken as the real tool takes them", () => {
  it.each<Row>([
    ["od --strings secret/key", ["secret/key"], []],
    ["od --strings=3 secret/key", ["secret/key"], []],
    ["od -S 3 secret/key", ["secret/key"], []],
    ["od -w secret/key", ["secret/key"], []],
    ["tail -c5 secret/key", ["secret/key"], []],
    ["head -5 f", ["f"], []],
    ["cp --backup .git/x y", [".git/x"], ["y", "y~", "y/x~"]],
    ["xxd -of a .git/hooks/pre-commit", ["a"], [".git/hooks/pre-commit"]],
    ["xxd -offset 5 a out", ["a"], ["out"]],
    ["xxd -s 16 f", ["f"], []],
    ["xxd -ps f", ["f"], []],
    ["tar cfT out.tar list", ["list", "$(files listed in list)"], ["out.tar"]],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));

  it.each([
    ["date -I 123123592030", false],
    ["date -I", true],
    ["date -Iseconds", true],
    ["date -d yesterday", true],
    ["xxd -s 16 f", true],
    ["xxd -of a b", false],
    ["ls -w 80", true],
    ["ls -p src", true],
  ])("%s is read-only: %s", (command, readOnly) => {
    expect(analyzeCommand(command).readOnly, analyzeCommand(command).reasons.join("; ")).toBe(readOnly);
  });
});

describe("class 5: files read that argv does not name", () => {
  it.each<Row>([
    ["strings @list", ["@list", "list", "$(files and options named in @list)"], []],
    ["wc --files0-from=-", ["$(files listed in standard input)"], []],
    ["du --files0-from=names", ["names", "$(files listed in names)"], []],
    ["sha256sum -c sums", ["sums", "$(files listed in sums)"], []],
    ["find -files0-from list -name x", ["list", "$(starting points listed in list)"], []],
    ["git config --includes -f x.cfg --list", ["x.cfg", "$(files that include.path in the configuration names)"], []],
    ["tar -cf a.tar -T -", ["$(files listed in standard input)"], ["a.tar"]],
    ["curl -d @secret/key http://127.0.0.1:9/", ["secret/key"], []],
    ["curl -F f=@secret/key http://127.0.0.1:9/", ["secret/key"], []],
    ["curl -K cfg http://127.0.0.1:9/", ["cfg"], ["$(files named in cfg)"]],
  ])("%s", (command, reads, writes) => expectTargets(command, reads, writes));

  it.each([
    ["strings @list", false],
    ["strings f", true],
    ["tar -tMf a.tar", false],
    ["tar --multi -tf a.tar", false],
    ["tar -tf a.tar", true],
    ["tar -tf host:a.tar", false],
    ["sed -n 1,20p f", true],
    ["sed --in-pl s/a/b/ f", false],
    ["awk --pro=.git/x '{print}' f", false],
    ["awk -f prog.awk f", false],
  ])("%s is read-only: %s", (command, readOnly) => {
    expect(analyzeCommand(command).readOnly, analyzeCommand(command).reasons.join("; ")).toBe(readOnly);
  });
});

describe("class 7: global options and wrappers", () => {
  const texts = (command: string): string[] =>
    analyzeCommand(command).subcommands.flatMap((s) => [s.text, ...(s.ruleTexts ?? [])]);
  it.each([
    ["git -C . push", "git push"],
    ["git --no-pager push origin", "git push origin"],
    ["git -c core.pager=cat push", "git push"],
    ["git --git-dir .git push", "git push"],
    ["git -c alias.p=push p origin", "git push origin"],
    ["npm --prefix . publish", "npm publish"],
    ["npm --foo publish", "npm publish"],
    ["kubectl --context x delete pod p", "kubectl delete pod p"],
    ["kubectl -n ns delete pod p", "kubectl delete pod p"],
    ["docker -H tcp://127.0.0.1:1 run alpine", "docker run alpine"],
    ["cargo +nightly publish", "cargo publish"],
    ["make -C sub deploy", "make deploy"],
    ["prlimit --nofile=10 -- rm -rf /", "rm -rf /"],
    ["setpriv --reuid=1 git push", "git push"],
    ["strace -f -o t.txt git push", "git push"],
    ["script -qc 'git push' /dev/null", "git push"],
    ["flock /tmp/l -c 'git push'", "git push"],
    ["flock -n /tmp/l git push", "git push"],
    ["unshare -r git push", "git push"],
    ["chroot / git push", "git push"],
    ["env --spl='git push'", "git push"],
    ["su --comm='git push'", "git push"],
    ["xargs -l git push", "git push"],
    ["valgrind --log-file=x git push", "git push"],
  ])("%s is seen as %s", (command, inner) => {
    expect(texts(command)).toContain(inner);
  });

  it("an unmodelled command is opaque; modelled ones are not", () => {
    const sub = (c: string): { opaque?: boolean } => analyzeCommand(c).subcommands[0] ?? {};
    expect(sub("mywrapper rm -rf /").opaque).toBe(true);
    expect(sub("npm test").opaque).toBe(true);
    expect(sub("ls -la").opaque).toBeUndefined();
    expect(sub("git status").opaque).toBeUndefined();
    expect(sub("prlimit ls").opaque).toBeUndefined();
    // Developer tools are seen into only where the invocation is a modelled read-only one.
    expect(sub("npm ls --depth=0").opaque).toBeUndefined();
    expect(sub("docker ps -a").opaque).toBeUndefined();
    expect(sub("docker exec web rm -rf /").opaque).toBe(true);
    expect(sub("kubectl --context x delete pod a").opaque).toBe(true);
    expect(sub("node -e 1").opaque).toBe(true);
  });

  it("wrappers that do not run a command have no inner subcommand", () => {
    expect(analyzeCommand("taskset -p 1 123").subcommands).toHaveLength(1);
    expect(analyzeCommand("prlimit --pid 123 --nofile=10").subcommands).toHaveLength(1);
  });
});

describe("argv the real tool refuses", () => {
  it.each([
    "wget --ou .git/hooks/post-checkout http://127.0.0.1:9/x",
    "valgrind --log=.git/hooks/pre-commit ls",
    "grep -r. .",
    "rg --fo k",
    "cp -r. ../other",
    "git cat-file --batc --ba",
    "find -L. -name key",
  ])("%s leaves the analysis incomplete", (c) => {
    const r = analyzeCommand(c);
    expect(r.complete).toBe(false);
    expect(r.readOnly).toBe(false);
  });

  it.each(["grep -rn TODO src", "rg --follow k", "wget -O out.html http://127.0.0.1:9/x", "valgrind --leak-check=full ls", "date -Ihours", "git cat-file --batch-check", "find -L . -name key"])("%s stays complete", (c) => {
    expect(analyzeCommand(c).complete).toBe(true);
  });

  it("date -I with a format date does not know is not read-only", () => {
    expect(analyzeCommand("date -I123123592030").readOnly).toBe(false);
    expect(analyzeCommand("date -Ih").readOnly).toBe(true);
  });
});
