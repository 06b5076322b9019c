import type { PermissionRule, ShellSubcommand, Tool } from "../tool/types.js";
import { bashMatcher } from "../shell/bash-rules.js";
import { commandFacts, crudePieces, ruleFormCovers, ruleFormOf } from "../shell/command-facts.js";
import { hostMatches, ruleHostPattern } from "./domain-rules.js";
import { cachedPathPattern, mayMatchBelow, pathMatches } from "./path-rules.js";
import { defaultHome, pathForms, realCanonicalize, type Canonicalize, type PathForms } from "./paths.js";
import type { Scope, Target } from "./scope.js";
import { firstBashMatch, firstCanonicalMatch, ruleIndex } from "./rule-index.js";

export const READ_TOOLS = new Set(["Read", "Glob", "Grep"]);
export const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

/**
 * A path rule on writes: `Edit(…)`, or a deny/ask rule written for another editing tool
 * (`Write(./secret.txt)`), which is read as the `Edit(…)` rule it means: it restricts writes to
 * that path, not every call of the tool. An allow rule written that way never matches (a
 * widening rule is taken only as documented); `permissions list` warns about both.
 */
export function isWritePathRule(rule: PermissionRule): boolean {
  if (rule.ruleContent === undefined) return false;
  return rule.toolName === "Edit" || (rule.behavior !== "allow" && rule.toolName !== "Edit" && EDIT_TOOLS.has(rule.toolName));
}

function toolNamed(tool: Tool, name: string): boolean {
  return tool.name === name || tool.aliases.includes(name) || tool.legacyNames.includes(name);
}

const globCache = new Map<string, RegExp>();
/** A `*` name pattern as a regular expression (cached: patterns repeat across decisions). */
export function nameGlob(pattern: string): RegExp {
  let re = globCache.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    globCache.set(pattern, re);
  }
  return re;
}

/** Whether the tool-name part of a rule names this tool (exact, alias, MCP server, or a name glob). */
export function ruleNamesToolOrGroup(rule: PermissionRule, tool: Tool): boolean {
  const name = rule.toolName;
  if (name.includes("*")) return nameGlob(name).test(tool.name);
  if (toolNamed(tool, name)) return true;
  if (tool.mcpServer !== undefined && rule.ruleContent === undefined && name === `mcp__${tool.mcpServer}`) return true;
  return false;
}

/** A path rule's tool name applies to this call (by the tool, or by what its subject does). */
function pathRuleApplies(rule: PermissionRule, scope: Scope): "read" | "write" | null {
  const { tool, subject } = scope.request;
  if (rule.toolName === "Read" && (READ_TOOLS.has(tool.name) || subject?.kind === "file" || subject?.kind === "shell")) return "read";
  if (isWritePathRule(rule) && (EDIT_TOOLS.has(tool.name) || subject?.kind === "file" || subject?.kind === "shell")) return "write";
  return null;
}

function formsMatch(rule: PermissionRule, scope: Scope, forms: PathForms[], every: boolean): boolean {
  const pattern = cachedPathPattern(rule, scope.request.projectDir, scope.home);
  const nocase = rule.behavior !== "allow";
  const hit = (f: PathForms): boolean => {
    const l = pathMatches(pattern, f.lexical, nocase);
    const c = f.canonical === f.lexical ? l : pathMatches(pattern, f.canonical, nocase);
    return every ? l && c : l || c;
  };
  return every ? forms.every(hit) : forms.some(hit);
}

/**
 * A deny or ask rule: does it hit any part of the call? Bash rules hit any subcommand
 * (nested ones too, as written or with wrappers removed); `Edit` rules hit any write target,
 * `Read` rules any read or write target; domain rules the parsed host.
 */
export function restrictiveRuleHits(rule: PermissionRule, scope: Scope): boolean {
  const { tool, subject, input } = scope.request;
  const content = rule.ruleContent;
  const pathKind = content !== undefined ? pathRuleApplies(rule, scope) : null;
  if (pathKind !== null) {
    const targets = pathKind === "write" ? scope.writes : [...scope.reads, ...scope.writes];
    return targets.some((t) => formsMatch(rule, scope, t.forms, false) || (t.unknown && matchesWritten(rule, t)));
  }
  if (!ruleNamesToolOrGroup(rule, tool) && !namesGroup(rule, tool)) return false;
  if (content === undefined) return true;
  if (subject?.kind === "shell" && (rule.toolName === "Bash" || rule.toolName === tool.name)) {
    const m = bashMatcher(content);
    if (subject.facts.subcommands.some((sub) => restrictiveTextsIn(scope, sub).some(m))) return true;
    // The rule and each command read by the same option tables: another spelling of what it names.
    const forms = subject.facts.subcommands.map((sub) => commandFacts(sub).canonicalForm).filter((f) => f !== null);
    const form = forms.length > 0 ? ruleFormOf(content) : null;
    if (form && forms.some((f) => ruleFormCovers(form, f))) return true;
    // What the parser could not model is also matched crudely, piece by piece, so that an
    // unparseable command never slips past a deny rule that its text plainly contains.
    if (!subject.facts.complete) return crudePieces(subject.facts.command).some(m);
    return false;
  }
  if (subject?.kind === "url" && rule.toolName === "WebFetch") {
    const pattern = ruleHostPattern(content);
    if (pattern === null) return true;
    return scope.host === null || scope.host === undefined || hostMatches(pattern, scope.host);
  }
  return genericContentHits(content, tool, input, true);
}

