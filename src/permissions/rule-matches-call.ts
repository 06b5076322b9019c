import { parseRule, RuleParseError } from "./rule.js";
import { restrictiveRuleHits, ruleNamesToolOrGroup } from "./match.js";
import { buildScope, type ResolveOptions } from "./scope.js";
import type { PermissionRequest } from "./types.js";

/**
 * Whether one rule, written as in settings (`Bash(git push *)`, `Edit(./src/**)`), names this
 * call — with the same matching a deny rule gets. For a hook's `if` condition. A rule that
 * does not parse matches (a policy hook is run rather than skipped).
 */
export function ruleMatchesCall(rawRule: string, request: PermissionRequest, options: ResolveOptions = {}): boolean {
  let rule;
  try {
    rule = parseRule(rawRule, "deny", "hook if");
  } catch (err) {
    if (err instanceof RuleParseError) return true;
    throw err;
  }
  if (!ruleNamesToolOrGroup(rule, request.tool)) return false;
  return rule.ruleContent === undefined || restrictiveRuleHits(rule, buildScope(request, options));
}
