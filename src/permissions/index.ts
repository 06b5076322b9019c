export { parseRule, parseRuleLists, formatRule, RuleParseError } from "./rule.js";
export type { RuleLists } from "./rule.js";
export { resolvePermission, ruleNamesTool } from "./resolve.js";
export type { ContentMatcher } from "./resolve.js";
export * from "./types.js";
