export const TOOL_HOOK_EVENTS = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionDenied",
  "PostToolBatch",
] as const;

export const LOOP_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "Notification",
  "SessionEnd",
] as const;

export type ToolHookEvent = (typeof TOOL_HOOK_EVENTS)[number];
export type LoopHookEvent = (typeof LOOP_HOOK_EVENTS)[number];
export type HookEventName = ToolHookEvent | LoopHookEvent;

/** The JSON a hook receives (stdin for command hooks, the POST body for HTTP hooks). */
export interface HookInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: HookEventName;
  permission_mode: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  error?: string;
  is_interrupt?: boolean;
  [key: string]: unknown;
}

/** What all matching hooks of one event said, combined (deny > ask > allow). */
export interface HookOutcome {
  permissionDecision?: "allow" | "deny" | "ask";
  permissionDecisionReason?: string;
  /** Replaces the whole tool input (re-validated and re-checked by the pipeline). */
  updatedInput?: Record<string, unknown>;
  /** Exit code 2 or `decision: "block"`: the reason the model sees. */
  blockReason?: string;
  additionalContext: string[];
  systemMessages: string[];
  /** `continue: false`: the agent loop should stop after this; the reason for the user. */
  stopReason?: string;
  suppressOutput: boolean;
  /** Non-blocking problems (a crashing, hanging or garbage-printing hook), reported, never thrown. */
  errors: string[];
}

export function emptyHookOutcome(): HookOutcome {
  return { additionalContext: [], systemMessages: [], suppressOutput: false, errors: [] };
}

/** Runs the configured hooks. The pipeline asks `has` first so a session without hooks pays nothing. */
export interface HookRunner {
  has(event: HookEventName, matchValue?: string): boolean;
  run(event: HookEventName, input: HookInput, matchValue?: string, signal?: AbortSignal): Promise<HookOutcome>;
}
