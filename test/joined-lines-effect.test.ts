// Effect test of the joined-lines misreading: tree-sitter-bash reads `a | b | c`, a newline, then
// `rm src/a.ts > /dev/null` as one pipeline whose last command is `cat rm src/a.ts` (a read-only
// `cat` given two file names). Bash runs the two lines apart and removes the file. Through a
// session in default mode the call must not run, on the fast parser's tree (bash's reading) and
// on tree-sitter's (a backquote in a comment sends the command there, and the walker refuses the
// joined line).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashUnderRules, textOf } from "./bash-helpers.js";

let root: string;

function project(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src", "a.ts"), "export {};\n");
  execFileSync("git", ["init", "-q"], { cwd: dir });
  return dir;
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-joined-lines-")));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("a line joined to three piped commands", () => {
  it.each([
    ["the fast parser's tree", "ls | sort | cat\nrm src/a.ts > /dev/null"],
    ["tree-sitter's tree", "ls | sort | cat\nrm src/a.ts > /dev/null # `x`"],
  ])("bash removes the file; through a session (%s) the call does not run", async (_path, command) => {
    const byBash = project(`bash-${_path.length}`);
    // bashUnderRules runs without the sandbox: the analysis alone decides.
    execFileSync("bash", ["-c", command], { cwd: byBash, stdio: "ignore" });
    expect(existsSync(join(byBash, "src", "a.ts"))).toBe(false);

    const dir = project(`session-${_path.length}`);
    const result = await bashUnderRules(dir, {}, command);
    expect(textOf(result)).toMatch(/approv|permission/i);
    expect(existsSync(join(dir, "src", "a.ts"))).toBe(true);
  });
});