function matchesWritten(rule: PermissionRule, t: Target): boolean {
  // A target whose value is unknown (a glob, a variable): compare its written text loosely.
  const tail = (rule.ruleContent ?? "").replace(/^\/+|^~\//, "").replace(/\*+/g, "").replace(/\/+$/, "");
  return tail.length > 0 && t.written.toLowerCase().includes(tail.toLowerCase());
}

function namesGroup(rule: PermissionRule, tool: Tool): boolean {
  return (rule.toolName === "Read" && READ_TOOLS.has(tool.name)) || (rule.toolName === "Edit" && EDIT_TOOLS.has(tool.name));
}

/** `Agent(Explore)`, `Skill(name)`, `Tool(param:value)`; a specifier we cannot read matches every call when it restricts, none when it allows. */
function genericContentHits(content: string, tool: Tool, input: Record<string, unknown>, restrictive: boolean): boolean {
  if (toolNamed(tool, "Agent") || toolNamed(tool, "Task")) {
    const type = input.subagent_type;
    return typeof type === "string" && nameGlob(content).test(type);
  }
  if (toolNamed(tool, "Skill")) {
    const skill = input.skill;
    return typeof skill === "string" && skillRuleMatches(content, skill);
  }
  const param = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$/.exec(content);
  if (param && restrictive) {
    const value = input[param[1]!];
    if (value === undefined || (typeof value === "object" && value !== null)) return false;
    return nameGlob(param[2]!).test(String(value));
  }
  return restrictive;
}

/**
 * A `Skill(...)` rule against the skill a call loads, as the reference reads it: `Skill(name)` is
 * that skill only; `Skill(name:*)` (or `Skill(name *)`) every skill whose name starts with
 * `name`. A leading `/` on the rule or the call is not part of the name.
 */
export function skillRuleMatches(content: string, skill: string): boolean {
  const name = skill.trim().replace(/^\//, "");
  const rule = content.trim().replace(/^\//, "");
  const prefix = /^(.*?)(?::\*| \*)$/.exec(rule);
  return prefix ? name.startsWith(prefix[1]!) : name === rule;
}

/** The texts deny and ask rules match for one subcommand of this call (`$"…"` read as its literal when the call has one). */
function restrictiveTextsIn(scope: Scope, sub: ShellSubcommand): readonly string[] {
  const facts = commandFacts(sub);
  return scope.localeQuoted ? facts.localeRestrictiveTexts : facts.restrictiveTexts;
}

/** Allow rules for one Bash subcommand: the first that matches it (and only past safe variables). */
export function allowRuleForSubcommand(rules: readonly PermissionRule[], sub: ShellSubcommand, toolName: string): PermissionRule | undefined {
  const facts = commandFacts(sub);
  if (!facts.safeEnv) return undefined;
  const section = ruleIndex(rules).allow;
  const exactOnly = facts.exactRuleOnly;
  let best: { order: number; rule: PermissionRule } | undefined = firstBashMatch(
    section.bash,
    facts.texts,
    exactOnly ? (e) => !(e.rule.ruleContent ?? "*").includes("*") : undefined,
  );
  for (const o of section.others) {
    if (best && o.order >= best.order) break;
    const r = o.rule;
    if (r.toolName !== "Bash" && r.toolName !== toolName) continue;
    if (r.ruleContent === undefined ? !exactOnly : facts.texts.some(bashMatcher(r.ruleContent))) {
      best = o;
      break;
    }
  }
  return best?.rule;
}

/** The first deny or ask rule (by order) that hits any part of the call. */
export function firstRestrictiveRule(rules: readonly PermissionRule[], behavior: "deny" | "ask", scope: Scope): PermissionRule | undefined {
  const section = ruleIndex(rules)[behavior];
  const facts = scope.request.subject?.kind === "shell" ? scope.request.subject.facts : undefined;
  if (!facts) return section.rules.find((r) => restrictiveRuleHits(r, scope));
  let best: { order: number; rule: PermissionRule } | undefined;
  for (const sub of facts.subcommands) {
    const hit = firstBashMatch(section.bash, restrictiveTextsIn(scope, sub));
    if (hit && (!best || hit.order < best.order)) best = hit;
  }
  const meant = firstCanonicalMatch(section.bash, facts.subcommands.map((sub) => commandFacts(sub).canonicalForm), best?.order);
  if (meant) best = meant;
  if (!facts.complete) {
    const pieces = crudePieces(facts.command);
    for (const e of section.bash.all) {
      if (best && e.order >= best.order) break;
      if (pieces.some(e.match)) best = e;
    }
  }
  for (const o of section.others) {
    if (best && o.order >= best.order) break;
    if (restrictiveRuleHits(o.rule, scope)) {
      best = o;
      break;
    }
  }
  return best?.rule;
}

/**
 * The allow rule that covers a target: an `Edit` path rule for a write, a `Read` or `Edit`
 * path rule for a read. Both the link and its target must match.
 */
export function allowRuleForTarget(rules: readonly PermissionRule[], scope: Scope, t: Target, access: "read" | "write"): PermissionRule | undefined {
  if (t.unknown) return undefined;
  for (const rule of rules) {
    if (rule.ruleContent === undefined) continue;
    if (rule.toolName !== "Edit" && !(access === "read" && rule.toolName === "Read")) continue;
    if (formsMatch(rule, scope, t.forms, true)) return rule;
  }
  return undefined;
}

/** An allow rule for a call that is neither a shell command nor a path: by name, domain or specifier. */
export function allowRuleForCall(rules: readonly PermissionRule[], scope: Scope): PermissionRule | undefined {
  const { tool, input } = scope.request;
  for (const rule of rules) {
    if (rule.toolName.includes("*") && !/^mcp__[A-Za-z0-9_-]+__./.test(rule.toolName)) continue;
    if (!ruleNamesToolOrGroup(rule, tool) && !namesGroup(rule, tool)) continue;
    if (rule.ruleContent === undefined) return rule;
    if (scope.request.subject?.kind === "url" && rule.toolName === "WebFetch") {
      const pattern = ruleHostPattern(rule.ruleContent);
      if (pattern !== null && typeof scope.host === "string" && hostMatches(pattern, scope.host)) return rule;
      continue;
    }
    if (genericContentHits(rule.ruleContent, tool, input, false)) return rule;
  }
  return undefined;
}

/**
 * For tools that walk directories (Glob, Grep): the deny rule that hides one file they found,
 * or undefined. A search root may be allowed while a file below it is denied (`Read(.env)`);
 * such tools drop the files this names. A relative `path` is read against `cwd`; relative rules
 * are anchored at `projectDir` (default: `cwd`).
 */
export function deniedPathRule(
  rules: readonly PermissionRule[],
  path: string,
  access: "read" | "write",
  where: { cwd: string; projectDir?: string; home?: string; canonicalize?: Canonicalize },
): PermissionRule | undefined {
  const home = where.home ?? defaultHome();
  const canonicalize = where.canonicalize ?? realCanonicalize;
  const forms = [pathForms(path, where.cwd, home, canonicalize)];
  for (const rule of rules) {
    if (rule.behavior !== "deny" || rule.ruleContent === undefined) continue;
    if (rule.toolName !== "Read" && !(access === "write" && isWritePathRule(rule))) continue;
    const pattern = cachedPathPattern(rule, where.projectDir ?? where.cwd, home);
    if (forms.some((f) => pathMatches(pattern, f.lexical, true) || pathMatches(pattern, f.canonical, true))) return rule;
  }
  return undefined;
}

/** Deny and ask `Read(…)` path rules, in order: what restricts a shell command's reads. */
export function restrictiveReadRules(rules: readonly PermissionRule[]): PermissionRule[] {
  return rules.filter((r) => r.behavior !== "allow" && r.toolName === "Read" && r.ruleContent !== undefined);
}

/** Deny and ask path rules on writes (`Edit(…)`, `Write(…)`), in order: what restricts the trees a shell command writes. */
export function restrictiveEditRules(rules: readonly PermissionRule[]): PermissionRule[] {
  return rules.filter((r) => r.behavior !== "allow" && isWritePathRule(r));
}

/**
 * The first of these rules that may match a path below a directory the call reads (by any of
 * its names), or undefined. `child` narrows to the first segment below it (a shell glob).
 */
export function ruleReachingBelow(rules: readonly PermissionRule[], scope: Scope, forms: readonly PathForms[], child?: (segment: string) => boolean): PermissionRule | undefined {
  for (const rule of rules) {
    const pattern = cachedPathPattern(rule, scope.request.projectDir, scope.home);
    for (const f of forms) {
      if (mayMatchBelow(pattern, f.lexical, true, child) || (f.canonical !== f.lexical && mayMatchBelow(pattern, f.canonical, true, child))) return rule;
    }
  }
  return undefined;
}
