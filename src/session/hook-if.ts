import type { HookIfMatcher } from "../hooks/runner.js";
import { permissionRequestFor } from "../pipeline/permission-request.js";
import { ruleMatchesCall } from "../permissions/rule-matches-call.js";
import { findToolByName } from "../registry/find-tool.js";
import type { ToolUseContext } from "../tool/types.js";

/**
 * A hook handler's `if` rule evaluated by the permission matcher on the call's subject, so
 * `"if": "Bash(git *)"` means what it means in a permission rule. The context is read when
 * a hook runs (the session's current one).
 */
export function permissionRuleIfMatcher(currentContext: () => ToolUseContext): HookIfMatcher {
  return (rule, toolName, toolInput) => {
    const context = currentContext();
    const tool = findToolByName(context.options.tools, toolName);
    if (!tool || toolInput === null || typeof toolInput !== "object") return true;
    const input = toolInput as Record<string, unknown>;
    try {
      return ruleMatchesCall(rule, permissionRequestFor(tool, input, input, context, { behavior: "passthrough" }));
    } catch {
      return true; // the tool cannot judge this input (yet): run the hook rather than skip it
    }
  };
}
