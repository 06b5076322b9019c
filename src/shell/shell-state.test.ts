import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";

/**
 * Class 4 of issue 8: shell state that changes how later text is evaluated. An attack must be
 * incomplete (a human approves it whatever the rules and mode), or carry the environment it
 * really gets; a control must stay as it was (complete, and read-only where marked).
 */
const INCOMPLETE: string[] = [
  // Names with subscripts: bash expands and evaluates the subscript.
  "wait -p 'a[$(id)]'",
  "wait -n -p 'a[$(id)]'",
  "printf -v 'a[$(id)]' x",
  "printf -v'a[$(id)]' x",
  "read 'a[$(id)]' < /dev/null",
  "read -r x 'a[$(id)]' < /dev/null",
  "read -ra 'a[$(id)]' < /dev/null",
  "read -p '> ' -a 'a[`id`]' < /dev/null",
  "mapfile 'a[$(id)]' < /dev/null",
  "readarray -t 'a[$(id)]' < /dev/null",
  "mapfile -C id a < /dev/null",
  "getopts ab 'a[$(id)]'",
  "declare 'a[$(id)]=1'",
  "typeset 'a[$(id)]'",
  "local 'a[$(id)]'",
  "export 'a[$(id)]=1'",
  "readonly 'a[$(id)]'",
  "declare -n r='a[$(id)]'; echo $r",
  "unset 'a[$(id)]'",
  "unset -v 'a[$(id)]'",
  "[[ -v 'a[$(id)]' ]]",
  "[[ -R 'a[$(id)]' ]]",
  "test -v 'a[$(id)]'",
  "[ -v 'a[$(id)]' ]",
  "builtin read 'a[$(id)]' < /dev/null",
  "command printf -v 'a[$(id)]' x",
  "read \"$n\" < /dev/null",
  // Arithmetic on values the command itself controls.
  "x='a[$(id)]'; echo $((x))",
  "x='a[$(id)]'; echo $[x]",
  "x='a[$(id)]'; ((x))",
  "x='a[$(id)]'; for ((i=x; i<1; i++)); do :; done",
  "read x < f; echo $((x + 1))",
  "for f in *; do echo $((f)); done",
  "x=$(cat f); echo $(( x ))",
  "echo $(( $(cat f) + 1 ))",
  "((a[$(id)]))",
  "echo $(( `cat f` ))",
  "let 'x=a[$(id)]'",
  "let \"$y\"",
  "declare -i n; n='a[$(id)]'",
  "x='a[$(id)]'; echo ${!x}",
  "x='a[$(id)]'; echo ${y:x}",
  "x='a[$(id)]'; echo ${y[x]}",
  "x='a[$(id)]'; [[ $x -eq 1 ]]",
  "x='a[$(id)]'; [[ \"$x\" -lt 1 ]]",
  "x='a[$(id)]'; y[x]=1",
  "x='a[$(id)]'; y=([x]=1)",
  "f() { echo $(($1)); }; f 'a[$(id)]'",
  "x='a[$(id)]' bash -c 'echo $((x))'",
  // Options and variables that change what later text runs.
  "shopt -s expand_aliases; alias ls='id'; ls",
  "shopt -s \"$o\"",
  "set -o posix",
  "set -H",
  "set $opts",
  "enable -f ./x.so x",
  "hash -p /tmp/x ls; ls",
  "fc -s",
  "fc -e vi",
  "history -s 'rm -rf x'",
  "compgen -C id x",
  "PS4='$(id)'; set -x; ls",
  "PROMPT_COMMAND=id",
  "BASH_ENV=./x.sh bash -c ls",
  "export BASH_ENV=./x.sh",
  "declare -x SHELLOPTS=xtrace",
  "BASH_CMDS[ls]=/tmp/x; ls",
  "BASH_ALIASES[ls]=id",
  "set -k; bash -c ls BASH_ENV=./x.sh",
  // Found by the fuzzer: a quoted builtin name is the same builtin; a newline before `\\word`.
  "$'declare' 'a[$(id)]=1'",
  "d''eclare -n r='a[$(id)]'; echo $r",
  "cd sub\n\\git status",
  "echo hi\n\\rm -rf src",
];

