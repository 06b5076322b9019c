import { toolJsonSchema, type JsonObjectSchema } from "../registry/definitions.js";
import { ToolSearchTool } from "../registry/tool-search/index.js";
import type { Session } from "./session.js";

export interface NeutralToolDefinition {
  name: string;
  description: string;
  parameters: JsonObjectSchema;
}

/**
 * Every tool the model may see, for an SDK whose tool set is fixed and whose model may be any
 * provider's: deferred tools in full, and no ToolSearch (its tool_reference results only mean
 * something to Anthropic's API, and nothing could load a tool into a fixed set anyway).
 */
export async function neutralToolDefinitions(session: Session): Promise<NeutralToolDefinition[]> {
  const byName = new Map(session.context.options.tools.map((t) => [t.name, t] as const));
  const out = (await session.toolDefinitions("openai")).filter((d) => d.function.name !== ToolSearchTool.name).map((d) => d.function);
  for (const name of session.deferredToolNames()) {
    const tool = byName.get(name);
    if (tool) out.push({ name, description: await tool.description(session.context), parameters: toolJsonSchema(tool) });
  }
  return out;
}
