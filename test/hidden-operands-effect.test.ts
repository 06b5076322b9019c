// Issue 19, effect test: a word that splits where a reading command's model names no path
// (`grep -e $(echo x .env) README.md`) really reads another file; through a session with
// `deny: Read(./.env)` the call does not run and the secret does not reach the model.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";

let proj: string;

beforeAll(async () => {
  proj = await realpath(await mkdtemp(join(tmpdir(), "armature-hidden-")));
  writeFileSync(join(proj, "README.md"), "readme\n");
  writeFileSync(join(proj, ".env"), "SECRET=hunter2\n");
});
afterAll(async () => {
  await rm(proj, { recursive: true, force: true });
});

const ATTACKS = [
  "grep -e $(echo S .env) README.md",
  "grep -e {S,.env} README.md",
  "p='S .env'; grep -e $p README.md",
  'grep "$(printf -- -r)" SECRET .',
  "for o in -r; do grep $o SECRET .; done",
  "head -n $(echo 5 .env) README.md",
];

describe("hidden operands, run for real", () => {
  it.each(ATTACKS)("%s reads .env when bash runs it", (command) => {
    expect(execFileSync("bash", ["-c", command], { cwd: proj, encoding: "utf8" })).toContain("SECRET=hunter2");
  });

  it.each(ATTACKS)("%s does not run past deny: Read(./.env)", async (command) => {
    const result = await bashUnderRules(proj, { deny: ["Read(./.env)"] }, command);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).not.toContain("hunter2");
  });
});

// `[` splits and globs its unquoted words: the file it then tests (existence, type, size) is one
// no word shows. Only metadata, but `[ -f .env ]` itself is a read a Read deny rule covers.
const METADATA_ATTACKS = [
  "[ $(echo -f .env) ] && echo EXISTS",
  "x='-s .env'; [ $x ] && echo EXISTS",
  "[ -n $(echo x -a -f .env) ] && echo EXISTS",
  "if [ $(printf -- '-r .env') ]; then echo EXISTS; fi",
];

describe("hidden operands of [, run for real", () => {
  it.each(METADATA_ATTACKS)("%s tests .env when bash runs it", (command) => {
    expect(execFileSync("bash", ["-c", command], { cwd: proj, encoding: "utf8" })).toContain("EXISTS");
  });

  it.each(METADATA_ATTACKS)("%s does not run past deny: Read(./.env)", async (command) => {
    const result = await bashUnderRules(proj, { deny: ["Read(./.env)"] }, command);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).not.toContain("EXISTS");
  });
});
