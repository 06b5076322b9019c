import { z } from "zod";
import { modelSchema } from "../pipeline/prepare.js";
import type { Tool, ToolUseContext } from "../tool/types.js";

export type JsonSchema = Record<string, unknown>;

export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema?: JsonSchema;
  defer_loading?: true;
}

export interface OpenAIToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters?: JsonSchema };
  defer_loading?: true;
}

export type Provider = "anthropic" | "openai";

const schemaCache = new WeakMap<Tool, JsonSchema>();

/** The model-facing JSON Schema of a tool, from Zod v4's own converter (internal fields are not in it). */
export function toolJsonSchema(tool: Tool): JsonSchema {
  let schema = schemaCache.get(tool);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(modelSchema(tool), { io: "input", unrepresentable: "any" }) as JsonSchema;
    schema = rest;
    schemaCache.set(tool, schema);
  }
  return schema;
}

/** Whether the tool is sent with its schema now (not deferred, or already loaded via ToolSearch). */
export function isSchemaLoaded(tool: Tool, context: ToolUseContext | undefined): boolean {
  return !tool.shouldDefer || tool.alwaysLoad || (context?.options.loadedDeferredTools.has(tool.name) ?? false);
}

export async function anthropicToolDefinitions(tools: readonly Tool[], context?: ToolUseContext): Promise<AnthropicToolDefinition[]> {
  return Promise.all(
    tools.map(async (tool) => {
      const description = await tool.description(context);
      if (!isSchemaLoaded(tool, context)) return { name: tool.name, description, defer_loading: true as const };
      return { name: tool.name, description, input_schema: toolJsonSchema(tool) };
    }),
  );
}

export async function openAIToolDefinitions(tools: readonly Tool[], context?: ToolUseContext): Promise<OpenAIToolDefinition[]> {
  return Promise.all(
    tools.map(async (tool) => {
      const description = await tool.description(context);
      if (!isSchemaLoaded(tool, context)) {
        return { type: "function" as const, function: { name: tool.name, description }, defer_loading: true as const };
      }
      return { type: "function" as const, function: { name: tool.name, description, parameters: toolJsonSchema(tool) } };
    }),
  );
}

export function toolDefinitions(
  provider: Provider,
  tools: readonly Tool[],
  context?: ToolUseContext,
): Promise<AnthropicToolDefinition[] | OpenAIToolDefinition[]> {
  return provider === "openai" ? openAIToolDefinitions(tools, context) : anthropicToolDefinitions(tools, context);
}
