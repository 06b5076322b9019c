import { ruleNamesTool } from "../permissions/resolve.js";
import type { PermissionContext, PermissionMode, Tool } from "../tool/types.js";

/** A built-in tool and the feature flag that turns it on (none: always on). */
export interface ToolRegistration {
  tool: Tool;
  feature?: string;
  /** Whether the flag is on when the user says nothing. */
  defaultOn?: boolean;
  /** Modes in which the tool is hidden from the model (e.g. ExitPlanMode outside plan mode). */
  hiddenInModes?: readonly PermissionMode[];
}

export type FeatureFlags = Readonly<Record<string, boolean>>;

/** The base tools whose feature flags are on. */
export function selectBaseTools(registrations: readonly ToolRegistration[], flags: FeatureFlags = {}): ToolRegistration[] {
  return registrations.filter((r) => r.feature === undefined || (flags[r.feature] ?? r.defaultOn ?? true));
}

function byName(a: Tool, b: Tool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Built-ins sorted by name, then MCP tools sorted by name. A built-in wins a name clash.
 * Adding or removing an MCP tool never moves a built-in, so the prompt-cache prefix of the
 * tool list stays stable.
 */
export function assembleToolPool(builtins: readonly Tool[], mcpTools: readonly Tool[] = []): Tool[] {
  const sortedBuiltins = [...builtins].sort(byName);
  const taken = new Set(sortedBuiltins.map((t) => t.name));
  const extra: Tool[] = [];
  for (const tool of [...mcpTools].sort(byName)) {
    if (taken.has(tool.name)) continue;
    taken.add(tool.name);
    extra.push(tool);
  }
  return [...sortedBuiltins, ...extra];
}

/** Whether a bare deny rule (`Tool`, `Tool(*)`, `mcp__server`) removes the tool from the pool. */
export function isDeniedOutright(tool: Tool, permissionContext: PermissionContext): boolean {
  return permissionContext.rules.some(
    (rule) => rule.behavior === "deny" && rule.ruleContent === undefined && ruleNamesTool(rule, tool.name, tool.mcpServer),
  );
}

/**
 * The tools the model is shown: enabled, not hidden by the mode, not denied outright.
 * `hidden` maps a tool name to the modes that hide it.
 */
export function getTools(
  tools: readonly Tool[],
  permissionContext: PermissionContext,
  hidden: ReadonlyMap<string, readonly PermissionMode[]> = new Map(),
): Tool[] {
  return tools.filter((tool) => {
    let enabled: boolean;
    try {
      enabled = tool.isEnabled();
    } catch {
      enabled = false;
    }
    if (!enabled) return false;
    if (hidden.get(tool.name)?.includes(permissionContext.mode)) return false;
    return !isDeniedOutright(tool, permissionContext);
  });
}
