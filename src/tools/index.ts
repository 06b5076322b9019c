import type { FeatureFlags, ToolRegistration } from "../registry/pool.js";
import { selectBaseTools } from "../registry/pool.js";
import type { Tool } from "../tool/types.js";
import { createGlobTool } from "./glob/index.js";
import { createGrepTool } from "./grep/index.js";
import { EditTool, MultiEditTool } from "./edit/index.js";
import { NotebookEditTool } from "./notebook-edit/index.js";
import { ReadTool } from "./read/index.js";
import { WriteTool } from "./write/index.js";

/**
 * The built-in tools, each behind its feature flag where it has one. Tools register here as
 * they are added (one folder each under src/tools/).
 */
export function builtinToolRegistrations(): ToolRegistration[] {
  return [
    { tool: ReadTool },
    { tool: WriteTool },
    { tool: EditTool },
    { tool: MultiEditTool },
    { tool: NotebookEditTool, feature: "notebook", defaultOn: true },
    { tool: createGlobTool() },
    { tool: createGrepTool() },
  ];
}

export interface BuiltinToolOptions {
  /** Feature flags by name; a tool whose flag is off is not in the pool. */
  features?: FeatureFlags;
}

/** The standard tool set, ready for `createSession({ tools: builtinTools() })`. */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return selectBaseTools(builtinToolRegistrations(), options.features).map((r) => r.tool);
}
