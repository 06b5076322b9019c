/**
 * The reference CLI's flags that the Agent SDK (0.3.x, `sdk.mjs`) passes, beyond the ones
 * `armature agent` already had. Each is implemented in agent.ts, or listed in IGNORED_FLAGS:
 * accepted because a host passes it, with no effect here, and named in the init event's
 * `armature_ignored_flags` so the host can tell. A flag we cannot honour safely fails instead
 * (see REFUSED_FLAGS).
 */
export const REFERENCE_FLAG_OPTIONS = {
  "input-format": { type: "string" },
  "include-partial-messages": { type: "boolean" },
  "permission-prompt-tool": { type: "string" },
  "dangerously-skip-permissions": { type: "boolean" },
  "allow-dangerously-skip-permissions": { type: "boolean" },
  tools: { type: "string", multiple: true },
  "json-schema": { type: "string" },
  "max-budget-usd": { type: "string" },
  "session-id": { type: "string" },
  "fork-session": { type: "boolean" },
  "no-session-persistence": { type: "boolean" },
  "max-thinking-tokens": { type: "string" },
  "fallback-model": { type: "string" },
  "setting-sources": { type: "string" },
  // accepted, no effect (IGNORED_FLAGS)
  "thinking-display": { type: "string" },
  effort: { type: "string" },
  "task-budget": { type: "string" },
  agent: { type: "string" },
  betas: { type: "string" },
  debug: { type: "boolean" },
  "debug-file": { type: "string" },
  "debug-to-stderr": { type: "boolean" },
  "permission-prompts": { type: "string" },
  channels: { type: "string", multiple: true },
  "include-hook-events": { type: "boolean" },
  "session-mirror": { type: "boolean" },
  "project-config-root": { type: "string" },
  "await-initialize": { type: "boolean" },
  "plugin-dir": { type: "string", multiple: true },
  "plugin-dir-no-mcp": { type: "string", multiple: true },
  "resume-session-at": { type: "string" },
  "resume-drops-turn": { type: "string" },
  "initialize-fields": { type: "string" },
  "managed-settings": { type: "string" },
  "managed-settings-in-initialize": { type: "boolean" },
  "no-optional-locks": { type: "boolean" },
  "replay-user-messages": { type: "boolean" },
  "sdk-url": { type: "string" },
} as const;

/** Accepted with no effect here; reported in `system/init`. */
export const IGNORED_FLAGS = [
  "thinking-display",
  "effort",
  "task-budget",
  "agent",
  "betas",
  "debug",
  "debug-file",
  "debug-to-stderr",
  "permission-prompts",
  "channels",
  "include-hook-events",
  "session-mirror",
  "project-config-root",
  "await-initialize",
  "plugin-dir",
  "plugin-dir-no-mcp",
  "resume-session-at",
  "resume-drops-turn",
  "initialize-fields",
  "managed-settings-in-initialize",
  "no-optional-locks",
  "replay-user-messages",
  "fallback-model",
  "no-session-persistence",
] as const;

/** Flags that would change what armature enforces or where it connects, which it cannot do safely. */
export const REFUSED_FLAGS: Readonly<Record<string, string>> = {
  "sdk-url": "armature does not connect to a remote session service; run it as a child process over stdio",
  "managed-settings": "managed settings come from the managed settings file only, never from the command line",
};

/** The ignored flags present in parsed values, as `--name`. */
export function ignoredFlagsGiven(values: Record<string, unknown>): string[] {
  return IGNORED_FLAGS.filter((name) => values[name] !== undefined).map((name) => `--${name}`);
}
