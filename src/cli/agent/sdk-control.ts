import type { McpManager } from "../../mcp/manager.js";
import type { AgentMessage, Usage } from "../../providers/model.js";
import { isDeferredTool } from "../../registry/deferral.js";
import { toolJsonSchema } from "../../registry/definitions.js";
import type { Tool, ToolUseContext } from "../../tool/types.js";

/**
 * Answers of the SDK's newer read-only control requests (`mcp_status`, `get_context_usage`):
 * pure functions of the session's state, so the stream session only wires them.
 */

/** The SDK's McpServerStatus rows: state, what the server said it is, its tools, how it is reached. */
export function mcpStatusRows(mcp: McpManager | undefined): Array<Record<string, unknown>> {
  return (mcp?.servers() ?? []).map((s) => {
    const row: Record<string, unknown> = { name: s.name, status: s.status === "closed" ? "failed" : s.status };
    if (s.serverInfo) row.serverInfo = s.serverInfo;
    if (s.error !== undefined) row.error = s.error;
    // The configuration without env and headers: they may hold credentials.
    const config: Record<string, unknown> = { type: s.transport };
    if (s.location !== undefined) config[s.transport === "stdio" ? "command" : "url"] = s.location;
    if (s.transport === "sdk") config.name = s.name;
    row.config = config;
    row.scope = s.scope;
    row.source = s.transport === "sdk" ? "sdk" : s.scope;
    row.transport = s.transport;
    if (s.toolList) {
      row.tools = s.toolList.map((t) => {
        const a = t.annotations ?? {};
        const annotations: Record<string, boolean> = {};
        if (a.readOnlyHint !== undefined) annotations.readOnly = a.readOnlyHint;
        if (a.destructiveHint !== undefined) annotations.destructive = a.destructiveHint;
        if (a.openWorldHint !== undefined) annotations.openWorld = a.openWorldHint;
        return { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), ...(Object.keys(annotations).length > 0 ? { annotations } : {}) };
      });
    }
    return row;
  });
}

/** The window the context-usage answer measures against (the session's tool-search default too). */
export const CONTEXT_WINDOW_TOKENS = 200_000;

/** Tokens of a text, estimated at four characters a token (no token-count request is made). */
function estimate(chars: number): number {
  return Math.ceil(chars / 4);
}

export interface ContextUsageInput {
  model: string;
  system: string;
  context: ToolUseContext;
  messages: readonly AgentMessage[];
  /** The last model reply's usage (what the API counted), if there was one. */
  lastUsage: Usage | undefined;
}

async function toolChars(tool: Tool, context: ToolUseContext): Promise<number> {
  return (await tool.description(context)).length + JSON.stringify(toolJsonSchema(tool)).length + tool.name.length;
}

/**
 * The SDK's SDKControlGetContextUsageResponse, estimated (the `summary` detail: local estimates,
 * and the last reply's usage as `apiUsage`): the system prompt, built-in and MCP tools (deferred
 * ones apart: they are not in the window until loaded), the conversation, the free space.
 */
export async function contextUsage(input: ContextUsageInput): Promise<Record<string, unknown>> {
  const { context } = input;
  const builtin: Array<{ name: string; tokens: number }> = [];
  const mcpTools: Array<{ name: string; serverName: string; tokens: number; isLoaded: boolean }> = [];
  let builtinDeferred = 0;
  let mcpDeferred = 0;
  for (const tool of context.options.tools) {
    const tokens = estimate(await toolChars(tool, context));
    const deferred = isDeferredTool(tool, context.options);
    if (tool.isMcp) {
      mcpTools.push({ name: tool.name, serverName: tool.mcpServer ?? "", tokens, isLoaded: !deferred });
      if (deferred) mcpDeferred += tokens;
    } else if (deferred) builtinDeferred += tokens;
    else builtin.push({ name: tool.name, tokens });
  }
  const systemTokens = estimate(input.system.length);
  const systemToolTokens = builtin.reduce((n, t) => n + t.tokens, 0);
  const mcpToolTokens = mcpTools.filter((t) => t.isLoaded).reduce((n, t) => n + t.tokens, 0);
  const messageTokens = estimate(JSON.stringify(input.messages).length);
  const used = systemTokens + systemToolTokens + mcpToolTokens + messageTokens;
  const free = Math.max(0, CONTEXT_WINDOW_TOKENS - used);
  const categories = [
    { id: "system_prompt", name: "System prompt", tokens: systemTokens, color: "blue", kind: "used" },
    { id: "system_tools", name: "System tools", tokens: systemToolTokens, color: "gray", kind: "used" },
    { id: "mcp_tools", name: "MCP tools", tokens: mcpToolTokens, color: "cyan", kind: "used" },
    { id: "messages", name: "Messages", tokens: messageTokens, color: "magenta", kind: "used" },
    ...(mcpDeferred > 0 ? [{ id: "mcp_tools_deferred", name: "MCP tools (deferred)", tokens: mcpDeferred, color: "gray", isDeferred: true, kind: "deferred" }] : []),
    ...(builtinDeferred > 0 ? [{ id: "system_tools_deferred", name: "System tools (deferred)", tokens: builtinDeferred, color: "gray", isDeferred: true, kind: "deferred" }] : []),
    { id: "free_space", name: "Free space", tokens: free, color: "gray", kind: "free" },
  ];
  const last = input.lastUsage;
  return {
    categories,
    totalTokens: used,
    maxTokens: CONTEXT_WINDOW_TOKENS,
    rawMaxTokens: CONTEXT_WINDOW_TOKENS,
    percentage: Math.round((used / CONTEXT_WINDOW_TOKENS) * 10_000) / 100,
    gridRows: [],
    model: input.model,
    memoryFiles: [],
    mcpTools,
    systemTools: builtin,
    agents: [],
    isAutoCompactEnabled: false,
    apiUsage: last
      ? { input_tokens: last.input_tokens, output_tokens: last.output_tokens, cache_creation_input_tokens: last.cache_creation_input_tokens, cache_read_input_tokens: last.cache_read_input_tokens }
      : null,
  };
}
