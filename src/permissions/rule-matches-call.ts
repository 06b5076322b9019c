import { parseRule, RuleParseError } from "./rule.js";
import { restrictiveRuleHits, ruleNamesToolOrGroup } from "./match.js";
import { buildScope, type ResolveOptions } from "./scope.js";
import type { PermissionRequest } from "./types.js";
import { bashRuleMayMatch } from "../shell/rule-may-match.js";

/**
 * Whether one rule, written as in settings (`Bash(git push *)`, `Edit(./src/**)`), names this
 * call — with the same matching a deny rule gets. For a hook's `if` condition. A rule that
 * does not parse matches (a policy hook is run rather than skipped), and so does a shell command
 * the rule may name once the words not known before it runs have their values (`git $sub
 * origin`, `for f in $(git ls-files); do rm "$f"; done`, `… | xargs rm`) or that the analysis
 * could not read whole: a hook that guards is not skipped for what the matcher cannot see.
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
  if (rule.ruleContent === undefined || restrictiveRuleHits(rule, buildScope(request, options))) return true;
  const subject = request.subject;
  if (subject?.kind !== "shell" || (rule.toolName !== "Bash" && rule.toolName !== request.tool.name)) return false;
  return !subject.facts.complete || subject.facts.subcommands.some((sub) => bashRuleMayMatch(rule.ruleContent!, sub));
}
