import { z } from "zod";
import { modelSchema } from "../pipeline/prepare.js";
import type { Tool, ToolUseContext } from "../tool/types.js";
import { isDeferredTool, isSchemaLoaded } from "./deferral.js";

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
  /** A deferred tool that ToolSearch has loaded (an unloaded one is not sent at all). */
  defer_loading?: true;
}

export interface OpenAIToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: JsonObjectSchema };
}

export type Provider = "anthropic" | "openai";

const schemaCache = new WeakMap<Tool, JsonObjectSchema>();

/**
 * The model-facing JSON Schema of a tool: a raw JSON Schema tool's own (MCP: the server's, as
 * sent), else Zod v4's conversion of the input schema (internal fields are not in it).
 */
export function toolJsonSchema(tool: Tool): JsonObjectSchema {
  if (tool.inputJSONSchema) return { ...tool.inputJSONSchema, type: "object" } as JsonObjectSchema;
  let schema = schemaCache.get(tool);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(modelSchema(tool), { io: "input", unrepresentable: "any" }) as JsonSchema;
    // Tool inputs are Zod objects, so the converter's answer is an object type.
    schema = { ...(dropSafeIntegerBounds(rest) as JsonSchema), type: "object" } as JsonObjectSchema;
    schemaCache.set(tool, schema);
  }
  return schema;
}

export { isSchemaLoaded };

/** Sent whenever tools are deferred, as the reference does: it keeps deferred loading active on the API. */
export const DEFERRED_TOOL_PLACEHOLDER: AnthropicToolDefinition = {
  name: "DeferredToolPlaceholder",
  description: "Placeholder entry that keeps on-demand tool loading switched on. It does nothing; do not call it.",
  input_schema: { type: "object", properties: {} },
  defer_loading: true,
};

/**
 * Anthropic `tools`: a deferred tool is left out until ToolSearch loads it (the model sees its
 * name in the deferred-tools message); once loaded it is sent in full with `defer_loading: true`.
 * When any tool is deferred, the placeholder is the second-to-last entry (the reference's order).
 */
export async function anthropicToolDefinitions(tools: readonly Tool[], context?: ToolUseContext): Promise<AnthropicToolDefinition[]> {
  let anyDeferred = false;
  const out: AnthropicToolDefinition[] = [];
  for (const tool of tools) {
    const deferred = isDeferredTool(tool, context?.options);
    if (deferred) anyDeferred = true;
    if (deferred && !isSchemaLoaded(tool, context)) continue;
    const description = await tool.description(context);
    const def: AnthropicToolDefinition = { name: tool.name, description, input_schema: toolJsonSchema(tool) };
    if (deferred) def.defer_loading = true;
    out.push(def);
  }
  if (anyDeferred) out.splice(Math.max(0, out.length - 1), 0, DEFERRED_TOOL_PLACEHOLDER);
  return out;
}

/** OpenAI `tools`: a deferred tool is left out until ToolSearch loads it, then sent in full. */
export async function openAIToolDefinitions(tools: readonly Tool[], context?: ToolUseContext): Promise<OpenAIToolDefinition[]> {
  const out: OpenAIToolDefinition[] = [];
  for (const tool of tools) {
    if (!isSchemaLoaded(tool, context)) continue;
    const description = await tool.description(context);
    out.push({ type: "function", function: { name: tool.name, description, parameters: toolJsonSchema(tool) } });
  }
  return out;
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
