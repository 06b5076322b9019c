import type { BoundaryReport } from "../sandbox/boundary.js";
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
  /**
   * For an `ask`: narrowed allow rules an "always allow" answer would save (a command prefix
   * such as `Bash(npm run test *)`, a directory for files; never a bare `Bash`).
   */
  suggestedRules?: string[];
  /**
   * For an `ask` in `auto` mode: the classifier may answer instead of a human. False for ask
   * rules, hook asks and safety checks, which always reach a human.
   */
  classifiable?: boolean;
  /**
   * For a shell call: the OS boundary it runs in if it runs (an ask: once approved). Absent where
   * the session has no sandbox settings at all.
   */
  sandbox?: BoundaryReport;
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
  /**
   * The turn's signal: aborted when the turn is interrupted or the session closes. The call is
   * then answered as interrupted without waiting for this approver; close a prompt it shows.
   */
  signal: AbortSignal;
}

/** Where an "always allow" answer saves its rules. */
export type RememberScope = "session" | "local" | "project" | "user";

export type ApprovalAnswer =
  | {
      behavior: "allow";
      updatedInput?: Record<string, unknown>;
      remember?: RememberScope;
      /** Rules to save instead of the decision's suggestions (each still narrowed: never a bare tool name for Bash). */
      rules?: string[];
      /** Why, and who answered (default "Approved by the user" / "approver"). */
      reason?: string;
      source?: string;
    }
  | {
      behavior: "deny";
      message?: string;
      reason?: string;
      source?: string;
      /** Denied because no one could be asked (no approver behind the session's engine). */
      unasked?: boolean;
    };

/** Asked when the resolver says `ask`: a terminal prompt, a UI, or the host's `canUseTool`. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

export type { PermissionRule };
