import { describe, expect, it } from "vitest";
import type { ShellSubcommand } from "../tool/types.js";
import { analyzeCommand, normalizeCommandText } from "./index.js";

const pick = (subs: ShellSubcommand[]): Array<[string, string, boolean]> => subs.map((s) => [s.text, s.effective, s.nested]);

describe("analyzeCommand: simple commands", () => {
  it("extracts argv after quote removal, env and redirects", () => {
    const f = analyzeCommand('FOO=1 ls -la "a b" > /dev/null 2>&1');
    expect(f.subcommands).toHaveLength(1);
    expect(f.subcommands[0]).toEqual({
      argv: ["ls", "-la", "a b"],
      text: "ls -la a b",
      effective: "ls -la a b",
      nested: false,
      readOnly: { objection: "sets FOO for the command" },
      env: { FOO: "1" },
      redirects: [
        { op: ">", target: "/dev/null" },
        { op: "2>&", target: "1" },
      ],
      targets: { read: ["a b"], write: [] },
      reader: { listed: ["a b"], recursive: [], follows: false, limit: "names" },
      // The canonical readings deny rules also see: clusters split, each option once first, in
      // long form and with short letters as written.
      ruleTexts: ["ls -l --all a b", "ls --all -l a b", "ls -l -a a b", "ls -a -l a b"],
    });
  });

  it.each([
    ["'a b'", "a b"],
    ['"a\\"b"', 'a"b'],
    ["a\\ b", "a b"],
    ["'it'\\''s'", "it's"],
    ["$'a\\tb'", "a\tb"],
    ["$'\\x41\\101\\u00e9'", "AAé"],
    ['"$HOME"/x', "$HOME/x"],
    ["r''m", "rm"],
    ['$"rm"', "rm"],
    ['a$"b"c', "abc"],
    ['$"a"$"b"', "ab"],
    ['"x$"', "x$"],
    ["z$", "z$"],
  ])("quote removal of %s", (word, expected) => {
    expect(analyzeCommand(`echo ${word}`).subcommands[0]?.argv).toEqual(["echo", expected]);
  });

  it('$"…" is its own text, as bash reads it in the C locale', () => {
    const rm = analyzeCommand('$"rm" -rf x');
    expect(rm.subcommands[0]?.argv).toEqual(["rm", "-rf", "x"]);
    expect(rm.writeTargets).toEqual(["x"]);
    expect(analyzeCommand('cat $"secret/key"')).toMatchObject({ readTargets: ["secret/key"], readOnly: true });
    expect(analyzeCommand('echo $"$HOME"').subcommands[0]?.argv).toEqual(["echo", "$HOME"]);
    expect(analyzeCommand("echo $ x").subcommands[0]?.argv).toEqual(["echo", "$", "x"]);
  });

  it.each([
    'TEXTDOMAIN=x; $"ls"',
    'export TEXTDOMAINDIR=.; $"ls"',
    "bash -c $'TEXT\\x44OMAIN=x'",
  ])("%s: setting TEXTDOMAIN makes $\"…\" unknown", (command) => {
    expect(analyzeCommand(command)).toMatchObject({ readOnly: false, complete: false });
  });

  it("a plain listing is read-only and complete", () => {
    expect(analyzeCommand("ls -la src")).toMatchObject({ readOnly: true, complete: true, reasons: [] });
  });

  it("normalizeCommandText joins argv with single spaces", () => {
    expect(normalizeCommandText(["git", "commit", "-m", "a  b"])).toBe("git commit -m a  b");
    expect(analyzeCommand("git   status    -s").subcommands[0]?.text).toBe("git status -s");
  });
});

