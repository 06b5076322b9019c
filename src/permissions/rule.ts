import type { PermissionRule, RuleBehavior } from "../tool/types.js";

export class RuleParseError extends Error {
  constructor(
    readonly rule: string,
    readonly problem: string,
  ) {
    super(`invalid permission rule ${JSON.stringify(rule)}: ${problem}`);
    this.name = "RuleParseError";
  }
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** A tool-name glob (`*`, `mcp__*`, `mcp__github__get_*`). */
const TOOL_NAME_GLOB = /^[A-Za-z0-9_*-]*\*[A-Za-z0-9_*-]*$/;
const MCP_WILDCARD = /^mcp__[A-Za-z0-9_-]+__\*$/;

/**
 * Parses one rule: `Tool`, `Tool(*)`, `Tool(specifier)`, `mcp__server`, `mcp__server__*`,
 * `mcp__server__tool`. Parentheses inside the specifier may be escaped as `\(` and `\)`.
 * Throws RuleParseError for anything else: a rule that does not parse is never a no-op.
 */
export function parseRule(raw: string, behavior: RuleBehavior, source: string, root?: string): PermissionRule {
  const text = raw.trim();
  if (text.length === 0) throw new RuleParseError(raw, "the rule is empty");
  const open = firstUnescaped(text, "(");
  if (open === -1) {
    if (firstUnescaped(text, ")") !== -1) throw new RuleParseError(raw, "a ')' without its '('");
    if (MCP_WILDCARD.test(text)) return rule(raw, behavior, source, text.slice(0, -3), undefined, root);
    if (TOOL_NAME_GLOB.test(text)) return rule(raw, behavior, source, text, undefined, root);
    if (!TOOL_NAME.test(text)) throw new RuleParseError(raw, "a tool name has only letters, digits, '_' and '-'");
    return rule(raw, behavior, source, text, undefined, root);
  }
  const toolName = text.slice(0, open);
  if (!TOOL_NAME.test(toolName)) throw new RuleParseError(raw, "a tool name has only letters, digits, '_' and '-'");
  if (!text.endsWith(")") || text.endsWith("\\)")) throw new RuleParseError(raw, "the specifier must end with ')'");
  const inner = text.slice(open + 1, -1);
  if (!balanced(inner)) {
    throw new RuleParseError(raw, "unbalanced parentheses inside the specifier (write \\( and \\))");
  }
  const content = inner.replace(/\\([()\\])/g, "$1");
  if (content.trim().length === 0) throw new RuleParseError(raw, "empty parentheses: write the tool name alone, or Tool(*)");
  checkSpecifier(raw, toolName, content);
  return rule(raw, behavior, source, toolName, content === "*" ? undefined : content, root);
}

/** Specifiers whose form we know are checked here, so a typo is an error and not a rule that never matches. */
function checkSpecifier(raw: string, toolName: string, content: string): void {
  if (toolName === "WebFetch" && content !== "*") {
    const m = /^domain\s*:\s*(.*)$/i.exec(content.trim());
    if (!m) throw new RuleParseError(raw, "WebFetch rules name a host: WebFetch(domain:example.com) or WebFetch(domain:*.example.com)");
    const host = m[1]!.trim();
    if (host.length === 0 || /[/\s@?#]/.test(host)) {
      throw new RuleParseError(raw, "the domain must be a bare host name such as example.com (no scheme, path, port or user)");
    }
  }
  if ((toolName === "Read" || toolName === "Edit") && content.includes("\0")) {
    throw new RuleParseError(raw, "a path pattern cannot contain a NUL character");
  }
}

function rule(
  raw: string,
  behavior: RuleBehavior,
  source: string,
  toolName: string,
  ruleContent: string | undefined,
  root: string | undefined,
): PermissionRule {
  const parsed: PermissionRule = { behavior, toolName, raw, source };
  if (ruleContent !== undefined) parsed.ruleContent = ruleContent;
  if (root !== undefined) parsed.root = root;
  return parsed;
}

function firstUnescaped(text: string, ch: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === ch) return i;
  }
  return -1;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

export interface RuleLists {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
}

/** Parses allow/ask/deny lists from one source. Errors name the source, the key and the rule. */
export function parseRuleLists(lists: RuleLists, source: string, root?: string): PermissionRule[] {
  const out: PermissionRule[] = [];
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const raw of lists[behavior] ?? []) {
      try {
        out.push(parseRule(raw, behavior, source, root));
      } catch (err) {
        if (err instanceof RuleParseError) {
          throw new RuleParseError(raw, `${err.problem} (in ${source}, permissions.${behavior})`);
        }
        throw err;
      }
    }
  }
  return out;
}

