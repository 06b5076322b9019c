// Differential test against the real bash: each script runs under `bash -x` (harmless payloads:
// the `:` builtin with a marker), and every payload bash actually ran must be among the
// analysis's subcommands. This catches places where the grammar reads the text differently
// from bash (nested backquotes, here-documents, continuations, comments, CR…).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeCommand } from "./index.js";

interface Case {
  script: string;
  /** Payloads bash runs that no static analysis can see (runtime indirection): then the
   * command must at least not be read-only. */
  indirect?: boolean;
}

const CASES: Case[] = [
  { script: ": M1; : M2 && : M3 || : M4 | : M5 & wait" },
  { script: "echo `echo \\`: M1\\``" },
  { script: 'echo "`: M1`" "$( : M2 )" $( : M3 )' },
  { script: "cat <<EOF\n$( : M1 )\nEOF\n: M2" },
  { script: "cat <<-EOF\n\t$( : M1 )\n\tEOF\n: M2" },
  { script: "cat <<EOF\n`: M1` $( : M2 ) \\`: M0\\`\nEOF" },
  { script: "cat <<-EOF\n\t`: M1`\n\t\\$( : M0 )\n\tEOF" },
  { script: "cat <<'EOF'\n$( : M0 )\nEOF\n: M1" },
  { script: 'cat <<"E"OF\n$( : M0 )\nEOF\n: M1' },
  { script: "cat <<\\EOF\n$( : M0 )\nEOF\n: M1" },
  { script: "cat <<EOF | : M1 && : M2\nbody\nEOF\n: M3" },
  { script: "cat <<EOF\nEOF \n: M0\nEOF\n: M1" },
  { script: ":\\\n M1; \\\n: M2" },
  { script: ": M1 # comment \\\n: M2" },
  { script: "echo 'a\\\n'; : M1" },
  { script: "case x in x) : M1;& y) : M2;;& *) : M3;; esac" },
  { script: "f() { : M1; }; f; function g { : M2; }; g" },
  { script: "if : M1; then : M2; elif : M3; then :; else : M4; fi" },
  { script: "for i in $( : M1 ); do :; done; while : M2; false; do :; done" },
  { script: "(( $( : M1 ) 1 )); [[ $( : M2 ) ]]; [ \"$( : M3 )\" ]" },
  { script: "x=${y:-$( : M1 )}; z=${x#$( : M2 )}; echo ${x/$( : M3 )/q}" },
  { script: "declare a=$( : M1 ); export b=$( : M2 ); readonly c=$( : M3 )" },
  { script: "cat <( : M1 ) <<< $( : M2 ); echo > >( : M3 )" },
  { script: "{ : M1; }; ( : M2 ); ! : M3; time : M4" },
  { script: "eval ': M1; : M2'; eval \": M3\"" },
  { script: "bash -c ': M1'; sh -c \": M2\"; bash -c 'bash -c \": M3\"'" },
  { script: "echo $'\\x27'; : M1" },
  { script: "echo \"a\\\"b\"; : M1; echo 'it'\\''s'; : M2" },
  { script: "a[$( : M1 )]=1; echo ${a[$( : M2 )]}" },
  { script: "trap ': M1' EXIT" },
  { script: "command : M1; builtin : M2; : M3" },
  { script: "echo $(case x in x) : M1;; esac)" },
  { script: "echo $( (: M1) ) $(( 1 )); : M2" },
  { script: "echo $( : M1 # ) \n )" },
  { script: "x=a; echo ${x//\\//$( : M1 )}" },
  { script: "echo \"${x:-\"$( : M1 )\"}\"" },
  { script: "[[ x =~ $( : M1 ) ]]; : M2" },
  { script: "a=( $( : M1 ) [2]=$( : M2 ) )" },
  { script: "for x in a; { : M1; }" },
  { script: "function f() ( : M1 ); f" },
  { script: "case x in (x) : M1;; esac" },
  { script: "echo $(: M1)$(: M2)" },
  { script: "echo $'\\''; : M1" },
  { script: "echo \"\\\\\"; : M1" },
  { script: "echo \\\"; : M1 #\"" },
  { script: "echo '\\'; : M1" },
  { script: "echo ${x:-'}'}; : M1" },
  { script: "echo ${x:-\"}\"}; : M1" },
  { script: "echo $(echo ')'); : M1" },
  { script: "echo $(echo \"$(: M1)\")" },
  { script: ": <<EOF ; : M1\nbody\nEOF\n: M2" },
  { script: ": <<<x; : M1; : >&2; : M2" },
  { script: "echo a#b; : M1; echo x\\#; : M2" },
  { script: "{ : M1; } 2>/dev/null; : M2 |& : M3" },
  { script: "coproc X { : M1; }; wait" },
  { script: "echo $[1+1]; : M1" },
  { script: "echo $[ $( : M1 ) ]" },
  { script: "echo if then fi; : M1" },
  { script: "echo $((: M1) )" },
  { script: "echo ${#x} ${x%%$( : M1 )} ${!x*}; : M2" },
  { script: "x=1 : M1; x=1 y=2 : M2" },
  { script: "echo $(\n: M1\n)" },
  { script: "echo $(( $(: M1) + 1 ))" },
  { script: "f() { : M1; } ; declare -f f >/dev/null; f" },
  { script: "time { : M1; }" },
  { script: "! { : M1; }" },
  { script: "echo ${x-$( : M1 )} ${x+$( : M2 )}" },
  { script: "echo \"$( echo \"$( : M1 )\" )\"" },
  { script: "while read -r l; do : M1; done <<< x" },
  { script: ": $( : M1 ) 2>$( : M2 )" },
  { script: "bash <<< ': M1'; bash <<EOF\n: M2\nEOF" },
  { script: "time { : M1; }; coproc { : M2; }; wait" },
  { script: "echo $(< /dev/null); : M1" },
  { script: '$":" M1; : $"M2"; $":" $"M"3; "$":; : M4 $' },
  { script: '$":" "$( : M1 )"' },
  { script: "x='a[$( : M1 )]'; echo $((x))", indirect: true },
  { script: "x='a[$( : M1 )]'; [[ $x -eq 0 ]]", indirect: true },
  { script: "i='a[$( : M1 )]'; echo ${b[i]}", indirect: true },
  { script: "x='$( : M1 )'; echo ${x@P}", indirect: true },
  { script: "c=': M1'; $c", indirect: true },
  { script: "IFS=,; c=:,M1; $c", indirect: true },
];

