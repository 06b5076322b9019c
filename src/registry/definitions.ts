import { z } from "zod";
import { modelSchema } from "../pipeline/prepare.js";
import type { Tool, ToolUseContext } from "../tool/types.js";

export type JsonSchema = Record<string, unknown>;

/** A tool's input schema: always a JSON Schema object type (what both providers require). */
export interface JsonObjectSchema {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/** Fits the `tools` of `@anthropic-ai/sdk`'s `messages.create` as is. */
export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: JsonObjectSchema;
  /** A deferred tool not loaded yet: the API keeps it out of the prompt until tool search returns it. */
  defer_loading?: true;
}

export interface OpenAIToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters?: JsonObjectSchema };
  defer_loading?: true;
}

export type Provider = "anthropic" | "openai";

const schemaCache = new WeakMap<Tool, JsonObjectSchema>();

/** The model-facing JSON Schema of a tool, from Zod v4's own converter (internal fields are not in it). */
export function toolJsonSchema(tool: Tool): JsonObjectSchema {
  let schema = schemaCache.get(tool);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(modelSchema(tool), { io: "input", unrepresentable: "any" }) as JsonSchema;
    // Tool inputs are Zod objects, so the converter's answer is an object type.
    schema = { ...(dropSafeIntegerBounds(rest) as JsonSchema), type: "object" } as JsonObjectSchema;
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
      // The API needs every tool's schema; a deferred one is marked so that it stays out of the prompt.
      if (!isSchemaLoaded(tool, context)) return { name: tool.name, description, input_schema: toolJsonSchema(tool), defer_loading: true as const };
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

/**
 * Zod writes `.int()` as bounds of ±(2^53 − 1): noise in every integer the model reads.
 * Only those implicit bounds are removed; a bound a tool sets itself stays.
 */
function dropSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    out[key] = dropSafeIntegerBounds(value);
  }
  return out;
}
