import type { Tool } from "../tool/types.js";

/**
 * Exact name first, then aliases, then legacy names — so a new tool named like an old alias
 * wins over the alias.
 */
export function findToolByName(tools: readonly Tool[], name: string): Tool | undefined {
  for (const tool of tools) if (tool.name === name) return tool;
  for (const tool of tools) if (tool.aliases.includes(name)) return tool;
  for (const tool of tools) if (tool.legacyNames.includes(name)) return tool;
  return undefined;
}

export function toolMatchesName(tool: Tool, name: string): boolean {
  return tool.name === name || tool.aliases.includes(name) || tool.legacyNames.includes(name);
}