/** Controls: complete (no human needed by themselves); the `true` ones are also read-only. */
const CONTROLS: Array<[string, boolean]> = [
  ["for ((i=0; i<3; i++)); do echo $i; done", true],
  ["n=3; echo $((n + 1))", true],
  ["for i in 1 2 3; do echo $((i * 2)); done", true],
  ["for i in {1..5}; do echo $((i * 2)); done", true],
  ["echo $((RANDOM % 6)) $(( $# + 1 ))", true],
  ["echo ${x:-default} ${#x} ${x:1:2}", true],
  ["[[ -v HOME ]]", true],
  ["[[ -v a[0] ]]", true],
  ["i=0; [[ $i -lt 3 ]]", true],
  ["a=(1 2 3); echo ${a[1]} ${a[@]}", true],
  ["set -euo pipefail; ls", true],
  ["set -x; ls", true],
  ["read -r line < README.md", false],
  ["while read -r l; do echo \"$l\"; done < README.md", false],
  ["printf -v x '%s' y", false],
  ["declare -i n=3", false],
  ["unset x", false],
  ["shopt -s nullglob", false],
  ["export NODE_ENV=test", false],
];

describe("shell state that changes evaluation (issue 8 class 4)", () => {
  it.each(INCOMPLETE)("needs a human: %s", (command) => {
    const f = analyzeCommand(command);
    expect(f.complete, f.reasons.join("; ")).toBe(false);
    expect(f.readOnly).toBe(false);
  });

  it.each(CONTROLS)("control: %s", (command, readOnly) => {
    const f = analyzeCommand(command);
    expect(f.complete, f.reasons.join("; ")).toBe(true);
    if (readOnly) expect(f.readOnly, f.reasons.join("; ")).toBe(true);
  });

  it("set -k: a later NAME=value word is the command's environment", () => {
    const f = analyzeCommand("set -k; ls LD_PRELOAD=./x.so");
    expect(f.subcommands[1]?.env).toEqual({ LD_PRELOAD: "./x.so" });
    expect(f.readOnly).toBe(false);
    // Without set -k it is an operand.
    expect(analyzeCommand("ls LD_PRELOAD=./x.so").subcommands[0]?.env).toEqual({});
  });

  it("a bare assignment to a name that may be exported is every later command's environment", () => {
    expect(analyzeCommand("PAGER=id; git log").subcommands[0]?.env).toEqual({ PAGER: "id" });
    expect(analyzeCommand("PATH=/tmp/x; ls").subcommands[0]?.env).toEqual({ PATH: "/tmp/x" });
    expect(analyzeCommand("export PAGER=id; git log").subcommands[1]?.env).toEqual({ PAGER: "id" });
    expect(analyzeCommand("set -a; ld=./x.so; ls").subcommands[1]?.env).toEqual({ ld: "./x.so" });
    // A lower-case shell variable stays the shell's.
    expect(analyzeCommand("n=3; ls").subcommands[0]?.env).toEqual({});
  });
});

describe("read into plain shell variables is read-only", () => {
  it.each([
    ["while read -r l; do echo \"$l\"; done < README.md", true],
    ["while IFS= read -r line; do echo \"$line\"; done < f", true],
    ["read -r a b c < f", true],
    ["read -rp 'x? ' ans", true],
    ["read -ra parts < f", true],
    ["read -t 1 -n 1 key", true],
    ["read PATH < f", false],
    ["read -a BASH_ARGV < f", false],
    ["read -u 3 x", true],
    ["read -q x", false],
  ])("%s → read-only %s", (command, readOnly) => {
    expect(analyzeCommand(command).readOnly).toBe(readOnly);
  });

  it("a loop variable's words are the paths it names", () => {
    expect([...analyzeCommand('for d in src docs; do cat "$d/x"; done').readTargets].sort()).toEqual(["docs/x", "src/x"]);
    expect(analyzeCommand("for f in src/*.ts; do wc -l \"$f\"; done").readTargets).toEqual(["src/*.ts"]);
    // Assigned elsewhere too: not known.
    expect(analyzeCommand('for f in a; do f=/etc/passwd; cat "$f"; done').readTargets).toEqual(["$f"]);
  });
});
