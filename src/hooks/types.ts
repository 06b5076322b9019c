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
  "SubagentStart",
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
  /** The session's transcript (JSON Lines of the turns); left out when there is none. */
  transcript_path?: string;
  cwd: string;
  hook_event_name: HookEventName;
  /** Not on every event (the agent-loop events may leave it out). */
  permission_mode?: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  error?: string;
  is_interrupt?: boolean;
  [key: string]: unknown;
}

/** One entry of a PermissionRequest hook's `decision.updatedPermissions`, passed through for the permission engine. */
export type HookPermissionUpdate =
  | {
      type: "addRules" | "replaceRules" | "removeRules";
      rules: Array<{ toolName: string; ruleContent?: string }>;
      behavior: "allow" | "deny" | "ask";
      destination: HookPermissionDestination;
    }
  | { type: "setMode"; mode: string; destination: HookPermissionDestination }
  | { type: "addDirectories" | "removeDirectories"; directories: string[]; destination: HookPermissionDestination };

export type HookPermissionDestination = "session" | "localSettings" | "projectSettings" | "userSettings";

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
  /** PermissionRequest: `decision.updatedPermissions` of the deciding hook (for the permission engine to apply). */
  updatedPermissions?: HookPermissionUpdate[];
  /** PermissionDenied: a hook asked that the model may retry the call (`hookSpecificOutput.retry`). */
  retry?: boolean;
  /** PostToolUse: a hook's replacement for the tool's output (`updatedToolOutput`), first one given. */
  updatedToolOutput?: unknown;
  /** A PreToolUse hook answered `defer` and no hook denied (honoured only by runs that can defer a call). */
  deferred?: boolean;
  /** How many hook handlers ran for this event (after matching and de-duplication). */
  hookCount?: number;
}

export function emptyHookOutcome(): HookOutcome {
  return { additionalContext: [], systemMessages: [], suppressOutput: false, errors: [] };
}

/** Runs the configured hooks. The pipeline asks `has` first so a session without hooks pays nothing. */
export interface HookRunner {
  has(event: HookEventName, matchValue?: string): boolean;
  run(event: HookEventName, input: HookInput, matchValue?: string, signal?: AbortSignal): Promise<HookOutcome>;
}

// ---- Typed payloads, per event (what the caller supplies; `hook_event_name` is filled in). ----

/** Fields every hook input carries. */
export interface HookCommonInput {
  session_id: string;
  /** Only when the transcript file exists. */
  transcript_path?: string;
  cwd: string;
  permission_mode?: string;
  agent_id?: string;
  agent_type?: string;
}

export interface HookToolCallSummary {
  tool_name: string;
  tool_input: unknown;
  tool_use_id: string;
  /** The serialized tool_result the model saw. */
  tool_response: unknown;
}

export interface HookEventPayloads {
  PreToolUse: { tool_name: string; tool_input: unknown; tool_use_id: string };
  PermissionRequest: { tool_name: string; tool_input: unknown; permission_suggestions?: unknown[] };
  PostToolUse: { tool_name: string; tool_input: unknown; tool_response: unknown; tool_use_id: string; duration_ms?: number };
  PostToolUseFailure: {
    tool_name: string;
    tool_input: unknown;
    tool_use_id: string;
    error: string;
    is_interrupt?: boolean;
    duration_ms?: number;
  };
  PermissionDenied: { tool_name: string; tool_input: unknown; tool_use_id: string; reason: string };
  PostToolBatch: { tool_calls: HookToolCallSummary[] };
  SessionStart: { source: "startup" | "resume" | "clear" | "compact" | "fork"; model?: string; session_title?: string };
  UserPromptSubmit: { prompt: string };
  Stop: {
    stop_hook_active: boolean;
    last_assistant_message?: string;
    background_tasks?: unknown[];
    session_crons?: unknown[];
  };
  SubagentStart: { agent_id: string; agent_type: string };
  SubagentStop: {
    stop_hook_active: boolean;
    agent_id: string;
    agent_type: string;
    agent_transcript_path?: string;
    last_assistant_message?: string;
    background_tasks?: unknown[];
    session_crons?: unknown[];
  };
  PreCompact: { trigger: "manual" | "auto"; custom_instructions: string };
  Notification: { message: string; title?: string; notification_type: string };
  SessionEnd: { reason: "clear" | "resume" | "logout" | "prompt_input_exit" | "other" | (string & {}) };
}

export type HookPayload<E extends HookEventName> = HookCommonInput & HookEventPayloads[E];

/** The input field a matcher filters on, per event; events absent here take no matcher (it is ignored). */
export const HOOK_MATCH_FIELD: Partial<Record<HookEventName, string>> = {
  PreToolUse: "tool_name",
  PermissionRequest: "tool_name",
  PostToolUse: "tool_name",
  PostToolUseFailure: "tool_name",
  PermissionDenied: "tool_name",
  SessionStart: "source",
  SessionEnd: "reason",
  Notification: "notification_type",
  SubagentStart: "agent_type",
  SubagentStop: "agent_type",
  PreCompact: "trigger",
};
