import type { ApprovalAnswer, Approver, RememberScope } from "../../permissions/types.js";
import type { ControlChannel } from "./control-channel.js";

/** `updatedPermissions` entries of a `can_use_tool` answer (the SDK's PermissionUpdate). */
interface PermissionUpdate {
  type?: string;
  rules?: Array<{ toolName?: string; ruleContent?: string }>;
  behavior?: string;
  destination?: string;
  mode?: string;
}

const DESTINATIONS: Record<string, RememberScope> = { session: "session", localSettings: "local", projectSettings: "project", userSettings: "user", cliArg: "session" };

export interface SdkApproverHooks {
  /** A `setMode` update in an answer: the session's permission mode changes. */
  setMode(mode: string): void;
  /** A deny with `interrupt: true`: the run stops after this call. */
  interrupt(reason: string): void;
}

/**
 * `--permission-prompt-tool stdio`: a call that needs approval is asked of the host with a
 * `can_use_tool` control request (the SDK's `canUseTool` callback answers). allow may rewrite
 * the input and add allow rules (`updatedPermissions` addRules → remembered where it says);
 * deny gives the model the host's message, and may interrupt the run. A host that cannot be
 * asked (input closed, an error answer) denies.
 */
export function sdkApprover(channel: ControlChannel, hooks: SdkApproverHooks): Approver {
  return async (request) => {
    const suggestions = (request.decision.suggestedRules ?? []).map((rule) => {
      const m = /^([^(]+)\((.*)\)$/s.exec(rule);
      return { type: "addRules", rules: [m ? { toolName: m[1], ruleContent: m[2] } : { toolName: rule }], behavior: "allow", destination: "session" };
    });
    let answer: Record<string, unknown>;
    try {
      answer = await channel.request({
        subtype: "can_use_tool",
        tool_name: request.tool.name,
        input: request.input,
        tool_use_id: request.toolUse.id,
        ...(suggestions.length > 0 ? { permission_suggestions: suggestions } : {}),
        decision_reason: request.decision.reason,
        decision_reason_type: request.decision.rule ? "rule" : "mode",
        ...(request.agentId !== undefined ? { agent_id: request.agentId } : {}),
      });
    } catch (err) {
      return { behavior: "deny", message: `The SDK host could not be asked for permission: ${(err as Error).message}`, source: "sdk" };
    }
    if (answer.behavior === "allow") {
      const out: Extract<ApprovalAnswer, { behavior: "allow" }> = { behavior: "allow", source: "sdk", reason: "Allowed by the SDK host (canUseTool)" };
      if (isObject(answer.updatedInput)) out.updatedInput = answer.updatedInput;
      const rules: string[] = [];
      for (const update of Array.isArray(answer.updatedPermissions) ? (answer.updatedPermissions as PermissionUpdate[]) : []) {
        if (update.type === "setMode" && typeof update.mode === "string") hooks.setMode(update.mode);
        if (update.type === "addRules" && update.behavior === "allow") {
          for (const r of update.rules ?? []) if (typeof r.toolName === "string") rules.push(r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName);
          out.remember = DESTINATIONS[update.destination ?? "session"] ?? "session";
        }
      }
      if (rules.length > 0) out.rules = rules;
      return out;
    }
    const message = typeof answer.message === "string" && answer.message !== "" ? answer.message : "The SDK host denied this call";
    // The run stops once this deny is the call's outcome (an abort now would make it an
    // interrupted call instead, missing from permission_denials).
    if (answer.interrupt === true) setImmediate(() => hooks.interrupt(message));
    return { behavior: "deny", message, reason: message, source: "sdk" };
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