const dir = mkdtempSync(join(tmpdir(), "armature-bash-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Markers of the `:` commands bash ran, from its xtrace output. */
function ranByBash(script: string): string[] {
  const r = spawnSync("bash", ["-x", "-c", `export SHELLOPTS\n${script}`], {
    cwd: dir,
    input: "",
    encoding: "utf8",
    timeout: 10_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PS4: "+ ", HOME: dir },
  });
  const marks: string[] = [];
  for (const line of r.stderr.split("\n")) {
    const m = /^\++ (?:command |builtin )?: (M\d+)\b/.exec(line);
    if (m) marks.push(m[1] as string);
  }
  return marks;
}

describe("differential: every payload bash runs is extracted", () => {
  it.each(CASES.map((c) => [JSON.stringify(c.script), c] as const))("%s", (_label, c) => {
    const ran = ranByBash(c.script);
    expect(ran.length).toBeGreaterThan(0);
    const facts = analyzeCommand(c.script);
    const extracted = new Set(facts.subcommands.filter((s) => s.argv[0] === ":").map((s) => s.argv[1]));
    if (c.indirect) {
      expect(facts.readOnly).toBe(false);
      return;
    }
    for (const mark of ran) expect([...extracted], `bash ran ': ${mark}'`).toContain(mark);
  });
});
