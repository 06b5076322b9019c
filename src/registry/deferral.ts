import type { Tool, ToolUseContext, ToolUseOptions } from "../tool/types.js";

/**
 * When tools are sent as names only, to be loaded through ToolSearch:
 * `always` defers every deferrable tool, `never` none, `auto` defers MCP tools once their
 * definitions would take more than `percent` % of the context window (built-in deferrable
 * tools are deferred in both `always` and `auto`).
 */
export type ToolSearchMode = { kind: "always" } | { kind: "never" } | { kind: "auto"; percent: number };

export const DEFAULT_TOOL_SEARCH_PERCENT = 10;
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 200_000;
/** Characters per token for the size estimate (JSON of names, descriptions and schemas). */
const CHARS_PER_TOKEN = 4;

export class ToolSearchModeError extends Error {
  constructor(readonly value: string) {
    super(`tool search setting ${JSON.stringify(value)} is not one of true, false, auto, auto:N (N a percentage of the context window, 0-100)`);
    this.name = "ToolSearchModeError";
  }
}

/** Parses `true` | `false` | `auto` | `auto:N` (the reference's `ENABLE_TOOL_SEARCH` values; `1`/`0` too). */
export function parseToolSearchMode(value: string): ToolSearchMode {
  const v = value.trim().toLowerCase();
  if (v === "true" || v === "1" || v === "always") return { kind: "always" };
  if (v === "false" || v === "0" || v === "never") return { kind: "never" };
  if (v === "auto" || v === "") return { kind: "auto", percent: DEFAULT_TOOL_SEARCH_PERCENT };
  const m = /^auto:(\d+(?:\.\d+)?)$/.exec(v);
  if (m) {
    const percent = Number(m[1]);
    if (percent >= 0 && percent <= 100) return { kind: "auto", percent };
  }
  throw new ToolSearchModeError(value);
}

/** `ARMATURE_ENABLE_TOOL_SEARCH`, else `ENABLE_TOOL_SEARCH`, else auto at 10 %. */
export function toolSearchModeFromEnv(env: NodeJS.ProcessEnv = process.env): ToolSearchMode {
  const value = env.ARMATURE_ENABLE_TOOL_SEARCH ?? env.ENABLE_TOOL_SEARCH;
  return value === undefined ? { kind: "auto", percent: DEFAULT_TOOL_SEARCH_PERCENT } : parseToolSearchMode(value);
}

/** Whether this tool is sent without its schema in this context (before any ToolSearch load). */
export function isDeferredTool(tool: Tool, options: Pick<ToolUseOptions, "deferredTools"> | undefined): boolean {
  if (options?.deferredTools) return options.deferredTools.has(tool.name);
  return tool.shouldDefer && !tool.alwaysLoad;
}

/** Whether the tool is sent with its schema now (not deferred, or already loaded via ToolSearch). */
export function isSchemaLoaded(tool: Tool, context: ToolUseContext | undefined): boolean {
  if (!isDeferredTool(tool, context?.options)) return true;
  return context?.options.loadedDeferredTools.has(tool.name) ?? false;
}

/** The characters a tool's full definition takes (name, description, schema as JSON). */
export function definitionChars(tool: Tool, schema: (tool: Tool) => unknown): number {
  let description: unknown;
  try {
    description = tool.description(undefined);
  } catch {
    description = "";
  }
  // An async description cannot be measured synchronously: counted as a long one.
  const descriptionChars = typeof description === "string" ? description.length : 1_000;
  return tool.name.length + descriptionChars + JSON.stringify(schema(tool)).length;
}

export interface DeferralOptions {
  mode: ToolSearchMode;
  contextWindowTokens?: number;
  /** The model-facing schema of a tool (for the size estimate). */
  schema: (tool: Tool) => unknown;
}

/**
 * The names of the tools to send without their schema. Built-in deferrable tools are
 * deferred unless the mode is `never`; MCP tools in `always`, or in `auto` when all of them
 * together exceed the threshold (the decision is for the whole set, so it does not flip per tool).
 */
export function decideDeferredTools(tools: readonly Tool[], options: DeferralOptions): Set<string> {
  const out = new Set<string>();
  if (options.mode.kind === "never") return out;
  const mcp: Tool[] = [];
  for (const tool of tools) {
    if (!tool.shouldDefer || tool.alwaysLoad) continue;
    if (tool.isMcp) mcp.push(tool);
    else out.add(tool.name);
  }
  if (mcp.length === 0) return out;
  let deferMcp = options.mode.kind === "always";
  if (options.mode.kind === "auto") {
    const window = options.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
    const limitChars = (window * CHARS_PER_TOKEN * options.mode.percent) / 100;
    let chars = 0;
    for (const tool of mcp) {
      chars += definitionChars(tool, options.schema);
      if (chars > limitChars) {
        deferMcp = true;
        break;
      }
    }
  }
  if (deferMcp) for (const tool of mcp) out.add(tool.name);
  return out;
}

/** The text that names the deferred tools for the model (the reference puts it in a system message). */
export function deferredToolsMessage(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  return (
    `The following deferred tools are available via ToolSearch. Their schemas are not loaded: ` +
    `call ToolSearch with query "select:<name>[,<name>...]" (or with keywords) to load them before calling them:\n` +
    [...names].sort().join("\n")
  );
}
