import { createHash } from "node:crypto";

/** Longest tool name the model APIs accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** A server or tool name in the `[A-Za-z0-9_-]` alphabet tool names use. */
export function normalizeMcpName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * `mcp__<server>__<tool>`, normalised; a name past 64 characters keeps its start and ends in
 * a hash of the whole, so two long names stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash("sha256").update(full).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${hash}`;
}
