// The shell's half of issue 17's race suite: while Bash runs `echo > f`, `echo >> f` or `cp src f`
// in the workspace-write boundary, a process of the same user flips `f` between a file, a link to
// a file outside the working directories and a dangling link outside. The sandbox mounts
// everything outside read-only, so whatever the name leads to when the shell opens it, nothing
// outside may change. "Outside" is outside the temp dir, which is writable in the boundary.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { createBashTool } from "../src/tools/bash/index.js";
import { callsDuringRace, fileSession, outsideChanges } from "./file-tools/harness.js";
import { mkdtempOutsideTempDir } from "./helpers.js";

export type ShellWrite = ">" | ">>" | "cp";

export interface ShellRaceReport {
  /** Calls that exited 0: the shell opened the name and wrote (inside, as nothing outside changed). */
  written: number;
  /** Calls that failed: the name led outside when the shell opened it (read-only file system there). */
  failed: number;
  /** Why calls failed, with how many: the boundary's refusal of the link outside, or something else (its text). */
  failures: Record<string, number>;
  /** What appeared or changed outside. */
  outside: string[];
  sandboxed: boolean;
}

const COMMANDS: Record<ShellWrite, string> = {
  ">": "echo pwned > f.txt",
  ">>": "echo pwned >> f.txt",
  cp: "cp payload.txt f.txt",
};

/**
 * A suite where nothing was written proves nothing (every call may have failed for another
 * reason), and one where nothing failed never met the racer's links: both must have happened.
 */
export function assertRaced(r: ShellRaceReport): void {
  expect(r.written, "some raced calls wrote").toBeGreaterThan(0);
  expect(r.failures[READ_ONLY] ?? 0, `some raced calls met a link outside (failures: ${JSON.stringify(r.failures)})`).toBeGreaterThan(0);
}

const READ_ONLY = "read-only file system outside";

/** The boundary's refusal (EROFS through the link, cp's dangling-link refusal), else the text itself. */
function failureKind(text: string): string {
  if (/Read-only file system|not writing through dangling symlink/.test(text)) return READ_ONLY;
  return text.replace(/\s+/g, " ").slice(0, 200);
}

export async function runShellRace(op: ShellWrite, calls: number): Promise<ShellRaceReport> {
  const root = realpathSync(mkdtempOutsideTempDir("armature-shell-race-"));
  const proj = join(root, "proj");
  const outside = join(root, "outside");
  mkdirSync(proj);
  mkdirSync(outside);
  writeFileSync(join(outside, "f.txt"), "original\n");
  writeFileSync(join(proj, "payload.txt"), "pwned\n");
  const script = `cd "${proj}" && while :; do echo x > f.real; mv f.real f.txt; ln -sfn "${outside}/f.txt" f.txt; rm -f f.txt; ln -sfn "${outside}/created" f.txt; rm -f f.txt; done`;
  // bypassPermissions: the analysis lets every form through whatever the name leads to at the
  // moment it looks (acceptEdits asks when it sees the link); only the boundary holds.
  const s = fileSession(proj, [createBashTool()]);
  const sandboxed = s.info().sandbox.available;
  const failures = new Map<string, number>();
  const { ok, errors } = await callsDuringRace(s, script, calls, "Bash", () => ({ command: COMMANDS[op] }), (block) => {
    if (!block.is_error) return;
    const why = failureKind(typeof block.content === "string" ? block.content : JSON.stringify(block.content));
    failures.set(why, (failures.get(why) ?? 0) + 1);
  });
  const report: ShellRaceReport = { written: ok, failed: errors, failures: Object.fromEntries(failures), outside: outsideChanges(outside, "f.txt", "original\n"), sandboxed };
  rmSync(root, { recursive: true, force: true });
  return report;
}