describe("analyzeCommand: every command that runs", () => {
  it("lists, pipelines and compound commands in source order", () => {
    const f = analyzeCommand("a && b | c; if d; then e; fi; while f; do g; done; (h); { i; }; case x in y) j;; esac");
    expect(f.subcommands.map((s) => s.text)).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]);
    expect(f.subcommands.every((s) => !s.nested)).toBe(true);
  });

  it("substitutions are nested subcommands", () => {
    const f = analyzeCommand("echo $(id -u) `whoami` <(date) >(wc -l) \"$(pwd)\"");
    expect(pick(f.subcommands)).toEqual([
      ["id -u", "id -u", true],
      ["whoami", "whoami", true],
      ["date", "date", true],
      ["wc -l", "wc -l", true],
      ["pwd", "pwd", true],
      ["echo $(id -u) `whoami` <(date) >(wc -l) $(pwd)", "echo $(id -u) `whoami` <(date) >(wc -l) $(pwd)", false],
    ]);
  });

  it("here-document bodies run substitutions only with an unquoted delimiter", () => {
    expect(analyzeCommand("cat <<EOF\n$(id)\nEOF").subcommands.map((s) => s.text)).toEqual(["cat", "id"]);
    expect(analyzeCommand("cat <<'EOF'\n$(id)\nEOF").subcommands.map((s) => s.text)).toEqual(["cat"]);
    expect(analyzeCommand('cat <<"EOF"\n$(id)\nEOF').subcommands.map((s) => s.text)).toEqual(["cat"]);
  });

  it("a here-document's trailing pipeline is part of the command line", () => {
    const f = analyzeCommand("cat <<EOF | grep x && rm y\nbody\nEOF");
    expect(f.subcommands.map((s) => s.text)).toEqual(["cat", "grep x", "rm y"]);
  });

  it("function bodies are extracted", () => {
    expect(analyzeCommand("f() { rm -rf x; }").subcommands.map((s) => s.text)).toEqual(["rm -rf x"]);
  });

  it("transparent wrappers: effective strips them, the inner command is nested too", () => {
    const f = analyzeCommand("timeout 5 nice -n 3 stdbuf -o0 git status");
    expect(pick(f.subcommands)).toEqual([
      ["timeout 5 nice -n 3 stdbuf -o0 git status", "git status", false],
      ["nice -n 3 stdbuf -o0 git status", "git status", true],
      ["stdbuf -o0 git status", "git status", true],
      ["git status", "git status", true],
    ]);
    expect(f.readOnly).toBe(true);
  });

  it("privilege and exec wrappers are not stripped from effective", () => {
    const f = analyzeCommand("timeout 5 sudo -u root rm x");
    expect(pick(f.subcommands)).toEqual([
      ["timeout 5 sudo -u root rm x", "sudo -u root rm x", false],
      ["sudo -u root rm x", "sudo -u root rm x", true],
      ["rm x", "rm x", true],
    ]);
  });

  it("env assignments given to env become the inner command's env", () => {
    const f = analyzeCommand("env -i A=1 B='x y' make test");
    expect(f.subcommands[1]).toMatchObject({ argv: ["make", "test"], env: { A: "1", B: "x y" }, nested: true });
  });

  it.each([
    ["bash -c 'ls; rm x'", ["ls", "rm x"]],
    ["sh -ec \"git push\"", ["git push"]],
    ["eval 'a | b'", ["a", "b"]],
    ["xargs -0 -n 1 rm -f", ["rm -f"]],
    ["find . -name '*.o' -exec rm {} + -exec echo done \\;", ["rm {}", "echo done"]],
    ["watch -n 2 'df -h | head'", ["df -h", "head"]],
    ["watch -x ls -la", ["ls -la"]],
    ["sudo -u bob -- make install", ["make install"]],
    ["setsid -f long-task --flag", ["long-task --flag"]],
    ["command -p ls", ["ls"]],
    ["builtin cd /", ["cd /"]],
    ["flock /tmp/lock -c 'make all'", ["make all"]],
    ["env -S 'a b c'", ["a b c"]],
    ["bash -c 'bash -c \"echo deep\"'", ["echo deep"]],
  ])("%s runs %j", (command, expected) => {
    const nested = analyzeCommand(command).subcommands.filter((s) => s.nested).map((s) => s.text);
    for (const text of expected) expect(nested).toContain(text);
  });

  it("command -v is a lookup, not a wrapper", () => {
    expect(analyzeCommand("command -v rm").subcommands).toHaveLength(1);
  });

  it("$IFS splits words so that deny rules see the command", () => {
    const f = analyzeCommand("rm${IFS}-rf${IFS}/");
    expect(f.subcommands[0]?.argv).toEqual(["rm", "-rf", "/"]);
    expect(f.readOnly).toBe(false);
  });

  it("line continuations join words as bash does", () => {
    expect(analyzeCommand("r\\\nm -rf x").subcommands[0]?.argv).toEqual(["rm", "-rf", "x"]);
    expect(analyzeCommand("echo 'a\\\nb'").subcommands[0]?.argv).toEqual(["echo", "a\\\nb"]);
  });

  it("non-static words are kept as written", () => {
    expect(analyzeCommand("cat $HOME/.ssh/id_rsa ${X:-y} *.txt").subcommands[0]?.argv).toEqual([
      "cat", "$HOME/.ssh/id_rsa", "${X:-y}", "*.txt",
    ]);
  });
});

