// Red team, issue 19, effect test: a loop over `*` in a directory holding a file named
// `--files0-from=.env` makes wc read .env as a list of names and print its contents in an error;
// through a session with `deny: Read(./.env)` the call does not run and the secret stays out.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";

let proj: string;

beforeAll(async () => {
  proj = await realpath(await mkdtemp(join(tmpdir(), "armature-loop-glob-")));
  writeFileSync(join(proj, "a.txt"), "a\n");
  writeFileSync(join(proj, ".env"), "SECRET=hunter2\n");
  writeFileSync(join(proj, "--files0-from=.env"), "");
});
afterAll(async () => {
  await rm(proj, { recursive: true, force: true });
});

const ATTACKS = ['for f in *; do wc "$f"; done 2>&1', "for f in *; do wc -l $f; done 2>&1"];

describe("loop variables over globs, run for real", () => {
  it.each(ATTACKS)("%s reads .env when bash runs it", (command) => {
    expect(execFileSync("bash", ["-c", command], { cwd: proj, encoding: "utf8" })).toContain("hunter2");
  });

  it.each(ATTACKS)("%s does not run past deny: Read(./.env)", async (command) => {
    const result = await bashUnderRules(proj, { deny: ["Read(./.env)"] }, command);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).not.toContain("hunter2");
  });

  it("a loop over * with no such name runs", async () => {
    const result = await bashUnderRules(proj, { deny: ["Read(./.env)"] }, 'for f in *.txt; do wc -l "$f"; done');
    expect(result.is_error, textOf(result)).toBeFalsy();
    expect(textOf(result)).toContain("a.txt");
  });
});
