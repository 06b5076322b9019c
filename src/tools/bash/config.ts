// Limits and settings of the Bash tool, read from the environment. Pure: the same env, the same values.

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** A background command's lifetime when the call gives no timeout, and its ceiling. */
export const DEFAULT_BACKGROUND_TIMEOUT_MS = 1_800_000;
export const MAX_BACKGROUND_TIMEOUT_MS = 7_200_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;
export const HARD_MAX_OUTPUT_CHARS = 150_000;
/** Output past this many bytes stops the command (the disk is not infinite either; no model reads a GiB). */
export const DEFAULT_MAX_OUTPUT_FILE_BYTES = 1024 ** 3;
/** What a call's output file keeps once the command has ended: its first and last halves of this. */
export const DEFAULT_KEEP_OUTPUT_BYTES = 64 * 1024 ** 2;
/** What a session's Bash outputs may take in all: past it the oldest finished ones are removed. */
export const DEFAULT_OUTPUT_TOTAL_BYTES = 2 * 1024 ** 3;

export type Env = Readonly<Record<string, string | undefined>>;

export interface BashLimits {
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  maxOutputChars: number;
  /** The full output file's cap: past it the command is stopped. */
  maxOutputFileBytes: number;
  /** Output over this is cut to its head and tail once the command ends (what the session folder keeps per call). */
  keepOutputBytes: number;
  /** The session's Bash outputs in all (see output-folder.ts). */
  outputTotalBytes: number;
  /** Start every command in the project directory (no `cd` carry-over). */
  maintainProjectWorkingDir: boolean;
}

/** First set variable among `names` (ARMATURE_ names first, then the reference agent's). */
function pick(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return value.trim();
  }
  return undefined;
}

function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 1 ? Math.floor(n) : undefined;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && ["1", "true", "yes", "on"].includes(value.toLowerCase());
}

export function bashLimitsFromEnv(env: Env): BashLimits {
  const defaultTimeoutMs = positiveInt(pick(env, ["ARMATURE_BASH_DEFAULT_TIMEOUT_MS", "BASH_DEFAULT_TIMEOUT_MS"])) ?? DEFAULT_TIMEOUT_MS;
  const maxSetting = positiveInt(pick(env, ["ARMATURE_BASH_MAX_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS"])) ?? MAX_TIMEOUT_MS;
  const maxOutput = positiveInt(pick(env, ["ARMATURE_BASH_MAX_OUTPUT_LENGTH", "BASH_MAX_OUTPUT_LENGTH"])) ?? DEFAULT_MAX_OUTPUT_CHARS;
  return {
    defaultTimeoutMs,
    // As in the reference agent: the maximum is never below the default.
    maxTimeoutMs: Math.max(maxSetting, defaultTimeoutMs),
    maxOutputChars: Math.min(maxOutput, HARD_MAX_OUTPUT_CHARS),
    maxOutputFileBytes: positiveInt(pick(env, ["ARMATURE_BASH_MAX_OUTPUT_FILE_BYTES"])) ?? DEFAULT_MAX_OUTPUT_FILE_BYTES,
    keepOutputBytes: positiveInt(pick(env, ["ARMATURE_BASH_KEEP_OUTPUT_BYTES"])) ?? DEFAULT_KEEP_OUTPUT_BYTES,
    outputTotalBytes: positiveInt(pick(env, ["ARMATURE_BASH_OUTPUT_TOTAL_BYTES"])) ?? DEFAULT_OUTPUT_TOTAL_BYTES,
    maintainProjectWorkingDir: truthy(
      pick(env, ["ARMATURE_BASH_MAINTAIN_PROJECT_WORKING_DIR", "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR"]),
    ),
  };
}

/** The timeout a call runs with: the requested one clamped to the maximum (not rejected), else the default. */
export function effectiveTimeout(requested: number | undefined, limits: BashLimits, background: boolean): number {
  if (background) {
    if (requested === undefined) return DEFAULT_BACKGROUND_TIMEOUT_MS;
    return Math.min(Math.max(1, Math.floor(requested)), MAX_BACKGROUND_TIMEOUT_MS);
  }
  if (requested === undefined) return limits.defaultTimeoutMs;
  return Math.min(Math.max(1, Math.floor(requested)), limits.maxTimeoutMs);
}

/** The shell: the factory option, else ARMATURE_SHELL, else `bash` (from the system folders: trusted-executable.ts). */
export function resolveShell(option: string | undefined, env: Env): string {
  return option ?? pick(env, ["ARMATURE_SHELL"]) ?? "bash";
}

/**
 * The environment of a command: the process's, then the session's (settings `env`), then the
 * variables that keep a command from waiting on a human: pagers print, editors return at once,
 * git and ssh never prompt for credentials.
 */
export function commandEnv(base: Env, sessionEnv: Env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of [base, sessionEnv]) {
    for (const [k, v] of Object.entries(source)) if (v !== undefined) env[k] = v;
  }
  Object.assign(env, {
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_EDITOR: "true",
    ARMATURE: "1",
    GIT_TERMINAL_PROMPT: "0",
  });
  // Batch mode makes ssh fail instead of asking for a password or host-key confirmation.
  env.GIT_SSH_COMMAND ??= "ssh -o BatchMode=yes";
  return env;
}

/** Background tasks are turned off (ARMATURE_DISABLE_BACKGROUND_TASKS, CLAUDE_CODE_DISABLE_BACKGROUND_TASKS). */
export function backgroundTasksDisabled(env: Env = process.env): boolean {
  const value = env.ARMATURE_DISABLE_BACKGROUND_TASKS ?? env.CLAUDE_CODE_DISABLE_BACKGROUND_TASKS;
  return value !== undefined && ["1", "true", "yes"].includes(value.toLowerCase());
}

/**
 * What a foreground command's timeout does, as the reference agent does it: a command whose first
 * word is `sleep` is stopped; any other goes on in the background (nothing it does is lost).
 */
export function timeoutAction(command: string, env: Env): "stop" | "background" {
  if (/^\s*sleep(?:\s|$)/.test(command) || backgroundTasksDisabled(env)) return "stop";
  return "background";
}
