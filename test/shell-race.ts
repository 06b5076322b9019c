// The shell's half of issue 17's race suite: while Bash runs `echo > f`, `echo >> f` or `cp src f`
// in the workspace-write boundary, a process of the same user flips `f` between a file, a link to
// a file outside the working directories and a dangling link outside. The sandbox mounts
// everything outside read-only, so whatever the name leads to when the shell opens it, nothing
// outside may change. "Outside" is under /var/tmp: the temp dir is writable in the boundary.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { createBashTool } from "../src/tools/bash/index.js";
import { callsDuringRace, fileSession, outsideChanges } from "./file-tools/harness.js";

export type ShellWrite = ">" | ">>" | "cp";

export interface ShellRaceReport {
  written: number;
  failed: number;
  /** What appeared or changed outside. */
  outside: string[];
  sandboxed: boolean;
}

const COMMANDS: Record<ShellWrite, string> = {
  ">": "echo pwned > f.txt",
  ">>": "echo pwned >> f.txt",
  cp: "cp payload.txt f.txt",
};

export async function runShellRace(op: ShellWrite, calls: number): Promise<ShellRaceReport> {
  const root = realpathSync(mkdtempSync("/var/tmp/armature-shell-race-"));
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
  const { ok, errors } = await callsDuringRace(s, script, calls, "Bash", () => ({ command: COMMANDS[op] }));
  const report: ShellRaceReport = { written: ok, failed: errors, outside: outsideChanges(outside, "f.txt", "original\n"), sandboxed };
  rmSync(root, { recursive: true, force: true });
  return report;
}
