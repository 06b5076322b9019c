import { describe, expect, it } from "vitest";
import { fuzzCorpus } from "./fuzz/fuzz-corpus.js";

/**
 * Option-operator findings (long-option abbreviation, attached vs separate values) that hold
 * until the declarative option tables of issue 8 (branch i8-tables) are merged: `id|JSON command`.
 * Printed by the test; delete the list after that merge (the test then requires none). Some are
 * not equivalent rewrites (the `attach` operator cannot know which short options take a value:
 * `grep -r. .` is an invalid option, which the tool refuses), some are real class-1/2 holes
 * (`diff --to=secret/key x` is `--to-file`; `git cat-file --batc…`).
 */
const KNOWN_HOLES_UNTIL_OPTION_TABLES = new Set<string>([
  // Mutations of the option-table cases (merged 2026-12-01): the abbreviation and attach
  // operators make these ambiguous or malformed for the real tool, which refuses them; the
  // analysis must say "ask" for them all the same. Open: see the closing note of issue 8.
  "c1-wget-output-docu|\"wget --ou .git/hooks/post-checkout http://127.0.0.1:9/x\"",
  "c2-date-I-sets-clock|\"date -I123123592030\"",
  "c7-valgrind-log-file|\"valgrind --log=.git/hooks/pre-commit ls\"",
  "c7-valgrind-log-file|\"valgrind --lo=.git/hooks/pre-commit ls\"",
  "c7-unshare-rm|\"unshare -rrm -rf /\"",
  "review-cp-r-read-deny-bypass|\"cp -r. ../other\"",
  "review-grep-r-dot-read-deny-bypass|\"grep -r. .\"",
  "review-grep-r-dot-read-deny|\"grep -r. .\"",
  "review-readlink-outside|\"readlink -f{R}/secrets/key\"",
  "review-zip-outside|\"zip -rout.zip {R}/secrets\"",
  "review-zip-r-read-deny-bypass|\"zip -rout.zip .\"",
  "review2-cp-backup-env-suffix|\"SIMPLE_BACKUP_SUFFIX=t cp -bx .gi\"",
  "review2-git-content-6|\"git cat-file --batc --ba\"",
  "review2-git-content-6|\"git cat-file --batch-all-objects --ba\"",
  "review2-option-read-14|\"od -An -csecret/key\"",
  "review2-option-read-15|\"hexdump -Csecret/key\"",
  "review2-option-read-23|\"diff -r. src\"",
  "review2-option-read-5|\"diff --to=secret/key x\"",
  "review2-path-test-0|\"test -ssecret/key\"",
  "review2-path-test-1|\"[ -fsecret/key ]\"",
  "review2-path-test-3|\"git ls-files -ssecret\"",
  "review2026-12-c4-expand-aliases|\"shopt -sexpand_aliases; alias ls='touch pwned'\\nls\"",
  "review2026-12-c4-mapfile-name|\"mapfile -t'a[$(touch pwned)]' < README.md\"",
  "review2026-12-c4-test-v|\"test -v'a[$(touch pwned)]'\"",
  "review2026-12-c6-find-L|\"find -L. -name key\"",
  "review2026-12-c6-rg-follow|\"rg --fo k\"",
  "review2026-12-c6-rg-follow|\"rg --fol k\"",
  "tree-write-above-edit-deny-8|\"rsync -a/tmp/x/ ./\"",
  "tree-write-protected-unzip|\"unzip -oa.zip\"",
  "wrap-deny-bash-c|\"bash -c'rm -rf src'\"",
  "wrap-deny-sh-c|\"sh -c\\\"rm -rf src\\\"\"",
]);

describe("fuzzed security corpus (bounded: fixed seed)", () => {
  it("no semantics-preserving mutation of an attack is allowed", async () => {
    const r = await fuzzCorpus({ seed: 20261201, mutations: 2, depth: 2 });
    const holes = [...new Set(r.optionAllowed.map((f) => `${f.id}|${JSON.stringify(f.command)}`))];
    const unknown = holes.filter((h) => !KNOWN_HOLES_UNTIL_OPTION_TABLES.has(h));
    console.log(
      `fuzz: ${r.attacksRun} attack mutations, ${r.allowed.length} allowed; ${r.optionAllowed.length} option-operator holes ` +
        `(${KNOWN_HOLES_UNTIL_OPTION_TABLES.size} listed in KNOWN_HOLES_UNTIL_OPTION_TABLES); ` +
        `controls: ${r.controlsAllowed}/${r.controlsRun} mutations still allowed` +
        (holes.length > 0 ? `\n  option holes:\n  ${holes.join("\n  ")}` : ""),
    );
    expect(r.errors).toEqual([]);
    expect(r.attacksRun).toBeGreaterThan(500);
    expect(r.allowed.map((f) => `${f.id} [${f.operator}] ${JSON.stringify(f.command)}`)).toEqual([]);
    expect(unknown).toEqual([]);
  }, 120_000);
});
