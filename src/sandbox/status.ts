// The sandbox of a session: its settings and whether it can run here, decided once at start.
import type { SandboxState } from "./boundary.js";
import { probeSandbox } from "./probe.js";
import { trustedExecutable } from "./trusted-executable.js";
import { applySandboxEnv, DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from "./settings.js";

export interface SandboxStatus extends SandboxState {
  settings: SandboxSettings;
  /** The bwrap binary, when the sandbox can run. */
  bwrap?: string;
  /** Why it cannot run here (enabled but unavailable). */
  reason?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Settings (default: the built-in ones) with ARMATURE_SANDBOX applied, and the probe's answer. */
export function sandboxStatus(settings: SandboxSettings = DEFAULT_SANDBOX_SETTINGS, env: Env = process.env): SandboxStatus {
  const effective = applySandboxEnv(settings, env);
  const base = {
    settings: effective,
    enabled: effective.enabled,
    autoAllowBashIfSandboxed: effective.autoAllowBashIfSandboxed,
    allowUnsandboxedCommands: effective.allowUnsandboxedCommands,
    unsandboxedUnasked: effective.unsandboxedUnasked,
    excludedCommands: effective.excludedCommands,
  };
  if (!effective.enabled) return { ...base, available: false };
  // Probed on first read (a bwrap run): a process that never runs a shell command never pays it.
  const probe = (): ReturnType<typeof probeSandbox> => probeSandbox(env);
  return Object.defineProperties(base as unknown as SandboxStatus, {
    available: { get: () => probe().available, enumerable: true },
    bwrap: { get: () => (probe().available ? probe().bwrap : undefined), enumerable: true },
    reason: { get: () => probe().reason, enumerable: true },
  });
}

/** The one message for a sandbox that is on but cannot run, or undefined. */
export function sandboxUnavailableMessage(status: SandboxStatus): string | undefined {
  if (!status.enabled || status.available) return undefined;
  const why = status.reason ?? "no sandbox can run here";
  if (status.settings.required) {
    return `the OS sandbox was asked for (${status.settings.enabledSource}) but cannot run: ${why}. Bash commands will not run until it can (install bubblewrap) or it is turned off (ARMATURE_SANDBOX=0).`;
  }
  return `the OS sandbox is unavailable: ${why}. Commands run without it, judged by the permission rules alone. Install bubblewrap to turn it on, or set sandbox.enabled to false to silence this.`;
}

/** What `session.info()` and the stream-json `system` event report. */
export interface SandboxInfo {
  enabled: boolean;
  available: boolean;
  kind: "bwrap" | "none";
  message?: string;
  /** The programs armature itself starts, by absolute path (absent: not found in the system's folders). */
  programs: { bwrap?: string; bash?: string; git?: string; rg?: string };
}

export function sandboxInfo(status: SandboxStatus, env: Env = process.env): SandboxInfo {
  const message = sandboxUnavailableMessage(status);
  const programs: SandboxInfo["programs"] = {};
  const bwrap = status.bwrap;
  if (bwrap !== undefined) programs.bwrap = bwrap;
  for (const name of ["bash", "git", "rg"] as const) {
    const path = trustedExecutable(name, env);
    if (path !== undefined) programs[name] = path;
  }
  return { enabled: status.enabled, available: status.available, kind: status.available ? "bwrap" : "none", ...(message !== undefined ? { message } : {}), programs };
}
