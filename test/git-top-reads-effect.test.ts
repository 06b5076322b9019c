// Issue 19, effect test: in a session whose cwd is a subdirectory of the repository, git still
// reads from the top of the work tree (`REV:path` objects, `:/` pathspecs, the whole history of
// `git log -p`, the whole work tree of `git diff`). With a Read deny rule on a folder at the top,
// such a call does not run and the secret does not reach the model; reads below the cwd still run.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";
import type { ToolResultBlock } from "../src/tool/types.js";

let proj: string;
let sub: string;
const git = (...args: string[]): string =>
  execFileSync("git", ["-c", "user.email=t@example.invalid", "-c", "user.name=t", ...args], { cwd: proj, encoding: "utf8" });

beforeAll(async () => {
  proj = await realpath(await mkdtemp(join(tmpdir(), "armature-git-top-")));
  sub = join(proj, "pkg");
  mkdirSync(join(proj, "secret"));
  mkdirSync(sub);
  writeFileSync(join(sub, "notes.md"), "notes\n");
  writeFileSync(join(proj, "secret", "key.cfg"), "token = hunter2\n");
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "init");
  // An uncommitted change of the secret: `git diff` in pkg/ prints it.
  writeFileSync(join(proj, "secret", "key.cfg"), "token = hunter3\n");
});
afterAll(async () => {
  await rm(proj, { recursive: true, force: true });
});

const ATTACKS: [command: string, leak: string][] = [
  ["git show HEAD:secret/key.cfg", "hunter2"],
  ["git cat-file -p HEAD:secret/key.cfg", "hunter2"],
  ["git log -p", "hunter2"],
  ["git show HEAD", "hunter2"],
  ["git diff", "hunter3"],
  ["git grep -n token -- :/", "hunter3"],
];
const CONTROLS: [command: string, output: string][] = [
  ["git log --oneline", "init"],
  ["git show HEAD:./notes.md", "notes"],
  ["git grep -n notes", "notes.md"],
];

const run = (command: string): Promise<ToolResultBlock> => bashUnderRules(sub, { deny: [`Read(/${proj}/secret/**)`] }, command);

describe("git's reads from the top of the work tree, in a subdirectory session", () => {
  it.each(ATTACKS)("%s prints the secret when bash runs it in the subdirectory", (command, leak) => {
    expect(execFileSync("bash", ["-c", command], { cwd: sub, encoding: "utf8" })).toContain(leak);
  });

  it.each(ATTACKS)("%s does not run past a Read deny rule on the folder at the top", async (command, leak) => {
    const result = await run(command);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).not.toContain(leak);
  });

  it.each(CONTROLS)("%s (below the cwd, or no contents) still runs", async (command, output) => {
    const result = await run(command);
    expect(result.is_error).not.toBe(true);
    expect(textOf(result)).toContain(output);
  });
});
