// Issue 19, effect test: a deny rule is the only guard (everything else is allowed), and the
// command spells what it names differently (a short letter, a cluster, an abbreviation, an
// attached value, a wrapper). Run by bash, each really does what the rule forbids; through a
// session with that deny rule, it does not run and nothing happens.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-meaning-effect-")));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** [deny rule, command, what it does: the path it creates (`+`) or removes (`-`)]. */
const CASES: Array<[string, string, string]> = [
  ["Bash(sort --output:*)", "sort -o out.txt in.txt", "+out.txt"],
  ["Bash(sort --output:*)", "sort -uo out.txt in.txt", "+out.txt"],
  ["Bash(sort --output:*)", "sort --out=out.txt in.txt", "+out.txt"],
  ["Bash(sort -o:*)", "sort in.txt --output=out.txt", "+out.txt"],
  ["Bash(rm -r:*)", "rm -fr d", "-d"],
  ["Bash(rm -r:*)", "rm --recursive d", "-d"],
  ["Bash(rm -r:*)", "rm --recur d", "-d"],
  ["Bash(rm -r:*)", "timeout 5 rm -R d", "-d"],
  ["Bash(rm -rf d)", "rm --force --recursive d", "-d"],
  ["Bash(cp -r:*)", "cp --recursive d e", "+e"],
  ["Bash(tee --append:*)", "echo x | tee -a out.txt", "+out.txt"],
  // tar's old style: the first word is a cluster of short options.
  ["Bash(tar --extract:*)", "tar xf a.tar", "+packed/f"],
  ["Bash(tar -x:*)", "tar xvf a.tar", "+packed/f"],
];

function freshDir(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "d"), { recursive: true });
  writeFileSync(join(dir, "in.txt"), "b\na\n");
  writeFileSync(join(dir, "d", "f"), "f\n");
  // An archive holding packed/f, which is not on disk until it is extracted.
  mkdirSync(join(dir, "packed"));
  writeFileSync(join(dir, "packed", "f"), "f\n");
  execFileSync("tar", ["-cf", "a.tar", "packed"], { cwd: dir });
  rmSync(join(dir, "packed"), { recursive: true });
  return dir;
}

function happened(dir: string, effect: string): boolean {
  const path = join(dir, effect.slice(1));
  return effect.startsWith("+") ? existsSync(path) : !existsSync(path);
}

describe("deny rules by meaning, run for real", () => {
  it.each(CASES)("%s: bash runs %s and it takes effect", (_rule, command, effect) => {
    const dir = freshDir(`bash-${Math.random().toString(36).slice(2)}`);
    execFileSync("bash", ["-c", command], { cwd: dir });
    expect(happened(dir, effect)).toBe(true);
  });

  it.each(CASES)("%s: %s does not run through a session", async (rule, command, effect) => {
    const dir = freshDir(`session-${Math.random().toString(36).slice(2)}`);
    const result = await bashUnderRules(dir, { allow: ["Bash(*)"], deny: [rule] }, command);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).toContain(rule);
    expect(happened(dir, effect)).toBe(false);
  });

  it("a benign control runs past the same rule", async () => {
    const dir = freshDir("control");
    const result = await bashUnderRules(dir, { allow: ["Bash(*)"], deny: ["Bash(sort --output:*)", "Bash(rm -r:*)"] }, "sort -u in.txt && rm -f d/f");
    expect(result.is_error).toBeFalsy();
    expect(existsSync(join(dir, "d", "f"))).toBe(false);
  });
});
