// The facts the permission engine reads instead of argv (issue 19): what a command deletes, what
// it runs, the network it reaches, the project files it loads, its canonical argv, and the
// acceptEdits and git-dir facts. Each row is one command as the analysis reads it.
import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";
import { commandFacts, type CommandFacts } from "./command-facts.js";
import { sub } from "../../test/permission-helpers.js";

/** The facts of the command's first subcommand that is not nested (what the text starts with). */
function top(command: string): CommandFacts {
  return commandFacts(analyzeCommand(command).subcommands.find((s) => !s.nested)!);
}

describe("CommandFacts fields", () => {
  it.each<[string, Partial<Record<keyof CommandFacts, unknown>>]>([
    ["rm -rf -- build -x", { deletes: { paths: [{ path: "build", itself: true, shown: "rm build" }, { path: "-x", itself: true, shown: "rm -x" }], unknown: null } }],
    ["timeout 5 /bin/rm -f a", { deletes: { paths: [{ path: "a", itself: true, shown: "rm a" }], unknown: null }, writtenName: "timeout", programWord: "/bin/rm", program: "rm" }],
    ["find . src -name '*.o' -delete", { deletes: { paths: [{ path: ".", itself: false, shown: "find . -delete" }, { path: "src", itself: false, shown: "find src -delete" }], unknown: null } }],
    ["find -name x -delete", { deletes: { paths: [{ path: ".", itself: false, shown: "find . -delete" }], unknown: null } }],
    ["find -files0-from list -delete", { deletes: { paths: [], unknown: expect.stringContaining("-files0-from") } }],
    ["find . -name x", { deletes: { paths: [], unknown: null } }],
    ["cat a", { deletes: { paths: [], unknown: null }, executions: [] }],
  ])("deletes: %s", (command, want) => {
    expect(top(command)).toMatchObject(want);
  });

  it.each<[string, unknown[]]>([
    ["ls | xargs grep -n foo", [{ kind: "command", text: "grep -n foo" }]],
    ["find . -name '*.o' -exec rm {} ;", [{ kind: "command", text: "rm {}" }]],
    ["sudo rm -rf build", [{ kind: "command", text: "rm -rf build" }]],
    ["bash -c 'rm x; ls'", [{ kind: "script", text: "rm x; ls" }]],
    ["sh <<'EOF'\nrm -rf x\nEOF", [{ kind: "script", text: "rm -rf x\n" }]],
    [
      "mywrap -o=.git/hooks/pre-commit rm -rf /",
      [
        { kind: "may", text: "-o=.git/hooks/pre-commit rm -rf /", mayWrite: ".git/hooks/pre-commit", deletes: { paths: [] } },
        { kind: "may", text: "rm -rf /", mayWrite: "rm", deletes: { paths: [{ path: "/", itself: true, shown: "rm /" }] } },
        { kind: "may", text: "-rf /", mayWrite: "-rf" },
        { kind: "may", text: "/", mayWrite: "/" },
      ],
    ],
  ])("executions: %s", (command, want) => {
    const runner = analyzeCommand(command).subcommands.find((s) => !s.nested && s.argv[0] !== "ls")!;
    expect(commandFacts(runner).executions).toMatchObject(want);
  });

  it.each<[string, boolean, string[]]>([
    ["curl -X GET https://User@Example.COM:8443/x", true, ["example.com"]],
    ["wget -q example.org/file", true, ["example.org"]],
    ["git clone git@github.com:a/b.git", true, ["github.com"]],
    ["git fetch https://host.example/repo", true, ["host.example"]],
    ["scp notes.txt me@backup.example:/srv", true, ["backup.example"]],
    ["ssh somewhere", true, []],
    ["cat < /dev/tcp/evil.example/80", false, ["evil.example"]],
    ["git status", false, []],
    ["ls -la", false, []],
    ["npm view react version", true, []],
    ["npm outdated", true, []],
    ["npx prettier --check .", true, []],
    ["npm ls", false, []],
    ["npm --version", false, []],
  ])("network: %s", (command, network, hosts) => {
    const facts = top(command);
    expect({ network: facts.network || facts.hosts.length > 0, hosts: facts.hosts }).toEqual({ network: network || hosts.length > 0, hosts });
  });

  it.each<[string, string[]]>([
    ["yarn --version", [".yarnrc.yml", ".yarnrc", ".npmrc"]],
    ["npm ls", [".npmrc"]],
    ["pnpm ls", [".pnpmfile.cjs", ".pnpmfile.mjs", "pnpm-workspace.yaml", ".npmrc"]],
    ["cargo --version", ["rust-toolchain.toml", "rust-toolchain"]],
    ["git status", [".git/config", ".git/config.worktree"]],
    ["ls", []],
  ])("project programs: %s", (command, files) => {
    expect(top(command).projectPrograms).toEqual(files);
  });

  it.each<[string, string[]]>([
    ["grep --recur -e x .", ["grep", "--recursive", "--regexp", "x", "."]],
    ["grep -rnex .", ["grep", "--recursive", "--line-number", "--regexp", "x", "."]],
    ["sort -ro f x", ["sort", "--reverse", "--output", "f", "x"]],
    ["sort -uo/x", ["sort", "--unique", "--output", "/x"]],
    ["rm -fr d", ["rm", "--force", "--recursive", "d"]],
    ["ls -la", ["ls", "-l", "--all"]],
    ["git push -fn origin", ["git", "push", "--force", "--dry-run", "origin"]],
    ["git commit --no-verify -m x", ["git", "commit", "--no-verify", "--message", "x"]],
    ["git push --no-force", ["git", "push", "--no-force"]],
    ["curl -sSo out https://h/", ["curl", "--silent", "--show-error", "--output", "out", "https://h/"]],
    ["tar -xzf a.tgz", ["tar", "--extract", "--gzip", "--file", "a.tgz"]],
    ["git log -n 3 -5", ["git", "log", "--max-count", "3", "-5"]],
    ["timeout 5 grep --regexp=x -- -f", ["grep", "--regexp", "x", "--", "-f"]],
    ["cp --recur --deref a .claude/", ["cp", "--recursive", "--dereference", "a", ".claude/"]],
    ["git -C . fetch --upload-pa=x origin", ["git", "-C", ".", "fetch", "--upload-pack", "x", "origin"]],
    ["mywrap --x y", ["mywrap", "--x", "y"]],
    ["tar xzf a.tgz", ["tar", "--extract", "--gzip", "--file", "a.tgz"]],
    ["npm -g ls", ["npm", "--global", "ls"]],
    ["npm -C sub install -D x", ["npm", "--prefix", "sub", "--save-dev", "install", "x"]],
    ["kubectl -n prod get pods -o yaml -l app=web", ["kubectl", "--namespace", "prod", "--output", "yaml", "--selector", "app=web", "get", "pods"]],
    ["kubectl delete -f x.yaml -A", ["kubectl", "--filename", "x.yaml", "--all-namespaces", "delete"]],
    ["helm -n prod uninstall web", ["helm", "--namespace", "prod", "uninstall", "web"]],
    ["helm upgrade -i web ./chart -f v.yaml", ["helm", "--install", "--values", "v.yaml", "upgrade", "web", "./chart"]],
    ["pnpm -F web add -D x", ["pnpm", "--filter", "web", "--save-dev", "add", "x"]],
  ])("canonical argv: %s", (command, argv) => {
    expect(top(command).canonicalArgv).toEqual(argv);
  });

  it.each<[string, boolean]>([
    ["mkdir -p a/b", true],
    ["cd src", true],
    ["sed -i 's/a/b/g' f.txt", true],
    ["sed -i 's/a/b/w out' f.txt", false],
    ["sed -n p f.txt", false],
    ["cat f.txt", false],
  ])("file command: %s", (command, want) => {
    expect(top(command).fileCommand).toBe(want);
  });

  it("git-dir options, written names and words", () => {
    expect(top("git --git-dir=/x/.git status").gitDirOption).toBe("--git-dir=/x/.git");
    expect(top("git status -- --work-tree").gitDirOption).toBeNull();
    expect(top("ls --git-dir=x").gitDirOption).toBeNull();
    const f = top("nice -n 5 rm *.o");
    expect(f.wordsWritten).toEqual(["nice", "-n", "5", "rm", "*.o"]);
    expect(commandFacts(sub("")).writtenName).toBe("");
    expect(commandFacts(sub("x", { argv: [] })).writtenName).toBeUndefined();
  });

  it("every new field is frozen, and a subcommand made elsewhere gets its argv as its canonical argv", () => {
    const f = top("mywrap rm -rf /");
    for (const v of [f.deletes, f.deletes.paths, f.wordsWritten, f.executions, f.executions[0], f.hosts, f.projectPrograms, f.canonicalArgv]) expect(Object.isFrozen(v)).toBe(true);
    const made = commandFacts(sub("grep --recur x"));
    expect(made.canonicalArgv).toEqual(["grep", "--recur", "x"]);
  });
});
