import type { HookPermissionDecision, PermissionRequest } from "../permissions/types.js";
import type { Tool, ToolPermissionResult, ToolUseContext } from "../tool/types.js";

/** The input hooks and permissions see: the tool's backfill (e.g. an absolute path) on a copy. */
export function observableInput(tool: Tool, input: Record<string, unknown>, context: ToolUseContext): Record<string, unknown> {
  return tool.backfillObservableInput ? tool.backfillObservableInput({ ...input }, context) : input;
}

/**
 * What the resolver is asked about one call. Built in one place for the pipeline, for
 * `armature permissions check` and for hooks' `if` rules, so all three decide alike.
 */
export function permissionRequestFor(
  tool: Tool,
  input: Record<string, unknown>,
  observable: Record<string, unknown>,
  context: ToolUseContext,
  toolPermission: ToolPermissionResult,
  hookDecision?: HookPermissionDecision,
): PermissionRequest {
  let readOnly = false;
  try {
    readOnly = tool.isReadOnly(input) === true;
  } catch {
    readOnly = false; // a tool that cannot tell is not read-only
  }
  const request: PermissionRequest = {
    tool,
    input: observable,
    // The subject the tool's check resolved, when it gives one: the names judged are the names it writes.
    subject: (toolPermission.behavior === "passthrough" ? toolPermission.subject : undefined) ?? tool.permissionSubject(observable, context),
    toolPermission,
    permissionContext: context.permissionContext,
    cwd: context.workspace.cwd,
    projectDir: context.workspace.projectDir,
    readOnly,
  };
  if (hookDecision) request.hookDecision = hookDecision;
  return request;
}
