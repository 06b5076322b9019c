// Code a project ships (its hooks, its MCP stdio servers) runs inside the workspace-write boundary
// with no network: a script changed after the person trusted the project can then do only what an
// approved Bash call could — write in the working directories, never their protected paths, reach
// no host socket and no other host. The user's own hooks and servers (user, managed, command-line
// settings) stay outside.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapArgs } from "./bwrap-args.js";
import { sandboxPlan } from "./plan.js";
import { removeCreatedProtected } from "./remove-created.js";
import { unixSocketFilter } from "./seccomp.js";
import type { SandboxStatus } from "./status.js";
import { trustedExecutable } from "./trusted-executable.js";
import { scanTree } from "./tree-scan.js";
import { realPathOrSelf } from "../fs/path-identity.js";

/** How to start one process of the project's inside the boundary. */
export interface ContainedCommand {
  file: string;
  args: string[];
  /** Written to the child's fd 3 (the seccomp filter): the spawn gives it a pipe there. */
  fd3?: Buffer;
  /** Once the process has ended: what it created at protected paths goes. Returns what was removed. */
  done: () => string[];
}

/** Why a process of the project's is not started at all, in words for the person and the log. */
export interface ProjectCodeRefusal {
  refused: string;
}

/**
 * How one process is started: inside the boundary, or not at all — where no sandbox can run here
 * (probed on the first use) a project's code has nothing to contain it, and a bare program name
 * must be found in the system's folders.
 */
export type ProjectCodeBoundary = (file: string, argv: readonly string[], cwd?: string) => ContainedCommand | ProjectCodeRefusal;

/**
 * The wrapper for project code, or undefined where it runs on the host by the settings (the
 * sandbox is off, or the user's `sandbox.projectCode` is "host").
 */
export function projectCodeBoundary(status: SandboxStatus | undefined, dirs: { projectDir: string; additionalDirectories: readonly string[] }): ProjectCodeBoundary | undefined {
  if (!status || !status.enabled || status.settings.projectCode === "host") return undefined;
  return (file, argv, cwd) => {
    const bwrap = status.available ? status.bwrap : undefined;
    if (bwrap === undefined) {
      const why = status.reason ?? "bubblewrap is not installed";
      return {
        refused: `code this project ships runs only inside the OS sandbox, which cannot run here (${why}). Install bubblewrap, or set "sandbox": {"projectCode": "host"} in your own settings to run the project's hooks and MCP servers on the host`,
      };
    }
    const program = file.includes("/") ? file : trustedExecutable(file);
    if (program === undefined) return { refused: `${file} was not found in the system's folders, where a program of the project's must be found to run inside the sandbox` };
    const roots = [dirs.projectDir, ...dirs.additionalDirectories].map(realPathOrSelf);
    const before = scanTree(roots);
    // Its own /tmp, gone with it: the host's is neither seen nor written.
    const tmp = mkdtempSync(join(tmpdir(), "armature-project-tmp-"));
    const plan = sandboxPlan("workspace-write", false, status.settings, {
      projectDir: dirs.projectDir,
      additionalDirectories: dirs.additionalDirectories,
      cwd: cwd ?? dirs.projectDir,
      reportDir: dirs.projectDir,
      needed: [program, process.execPath],
      seccomp: true,
      scan: before,
      tmp,
    });
    const filter = plan.seccomp ? unixSocketFilter() : undefined;
    return {
      file: bwrap,
      args: bwrapArgs(plan, [program, ...argv]),
      ...(filter ? { fd3: filter } : {}),
      done: () => {
        rmSync(tmp, { recursive: true, force: true });
        return removeCreatedProtected(before, scanTree(roots), roots).removed;
      },
    };
  };
}