describe("analyzeCommand: targets", () => {
  it.each([
    ["echo x > out 2>> err &> both >| clob", ["out", "err", "both", "clob"], [], []],
    ["ls > /dev/null 2>&1", [], [], []],
    ["cat < in", [], ["in"], []],
    ["cp a b dest/", ["dest/"], ["a", "b"], []],
    ["cp -t dest a b", ["dest"], ["a", "b"], []],
    ["mv old new", ["old", "new"], [], []],
    ["tee -a log1 log2", ["log1", "log2"], [], []],
    ["touch a; rm -f b; mkdir -p c/d; ln -s t l", ["a", "b", "c/d", "l"], [], []],
    ["sed -i.bak 's/a/b/' f1 f2", ["f1", "f2"], ["f1", "f2"], []],
    ["sed -n 1p f", [], ["f"], []],
    ["sort -o sorted in", ["sorted"], ["in"], []],
    ["head -n 5 a; tail -c 10 b; grep -e x c d; rg -n pat e", [], ["a", "b", "c", "d", "e"], []],
    ["grep -rn pattern src lib", [], ["src", "lib"], []],
    ["awk -F, '{print}' v=1 data.csv", [], ["data.csv"], []],
    ["jq -r .x a.json --rawfile t t.txt", [], ["a.json", "t.txt"], []],
    ["dd if=/dev/sda of=disk.img", ["disk.img"], ["/dev/sda"], []],
    ["cd /tmp && pushd src; cd", [], [], ["/tmp", "src", "/tmp/src", "~"]],
    ["cd .claude && echo x > settings.json", ["settings.json", ".claude/settings.json"], [], [".claude"]],
    ["cd /etc; cat passwd", [], ["passwd", "/etc/passwd"], ["/etc"]],
    ["cat $(cat list) <(cat inner)", [], ["list", "inner", "$(cat list)"], []],
    ["chmod 644 a b", ["a", "b"], [], []],
    ["tar -xzf a.tgz -C out", ["out"], ["a.tgz"], []],
    ["tar -czf a.tgz src", ["a.tgz"], ["src"], []],
    ["curl -o page.html https://x.example", ["page.html"], [], []],
    ["find build -name '*.o' -delete", ["build"], ["build"], []],
    ["echo x | tee >(cat) out", ["out"], [], []],
    ["source ./env.sh", [], ["./env.sh"], []],
    ["echo $(< /etc/shadow)", [], ["/etc/shadow"], []],
    ["git blame --contents /etc/shadow f", [], ["/etc/shadow", "f"], []],
    ["git diff --no-index /etc/hosts b", [], ["/etc/hosts", "b"], []],
  ])("%s", (command, writes, reads, cds) => {
    const f = analyzeCommand(command);
    expect([...f.writeTargets].sort()).toEqual([...writes].sort());
    expect([...f.readTargets].sort()).toEqual([...reads].sort());
    expect(f.cdTargets).toEqual(cds);
  });
});

