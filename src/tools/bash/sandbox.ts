// The optional OS sandbox: bubblewrap with the file system read-only outside the working
// directories and the temp dir, no network unless allowed, no capabilities (also when armature
// runs as root), its own PID namespace that dies with its parent.
import { realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { findExecutable } from "../util/find-executable.js";
import type { Env } from "./config.js";

export interface SandboxConfig {
  enabled: boolean;
  /** Let sandboxed commands reach the network (default false: only a private loopback). */
  allowNetwork?: boolean;
  /** Writable besides the working directories and the temp dir. */
  writablePaths?: readonly string[];
  /** Whether `dangerouslyDisableSandbox` may be granted at all (default true: it asks). */
  allowUnsandboxedCommands?: boolean;
  /** The bwrap binary (default: `bwrap` from PATH). */
  bwrapPath?: string;
}

/**
 * Config and tool folders that stay read-only inside a writable working directory: writing them
 * from the sandbox would run code outside it later (hooks, settings, editor tasks).
 */
export const SANDBOX_PROTECTED_PATHS = [
  ".git/hooks",
  ".git/config",
  ".armature",
  ".claude",
  ".mcp.json",
  ".vscode",
  ".idea",
  ".husky",
  ".gitmodules",
] as const;

function truthy(value: string | undefined): boolean {
  return value !== undefined && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());
}

/** The sandbox the CLI asks for through the environment: ARMATURE_SANDBOX=1, …_ALLOW_NETWORK=1, …_WRITABLE=a:b. */
export function sandboxConfigFromEnv(env: Env): SandboxConfig | undefined {
  if (!truthy(env.ARMATURE_SANDBOX)) return undefined;
  const writable = (env.ARMATURE_SANDBOX_WRITABLE ?? "").split(delimiter).filter((p) => p.trim() !== "");
  const config: SandboxConfig = { enabled: true, allowNetwork: truthy(env.ARMATURE_SANDBOX_ALLOW_NETWORK), writablePaths: writable };
  if (env.ARMATURE_SANDBOX_ALLOW_UNSANDBOXED !== undefined) config.allowUnsandboxedCommands = truthy(env.ARMATURE_SANDBOX_ALLOW_UNSANDBOXED);
  return config;
}

/** The bwrap binary, or undefined when it is not installed. */
export function findBwrap(config: SandboxConfig, env: Env): string | undefined {
  return findExecutable(config.bwrapPath ?? "bwrap", env.PATH ?? "");
}

function canonical(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export interface SandboxPlan {
  /** Working directories, the temp dir and extra writable paths (canonical, existing). */
  writable: string[];
  allowNetwork: boolean;
  cwd: string;
}

/** Pure: the bwrap arguments that wrap `argv` (the shell and its arguments). */
export function bwrapArgs(plan: SandboxPlan, argv: readonly string[]): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const dir of plan.writable) args.push("--bind", dir, dir);
  // After the writable binds, so they win over them (later mounts cover earlier ones).
  for (const dir of plan.writable) {
    for (const rel of SANDBOX_PROTECTED_PATHS) {
      const path = join(dir, rel);
      args.push("--ro-bind-try", path, path);
    }
  }
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-drop", "ALL");
  if (!plan.allowNetwork) args.push("--unshare-net");
  args.push("--chdir", plan.cwd, "--", ...argv);
  return args;
}

/** The writable set for a call: working dirs, temp dir, session shell dir, configured paths. */
export function sandboxPlan(
  config: SandboxConfig,
  dirs: { projectDir: string; additionalDirectories: readonly string[]; tmpDir: string; sessionShellDir: string; cwd: string },
): SandboxPlan {
  const wanted = [
    dirs.projectDir,
    ...dirs.additionalDirectories,
    dirs.tmpDir,
    dirs.sessionShellDir,
    ...(config.writablePaths ?? []).map((p) => (isAbsolute(p) ? p : resolve(dirs.projectDir, p))),
  ];
  const writable: string[] = [];
  for (const path of wanted) {
    const real = canonical(path);
    if (real !== undefined && real !== "/" && !writable.includes(real)) writable.push(real);
  }
  return { writable, allowNetwork: config.allowNetwork === true, cwd: canonical(dirs.cwd) ?? dirs.cwd };
}
