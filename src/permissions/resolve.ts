import type { PermissionRule } from "../tool/types.js";
import type { PermissionDecision, PermissionRequest } from "./types.js";

/** Does a rule name this tool (whole-tool rules and MCP server rules)? */
export function ruleNamesTool(rule: PermissionRule, toolName: string, mcpServer: string | undefined): boolean {
  if (rule.toolName === toolName) return true;
  // `mcp__server` and `mcp__server__*` cover every tool of that server.
  return mcpServer !== undefined && rule.ruleContent === undefined && rule.toolName === `mcp__${mcpServer}`;
}

/**
 * Whether a rule matches this call. Whole-tool rules match by name; a rule with a specifier
 * is matched by `matchContent`. The core knows only tool names: without a content matcher a
 * specifier rule matches when its content equals the whole input rendered as the rule would
 * name it, which no real input does — so content rules neither allow nor deny here.
 */
export type ContentMatcher = (rule: PermissionRule, request: PermissionRequest) => boolean;

const noContentMatch: ContentMatcher = () => false;

function firstMatch(
  rules: readonly PermissionRule[],
  behavior: PermissionRule["behavior"],
  request: PermissionRequest,
  matchContent: ContentMatcher,
): PermissionRule | undefined {
  const { tool } = request;
  for (const rule of rules) {
    if (rule.behavior !== behavior) continue;
    if (!ruleNamesTool(rule, tool.name, tool.mcpServer)) continue;
    if (rule.ruleContent === undefined || matchContent(rule, request)) return rule;
  }
  return undefined;
}

function byRule(behavior: PermissionDecision["behavior"], rule: PermissionRule, what: string): PermissionDecision {
  return { behavior, reason: `${what} by rule ${rule.raw}`, rule: rule.raw, source: rule.source };
}

/**
 * The decision chain: hook deny → deny rules → ask rules → the tool's own check → allow rules
 * → hook allow → the mode → ask. Pure: the same request gives the same decision.
 */
export function resolvePermission(request: PermissionRequest, matchContent: ContentMatcher = noContentMatch): PermissionDecision {
  const { hookDecision, permissionContext, toolPermission, tool } = request;
  const rules = permissionContext.rules;

  if (hookDecision?.behavior === "deny") {
    return { behavior: "deny", reason: hookDecision.reason ?? "Denied by a PreToolUse hook", rule: null, source: "hook" };
  }
  const deny = firstMatch(rules, "deny", request, matchContent);
  if (deny) return byRule("deny", deny, "Denied");
  const ask = firstMatch(rules, "ask", request, matchContent);
  if (ask) return byRule("ask", ask, "Approval required");
  if (hookDecision?.behavior === "ask") {
    return { behavior: "ask", reason: hookDecision.reason ?? "A PreToolUse hook asked for approval", rule: null, source: "hook" };
  }

  if (toolPermission.behavior === "deny") {
    return { behavior: "deny", reason: toolPermission.message, rule: null, source: `tool:${tool.name}` };
  }
  if (toolPermission.behavior === "ask" && permissionContext.mode !== "bypassPermissions") {
    return { behavior: "ask", reason: toolPermission.message, rule: null, source: `tool:${tool.name}` };
  }

  const allow = firstMatch(rules, "allow", request, matchContent);
  if (allow) return byRule("allow", allow, "Allowed");
  if (hookDecision?.behavior === "allow") {
    return { behavior: "allow", reason: hookDecision.reason ?? "Allowed by a PreToolUse hook", rule: null, source: "hook" };
  }
  if (toolPermission.behavior === "allow") {
    const decision: PermissionDecision = { behavior: "allow", reason: toolPermission.reason ?? `Allowed by ${tool.name}`, rule: null, source: `tool:${tool.name}` };
    if (toolPermission.updatedInput) decision.updatedInput = toolPermission.updatedInput;
    return decision;
  }
  return decideByMode(request);
}

function decideByMode(request: PermissionRequest): PermissionDecision {
  const { mode } = request.permissionContext;
  const fromMode = (behavior: PermissionDecision["behavior"], reason: string): PermissionDecision => ({
    behavior,
    reason,
    rule: null,
    source: `mode:${mode}`,
  });
  switch (mode) {
    case "bypassPermissions":
      return fromMode("allow", "Allowed by bypassPermissions mode");
    case "plan":
      return request.readOnly
        ? fromMode("allow", "Read-only call allowed in plan mode")
        : fromMode("deny", `${request.tool.name} changes things, and plan mode is read-only`);
    case "dontAsk":
      return request.readOnly
        ? fromMode("allow", "Read-only call")
        : fromMode("deny", `${request.tool.name} needs approval, and dontAsk mode denies whatever would ask`);
    case "acceptEdits":
      if (request.readOnly) return fromMode("allow", "Read-only call");
      if (request.subject?.kind === "file" && request.subject.access === "write") return fromMode("allow", "File edit accepted in acceptEdits mode");
      return fromMode("ask", `${request.tool.name} needs approval in acceptEdits mode`);
    default:
      return request.readOnly
        ? fromMode("allow", "Read-only call")
        : fromMode("ask", `${request.tool.name} needs approval in ${mode} mode`);
  }
}