describe("analyzeCommand: fail closed", () => {
  it.each([
    ["ls (", "syntax error"],
    ['echo "unterminated', "syntax error|missing"],
    ["ls\r-la", "skipped"],
  ])("%s is incomplete", (command, reason) => {
    const f = analyzeCommand(command);
    expect(f.complete).toBe(false);
    expect(f.readOnly).toBe(false);
    expect(f.reasons.join(" ")).toMatch(new RegExp(reason, "i"));
  });

  it("still extracts commands around a syntax error for deny rules", () => {
    const f = analyzeCommand("rm -rf / ; ls (");
    expect(f.complete).toBe(false);
    expect(f.subcommands.map((s) => s.text)).toContain("rm -rf /");
  });

  it("over 50 subcommands: incomplete, not read-only, all extracted", () => {
    const f = analyzeCommand(Array.from({ length: 60 }, (_, i) => `echo ${i}`).concat("rm x").join("; "));
    expect(f).toMatchObject({ readOnly: false, complete: false });
    expect(f.subcommands).toHaveLength(61);
    expect(f.subcommands.at(-1)?.text).toBe("rm x");
  });

  it("over 10,000 characters: incomplete, not read-only, still extracted", () => {
    const f = analyzeCommand(`echo ${"a".repeat(10_001)}; rm x`);
    expect(f).toMatchObject({ readOnly: false, complete: false });
    expect(f.subcommands.map((s) => s.text)).toContain("rm x");
  });

  it("deeply nested shell strings stop with a reason", () => {
    let cmd = "rm x";
    for (let i = 0; i < 12; i++) cmd = `bash -c ${shellQuote(cmd)}`;
    const f = analyzeCommand(cmd);
    expect(f.complete).toBe(false);
    expect(f.readOnly).toBe(false);
  });

  it("never throws on arbitrary input", () => {
    for (const s of ["", " ", "\0", "((((", "$((", "'", "`", "<<", "<<EOF", "}", "fi", "case", "\\", "${", "$(", "a=(", "&&", "|"]) {
      expect(() => analyzeCommand(s)).not.toThrow();
    }
    expect(analyzeCommand("")).toMatchObject({ subcommands: [], readOnly: true, complete: true });
  });
});

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

describe("fallback extraction for text the grammar rejects", () => {
  it.each([
    ["for x in a; { rm -rf /; }", "rm -rf /"],
    ["{rm,-rf,/}", "rm -rf /"],
    [": <<EOF ; rm x\nbody\nEOF", "rm x"],
    ["echo $((: x) ); rm y (", "rm y"],
  ])("%s still shows %s to deny rules", (command, text) => {
    const f = analyzeCommand(command);
    expect(f.complete).toBe(false);
    expect(f.readOnly).toBe(false);
    expect(f.subcommands.map((s) => s.text)).toContain(text);
  });
});

describe("robustness on generated input", () => {
  // A fixed-seed generator: the same strings every run.
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pieces = ["ls", "rm", " ", " ", "-x", "'", '"', "\\", "$", "(", ")", "{", "}", "`", ";", "&", "|", "<", ">", "\n", "#", "=", "a", "$(", "<<", "EOF", "*", "~", "!", "[[", "]]", "$'", "\t", "\r", "\u00a0"];
  const strings = Array.from({ length: 1500 }, () => {
    let s = "";
    const n = 1 + Math.floor(random() * 14);
    for (let i = 0; i < n; i++) s += pieces[Math.floor(random() * pieces.length)];
    return s;
  });

  it("never throws and keeps its invariants", () => {
    for (const s of strings) {
      const f = analyzeCommand(s);
      expect(f.readOnly, s).toBe(f.reasons.length === 0);
      if (!f.complete) expect(f.readOnly, s).toBe(false);
      for (const sub of f.subcommands) expect(sub.text).toBe(sub.argv.join(" "));
    }
  });
});

describe("limits never hide commands from deny rules", () => {
  it("a command too long to parse is still split into commands", () => {
    const f = analyzeCommand(`echo ${"a".repeat(1_000_001)}; rm -rf /`);
    expect(f).toMatchObject({ readOnly: false, complete: false });
    expect(f.subcommands.map((s) => s.text)).toContain("rm -rf /");
  });

  it.each([
    ["substitutions", "echo " + "$(".repeat(20_000) + "rm x" + ")".repeat(20_000)],
    ["subshells", "(".repeat(20_000) + "rm x" + ")".repeat(20_000)],
    ["groups", "{ ".repeat(20_000) + "rm x; " + "}; ".repeat(20_000)],
    ["evals", "eval ".repeat(20_000) + "rm x"],
  ])("deeply nested %s do not overflow the stack and stay visible", (_name, command) => {
    const f = analyzeCommand(command);
    expect(f.readOnly).toBe(false);
    expect(f.subcommands.some((s) => s.argv.includes("rm"))).toBe(true);
  });

  it("a shell string nested too deep is still split into commands", () => {
    let cmd = "rm -rf /";
    for (let i = 0; i < 12; i++) cmd = `bash -c ${JSON.stringify(cmd)}`;
    const f = analyzeCommand(cmd);
    expect(f.complete).toBe(false);
    expect(f.subcommands.some((s) => s.argv.includes("rm"))).toBe(true);
  });
});
