import type {
  PermissionContext,
  PermissionRule,
  PermissionSubject,
  Tool,
  ToolPermissionResult,
  ToolUseBlock,
} from "../tool/types.js";

export type DecisionBehavior = "allow" | "ask" | "deny";

/** A decision with its reason and what decided it (the rule and its source file, or null). */
export interface PermissionDecision {
  behavior: DecisionBehavior;
  reason: string;
  rule: string | null;
  source: string | null;
  /** Input replaced by a tool check or an approver. */
  updatedInput?: Record<string, unknown>;
}

export interface HookPermissionDecision {
  behavior: DecisionBehavior;
  reason?: string;
}

/** Everything the resolver looks at. The resolver reads nothing else. */
export interface PermissionRequest {
  tool: Tool;
  input: Record<string, unknown>;
  subject: PermissionSubject | undefined;
  toolPermission: ToolPermissionResult;
  hookDecision?: HookPermissionDecision;
  permissionContext: PermissionContext;
  cwd: string;
  projectDir: string;
  readOnly: boolean;
}

/** The pure decision function the pipeline calls; the permission engine may provide a richer one. */
export type PermissionResolver = (request: PermissionRequest) => PermissionDecision;

export interface ApprovalRequest {
  toolUse: ToolUseBlock;
  tool: Tool;
  input: Record<string, unknown>;
  decision: PermissionDecision;
  agentId?: string;
}

export type ApprovalAnswer =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; remember?: "session" | "local" | "project" | "user" }
  | { behavior: "deny"; message?: string };

/** Asked when the resolver says `ask`: a terminal prompt, a UI, or the host's `canUseTool`. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

export type { PermissionRule };
