import type { PermissionDecision, PermissionResolver } from "../permissions/types.js";
import type { ToolUseBlock, ToolUseContext } from "../tool/types.js";
import { observableInput, permissionRequestFor } from "./permission-request.js";
import { loadToolsFor, prepareToolUse } from "./prepare.js";

/**
 * What a call would get from the permission system, without running it: `allow`, `ask` (an
 * approver or a PermissionRequest hook would be asked) or `deny`, with the reason and the rule
 * that decided. A call that would fail before any decision (no such tool, an input that does
 * not parse or validate) is `invalid`, with the error the model would get. Hooks are not run
 * (they are commands and requests with effects of their own), so a PreToolUse hook may still
 * decide otherwise when the call really runs.
 */
export type ToolUseCheck = PermissionDecision | { behavior: "invalid"; reason: string; rule: null; source: null };

export async function checkToolUse(block: ToolUseBlock, context: ToolUseContext, resolve: PermissionResolver): Promise<ToolUseCheck> {
  const invalid = (reason: string): ToolUseCheck => ({ behavior: "invalid", reason, rule: null, source: null });
  await loadToolsFor([block], context);
  const { tool, parsed } = prepareToolUse(block, context);
  if (!tool) return invalid(parsed.ok ? `Error: No such tool available: ${block.name}` : parsed.message);
  if (!parsed.ok) return invalid(parsed.message);
  try {
    const validation = await tool.validateInput(parsed.input, context);
    if (!validation.result) return invalid(validation.message);
    const observable = observableInput(tool, parsed.input, context);
    return resolve(permissionRequestFor(tool, parsed.input, observable, context, await tool.checkPermissions(parsed.input, context)));
  } catch (err) {
    return invalid(`Error: ${tool.name} could not be checked: ${(err as Error).message}`);
  }
}
