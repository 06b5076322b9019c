import type { ToolUseContext, ValidationResult } from "../../tool/types.js";

/**
 * Tools that only make sense with a human to answer (questions, plan approval): disabled for a
 * run nobody can answer, and inside sub-agents (which report to their parent, not to the user).
 * The texts are the reference agent's.
 */
export function interactiveToolAvailability(name: string, context: ToolUseContext): ValidationResult {
  if (context.agent.depth > 0) {
    return {
      result: false,
      message: `Error: No such tool available: ${name}. ${name} is not available inside subagents. Complete the task with the tools provided and return findings to the orchestrator.`,
      errorCode: "not_in_subagents",
    };
  }
  if (!context.options.canAskUser) return disabledForSession(name);
  return { result: true };
}

/** The reference's answer to a call of a tool this session has turned off. */
export function disabledForSession(name: string): ValidationResult {
  return { result: false, message: `Error: No such tool available: ${name}. ${name} is disabled for this session, in subagents as well as here.`, errorCode: "disabled_for_session" };
}
