// Deny and ask rules match meaning (issue 19): a rule and each command are read by the same
// option tables (short letters by their long option, abbreviations in full, attached values,
// any order), so another spelling of what a rule names cannot slip past it — and a rule
// written with a short option or an abbreviation covers the long spelling too. Allow rules
// stay text-only (a respelling never widens what they grant).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { namedTool, request } from "../../test/permission-helpers.js";
import { analyzeCommand } from "../shell/index.js";
import { resolvePermission } from "./resolve.js";
import { ruleMatchesCall } from "./rule-matches-call.js";

const proj = realpathSync(mkdtempSync(join(tmpdir(), "armature-meaning-")));
afterAll(() => rmSync(proj, { recursive: true, force: true }));
const bash = namedTool("Bash");

function decide(command: string, rules: { allow?: string[]; ask?: string[]; deny?: string[] }): string {
  return resolvePermission(request({ tool: bash, subject: { kind: "shell", facts: analyzeCommand(command) }, cwd: proj, ...rules })).behavior;
}

/** [rule, command]: the deny rule names what the command means. */
const ATTACKS: Array<[string, string]> = [
  ["Bash(sort --output:*)", "sort -o x f"],
  ["Bash(sort --output:*)", "sort -uo x f"],
  ["Bash(sort --output:*)", "sort --out=x f"],
  ["Bash(sort --output:*)", "sort -o/x f"],
  ["Bash(sort --output:*)", "sort f -o x"],
  ["Bash(sort -o:*)", "sort --output=x f"],
  ["Bash(sort -o x:*)", "sort --outp x f"],
  ["Bash(sort -o x:*)", "sort -rox f"],
  ["Bash(git push --force:*)", "git push -f"],
  ["Bash(git push --force:*)", "git push origin main -f"],
  ["Bash(git push --force:*)", "git -C . push -fu origin main"],
  ["Bash(git push -f:*)", "git push --force origin"],
  ["Bash(git push origin --force:*)", "git push -f origin main"],
  ["Bash(git commit --no-verify:*)", "git commit -nm x"],
  ["Bash(curl -o:*)", "curl --output x https://example.com/"],
  ["Bash(curl -o:*)", "curl -sSLo x https://example.com/"],
  ["Bash(curl --output:*)", "curl -ox https://example.com/"],
  ["Bash(rm -r:*)", "rm --recursive d"],
  ["Bash(rm -r:*)", "rm -fr d"],
  ["Bash(rm -r:*)", "rm -R d"],
  ["Bash(rm -r:*)", "rm --recur --force d"],
  ["Bash(rm --recursive:*)", "rm -rf d"],
  ["Bash(rm -rf:*)", "rm -r -f d"],
  ["Bash(rm -rf:*)", "rm --force --recursive d"],
  ["Bash(rm -r:*)", "timeout 5 rm -fr d"],
  ["Bash(rm -r:*)", "nice -n 5 rm --recursive d"],
  ["Bash(rm -r:*)", "/bin/rm -fR d"],
  ["Bash(rm -r:*)", "ls; rm -fr d"],
  ["Bash(rm -rf d)", "rm -fr d"],
  ["Bash(rm -rf d)", "rm --recursive --force d"],
  ["Bash(tar -x:*)", "tar --extract --file a.tar"],
  ["Bash(tar --extract:*)", "tar -xf a.tar"],
  ["Bash(wget -O:*)", "wget --output-document=x http://example.com/"],
  ["Bash(sed -i:*)", "sed --in-place s/a/b/ f"],
  ["Bash(grep -r:*)", "grep --recursive x ."],
  ["Bash(git fetch --upload-pack:*)", "git fetch --upload-pa=x origin"],
  ["Bash(cp -r:*)", "cp --recursive a b"],
  // URL rules: the host on either scheme, in any position (rule texts, unchanged).
  ["Bash(curl http://host.example:*)", "curl -X GET https://host.example/x"],
  ["Bash(curl http://host.example:*)", "curl --url https://HOST.example/"],
  ["Bash(wget http://host.example:*)", "wget -q -O- http://host.example"],
];

