import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { engineCommand, engineGitWriteCommand, type EngineCommand } from "../sandbox/engine-process.js";

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: EngineCommand | undefined, cwd: string): Promise<GitResult> {
  if (!cmd) return Promise.resolve({ code: 127, stdout: "", stderr: "git was not found on a trusted PATH entry" });
  return new Promise((resolve) => {
    execFile(cmd.file, cmd.args, { cwd, env: cmd.env, timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (err && code === 1 && !stderr ? err.message : "") });
    });
  });
}

/** A git command that only reads (inside the read-only boundary where the sandbox runs). */
export function gitRead(args: readonly string[], cwd: string): Promise<GitResult> {
  return run(engineCommand("git", args, { cwd }), cwd);
}

/** A git command that changes the repository: hardened, its filter drivers off (see engineGitWriteCommand). */
export async function gitWrite(args: readonly string[], cwd: string): Promise<GitResult> {
  const listed = await gitRead(["config", "--name-only", "--get-regexp", "^filter\\."], cwd);
  const drivers = [...new Set(listed.stdout.split("\n").map((k) => /^filter\.(.+)\.[^.]+$/.exec(k.trim())?.[1]).filter((n): n is string => n !== undefined))];
  return run(engineGitWriteCommand(args, { cwd, filterDrivers: drivers }), cwd);
}

/** The main checkout of the repository `cwd` is in (the folder holding its common git dir), or undefined outside one. */
export async function mainCheckout(cwd: string): Promise<string | undefined> {
  const out = await gitRead(["rev-parse", "--path-format=absolute", "--git-common-dir"], cwd);
  if (out.code !== 0) return undefined;
  const common = out.stdout.trim();
  return common.endsWith("/.git") ? dirname(common) : undefined;
}

/** Files `git status` lists in a checkout (changed, staged, untracked). */
export async function uncommittedFiles(dir: string): Promise<number> {
  const out = await gitRead(["status", "--porcelain", "--untracked-files=all"], dir);
  if (out.code !== 0) throw new Error(`git status failed in ${dir}: ${out.stderr.trim()}`);
  return out.stdout.split("\n").filter((l) => l !== "").length;
}

/** Commits on HEAD in `dir` since `base`. */
export async function commitsSince(dir: string, base: string): Promise<number> {
  const out = await gitRead(["rev-list", "--count", `${base}..HEAD`], dir);
  return out.code === 0 ? Number(out.stdout.trim()) || 0 : 0;
}
