// Red team, issue 19, effect test: `git reflog -p`, `git reflog -G` and `git config --blob`
// print (or reveal) the contents of a committed file; through a session with
// `deny: Read(./secret/**)` the call does not run and the secret does not reach the model.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";

let proj: string;
const git = (...args: string[]): string =>
  execFileSync("git", ["-c", "user.email=t@example.invalid", "-c", "user.name=t", ...args], { cwd: proj, encoding: "utf8" });

beforeAll(async () => {
  proj = await realpath(await mkdtemp(join(tmpdir(), "armature-git-history-")));
  mkdirSync(join(proj, "secret"));
  mkdirSync(join(proj, "sub"));
  writeFileSync(join(proj, "sub", "notes.md"), "notes\n");
  writeFileSync(join(proj, "README.md"), "readme\n");
  writeFileSync(join(proj, "secret", "key.cfg"), "[token]\n\tvalue = hunter2\n");
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "init");
});
afterAll(async () => {
  await rm(proj, { recursive: true, force: true });
});

/** Each attack with what bash's run of it prints when the secret is there. */
const ATTACKS: [command: string, leak: string][] = [
  ["git reflog -p", "hunter2"],
  ["git config --blob HEAD:secret/key.cfg -l", "hunter2"],
  // The pickaxe answers whether the history ever held the string: the commit's entry shows.
  ["git reflog -G hunter2", "commit (initial): init"],
  // REV:path is from the top of the work tree, whatever directory -C gives git.
  ["git -C sub show HEAD:secret/key.cfg", "hunter2"],
];

describe("git history readers, run for real", () => {
  it.each(ATTACKS)("%s reveals the committed secret when bash runs it", (command, leak) => {
    expect(execFileSync("bash", ["-c", command], { cwd: proj, encoding: "utf8" })).toContain(leak);
  });

  it.each(ATTACKS)("%s does not run past deny: Read(./secret/**)", async (command, leak) => {
    const result = await bashUnderRules(proj, { deny: ["Read(./secret/**)"] }, command);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).not.toContain(leak);
  });
});