/** The rule as a user would write it again. */
export function formatRule(rule: Pick<PermissionRule, "toolName" | "ruleContent">): string {
  if (rule.ruleContent === undefined) return rule.toolName;
  return `${rule.toolName}(${rule.ruleContent.replace(/[()\\]/g, "\\$&")})`;
}

/** Tools every user can name in rules besides the pool's (a rule may name a tool that is not loaded yet). */
const WELL_KNOWN_TOOLS = [
  "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "Bash", "BashOutput", "KillShell",
  "TaskOutput", "TaskStop", "WebFetch", "WebSearch", "TodoWrite", "Agent", "Task", "ToolSearch",
  "EnterPlanMode", "ExitPlanMode", "Skill", "SlashCommand", "NotebookRead", "LS", "PowerShell",
];

/** Tools whose path rules are `Edit(…)` rules. */
const EDIT_FAMILY = new Set(["Write", "MultiEdit", "NotebookEdit"]);

/** Tools whose specifier the resolver reads (others take `param:value`, or nothing). */
const SPECIFIER_TOOLS = new Set(["Bash", "Read", "Edit", "WebFetch", "Agent", "Task"]);

/**
 * Warnings about rules that parse but will probably not do what was meant: an unknown tool
 * name (names with `_` or `*` are exempt: MCP tools come and go), an allow glob not anchored
 * after `mcp__server__` (ignored), a Bash allow that approves every command.
 */
export function ruleWarnings(rules: readonly PermissionRule[], knownToolNames: Iterable<string> = []): string[] {
  const known = new Set([...WELL_KNOWN_TOOLS, ...knownToolNames]);
  const out: string[] = [];
  for (const r of rules) {
    const where = `${r.source}, permissions.${r.behavior}`;
    if (r.toolName.includes("*")) {
      if (r.behavior === "allow" && !/^mcp__[A-Za-z0-9_-]+__./.test(r.toolName)) {
        out.push(`${where}: ${JSON.stringify(r.raw)} is ignored: an allow rule may use * in the tool name only after mcp__<server>__`);
      }
      continue;
    }
    if (!r.toolName.includes("_") && !known.has(r.toolName)) {
      out.push(`${where}: ${JSON.stringify(r.raw)} names an unknown tool ${JSON.stringify(r.toolName)}`);
    }
    if (r.ruleContent !== undefined && EDIT_FAMILY.has(r.toolName)) {
      // Path rules for writes are Edit rules: they cover Write, MultiEdit and NotebookEdit too.
      // A deny/ask one is read as that Edit rule (match.ts, isWritePathRule); an allow one is not
      // taken ("Write alone" would allow every write, the opposite of what was meant).
      const edit = formatRule({ toolName: "Edit", ruleContent: r.ruleContent });
      const instead = `path rules for writes are Edit(…) rules, which cover Write, MultiEdit and NotebookEdit: write ${edit}`;
      out.push(
        r.behavior === "allow"
          ? `${where}: ${JSON.stringify(r.raw)} never matches; ${instead}`
          : `${where}: ${JSON.stringify(r.raw)} is read as ${edit} (writes to that path by any tool); ${instead}`,
      );
      continue;
    }
    if (r.ruleContent !== undefined && !SPECIFIER_TOOLS.has(r.toolName) && !/^[A-Za-z_][A-Za-z0-9_-]*\s*:/.test(r.ruleContent)) {
      out.push(
        r.behavior === "allow"
          ? `${where}: ${JSON.stringify(r.raw)} never matches: ${r.toolName} takes no specifier (write ${r.toolName} alone)`
          : `${where}: ${JSON.stringify(r.raw)} applies to every ${r.toolName} call: ${r.toolName} takes no specifier`,
      );
    }
  }
  return out;
}
