import { describe, expect, it } from "vitest";
import { fuzzCorpus } from "./fuzz/fuzz-corpus.js";

/**
 * Option-operator mutations (long-option abbreviation, attached vs separate values) that the
 * analysis allows but that are not equivalent to the attack they come from: the `attach`
 * operator cannot know which short options take a value, so it glues an operand onto an option
 * cluster and the real tool reads something else. Each was run against the real tool (bash 5,
 * GNU coreutils, util-linux, Info-ZIP): it refuses the argv or does something harmless, and
 * nothing the attack wanted happens. `id|JSON command` — reason. Any other allowed mutation of
 * an attack fails the test. Ambiguous or unknown options (`wget --ou`, `valgrind --log=`,
 * `rg --fo`, `grep -r.`) are not here: an argv the option table cannot read asks in every mode.
 */
const ACCEPTED_NON_EQUIVALENT_MUTATIONS = new Map<string, string>([
  ["wrap-deny-bash-c|\"bash -c'rm -rf src'\"", "bash reads `-crm -rf src` as options: `- : invalid option`, nothing runs"],
  ["wrap-deny-sh-c|\"sh -c\\\"rm -rf src\\\"\"", "sh reads `-crm -rf src` as options: illegal option, nothing runs"],
  ["review-zip-r-read-deny-bypass|\"zip -rout.zip .\"", "zip reads -r -o -u -t with `.zip` as the -t date: invalid date, nothing is read"],
  ["review-zip-outside|\"zip -rout.zip {R}/secrets\"", "zip reads -r -o -u -t with `.zip` as the -t date: invalid date, nothing is read"],
  ["tree-write-above-edit-deny-8|\"rsync -a/tmp/x/ ./\"", "rsync (popt) refuses the unknown option `-/`, nothing is copied"],
  ["tree-names-rsync-armature|\"rsync -a.armature build/\"", "rsync (popt) refuses the unknown option `-.`, nothing is copied"],
  ["tree-write-protected-unzip|\"unzip -oa.zip\"", "unzip reads -o -a -. -z -i -p with no archive: prints its usage, nothing is extracted"],
  ["review2-cp-backup-env-suffix|\"SIMPLE_BACKUP_SUFFIX=t cp -bx .gi\"", "cp -b -x with one operand: missing destination, nothing is written"],
  ["review2-option-read-15|\"hexdump -Csecret/key\"", "hexdump reads -C -s `ecret/key`: fails to parse the offset, no file is read"],
  ["review2-path-test-0|\"test -ssecret/key\"", "one argument: test checks that the string is non-empty, the file is not looked at"],
  ["review2-path-test-1|\"[ -fsecret/key ]\"", "one argument: [ checks that the string is non-empty, the file is not looked at"],
  ["review2026-12-c4-mapfile-name|\"mapfile -t'a[$(touch pwned)]' < README.md\"", "mapfile reads `-ta[…` as options: `-a: invalid option`, the subscript is never evaluated"],
  ["review2026-12-c4-test-v|\"test -v'a[$(touch pwned)]'\"", "one argument: a string test, the subscript is never evaluated (no file created)"],
  ["review2026-12-c4-expand-aliases|\"shopt -sexpand_aliases; alias ls='touch pwned'\\nls\"", "shopt reads `-sexpand_aliases` as options: `-e: invalid option`, aliases stay off, ls runs"],
  ["redteam-reflog-show-patch|\"git reflog show --pa HEAD\"", "git's log and diff options take no abbreviations: `fatal: unrecognized argument: --pa`, nothing is printed (git 2.39)"],
  ["c7-unshare-rm|\"unshare -rrm -rf /\"", "unshare -r -r -m -r -f runs `/`: execve fails (Permission denied), rm never runs"],
  ["leftover-git-reflog-delete-after-option|\"git reflog -pdelete HEAD@{0}\"", "git's revision parser refuses `-pdelete`: `fatal: unrecognized argument: -pdelete`, the reflog is unchanged (git 2.39)"],
]);

describe("fuzzed security corpus (bounded: fixed seed)", () => {
  it("no semantics-preserving mutation of an attack is allowed", async () => {
    // The analysis alone must refuse every attack (issue 17: without a sandbox the decisions are no
    // weaker); with the sandbox, security-corpus.test.ts checks the boundary attacks get.
    const saved = process.env.ARMATURE_SANDBOX;
    process.env.ARMATURE_SANDBOX = "0";
    let r: Awaited<ReturnType<typeof fuzzCorpus>>;
    try {
      r = await fuzzCorpus({ seed: 20261201, mutations: 2, depth: 2 });
    } finally {
      if (saved === undefined) delete process.env.ARMATURE_SANDBOX;
      else process.env.ARMATURE_SANDBOX = saved;
    }
    const holes = [...new Set(r.optionAllowed.map((f) => `${f.id}|${JSON.stringify(f.command)}`))];
    const unknown = holes.filter((h) => !ACCEPTED_NON_EQUIVALENT_MUTATIONS.has(h));
    console.log(
      `fuzz: ${r.attacksRun} attack mutations, ${r.allowed.length} allowed; ${r.optionAllowed.length} option-operator holes ` +
        `(${ACCEPTED_NON_EQUIVALENT_MUTATIONS.size} listed as accepted non-equivalent mutations); ` +
        `controls: ${r.controlsAllowed}/${r.controlsRun} mutations still allowed` +
        (holes.length > 0 ? `\n  option-operator findings:\n  ${holes.map((h) => `${h} — ${ACCEPTED_NON_EQUIVALENT_MUTATIONS.get(h) ?? "NOT ACCEPTED"}`).join("\n  ")}` : ""),
    );
    expect(r.errors).toEqual([]);
    expect(r.attacksRun).toBeGreaterThan(500);
    expect(r.allowed.map((f) => `${f.id} [${f.operator}] ${JSON.stringify(f.command)}`)).toEqual([]);
    expect(unknown).toEqual([]);
  }, 120_000);
});