/** [rule, command]: another command; the deny rule must not match it. */
const CONTROLS: Array<[string, string]> = [
  ["Bash(sort --output:*)", "sort -u f"],
  ["Bash(sort --output:*)", "sort -r f"],
  ["Bash(sort -o x:*)", "sort -o y f"],
  ["Bash(git push --force:*)", "git push origin main"],
  ["Bash(git push --force:*)", "git push --no-force origin"],
  ["Bash(git push --force:*)", "git push --force-with-lease origin"],
  ["Bash(git push --force:*)", "git pull -f"],
  ["Bash(git push origin --force:*)", "git push -f upstream main"],
  ["Bash(curl -o:*)", "curl -s https://example.com/"],
  ["Bash(rm -r:*)", "rm -f x"],
  ["Bash(rm -r:*)", "rmdir d"],
  ["Bash(rm -rf d)", "rm -rf e"],
  ["Bash(rm -rf d)", "rm -rfv d"],
  ["Bash(rm -rf d)", "rm -rf d e"],
  ["Bash(grep -r:*)", "grep -n x f"],
  ["Bash(curl http://host.example:*)", "curl https://other.example/host.example"],
];

describe("deny rules match every spelling of what they name", () => {
  it.each(ATTACKS)("deny %s: %s is denied", (rule, command) => {
    expect(decide(command, { allow: ["Bash(*)"], deny: [rule] })).toBe("deny");
  });

  it.each(ATTACKS)("ask %s: %s is asked", (rule, command) => {
    expect(decide(command, { allow: ["Bash(*)"], ask: [rule] })).not.toBe("allow");
  });

  it.each(ATTACKS)("a hook's if %s names %s", (rule, command) => {
    expect(ruleMatchesCall(rule, request({ tool: bash, subject: { kind: "shell", facts: analyzeCommand(command) }, cwd: proj }))).toBe(true);
  });

  it.each(CONTROLS)("deny %s: %s is not denied", (rule, command) => {
    expect(decide(command, { allow: ["Bash(*)"], deny: [rule] })).not.toBe("deny");
  });
});

describe("an abbreviation the tool itself refuses", () => {
  it("git push --forc (ambiguous: git refuses it) is never allowed past a deny on --force", () => {
    expect(decide("git push --forc origin main", { allow: ["Bash(*)"], deny: ["Bash(git push --force:*)"] })).not.toBe("allow");
  });
});

describe("rules the tables cannot read are matched by their text alone", () => {
  it.each<[string, string, boolean]>([
    // An ambiguous abbreviation in the rule (`--up`: --upload-pack, --update-head-ok…) is no option.
    ["Bash(git fetch --up:*)", "git fetch --upload-pack=x origin", false],
    // A `*` inside the specifier: text matching only (today's behaviour).
    ["Bash(rm -r * /)", "rm -r -f /", true],
    ["Bash(mytool -x:*)", "mytool -xy", false],
    ["Bash(mytool -x:*)", "mytool -x -y", true],
  ])("deny %s vs %s: denied %s", (rule, command, denied) => {
    expect(decide(command, { allow: ["Bash(*)"], deny: [rule] }) === "deny").toBe(denied);
  });
});

describe("allow rules stay text-only", () => {
  it.each<[string, string, string]>([
    ["Bash(sort -o out.txt:*)", "sort -o out.txt x", "allow"],
    ["Bash(sort -o out.txt:*)", "sort --output=out.txt x", "ask"],
    ["Bash(git push origin:*)", "git push -f origin", "ask"],
    ["Bash(rm -r build)", "rm --recursive build", "ask"],
  ])("allow %s: %s is %s", (rule, command, want) => {
    expect(decide(command, { allow: [rule] })).toBe(want);
  });
});
