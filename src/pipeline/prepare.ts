import type { z } from "zod";
import type { AnyObjectSchema, Tool, ToolUseBlock, ToolUseContext } from "../tool/types.js";
import { findToolByName } from "../registry/find-tool.js";
import { isSchemaLoaded } from "../registry/deferral.js";
import { inputValidationMessage } from "./errors.js";
import { lenientInput } from "./lenient-input.js";

export type ParsedInput =
  | { ok: true; input: Record<string, unknown> }
  | { ok: false; message: string };

/**
 * A tool_use block looked up and parsed once. Every later stage (partition, permissions,
 * call) works on this value and never parses the input again.
 */
export interface PreparedCall {
  block: ToolUseBlock;
  tool: Tool | undefined;
  parsed: ParsedInput;
  /** Decided on the parsed input; false when it does not parse or the tool is unknown. */
  concurrencySafe: boolean;
}

const strictSchemas = new WeakMap<AnyObjectSchema, AnyObjectSchema>();
const fullSchemas = new WeakMap<Tool, AnyObjectSchema>();

/** The model-facing schema, strict: a key the schema does not name is a validation error. */
export function modelSchema(tool: Tool): AnyObjectSchema {
  let strict = strictSchemas.get(tool.inputSchema);
  if (!strict) {
    strict = tool.inputSchema.strict() as AnyObjectSchema;
    strictSchemas.set(tool.inputSchema, strict);
  }
  return strict;
}

/** The schema the runtime may fill: the model-facing fields plus the hidden internal ones. */
export function runtimeSchema(tool: Tool): AnyObjectSchema {
  if (!tool.internalInputSchema) return modelSchema(tool);
  let full = fullSchemas.get(tool);
  if (!full) {
    full = modelSchema(tool).extend(tool.internalInputSchema.shape) as AnyObjectSchema;
    fullSchemas.set(tool, full);
  }
  return full;
}

export function parseToolInput(tool: Tool, schema: AnyObjectSchema, raw: unknown, context: ToolUseContext): ParsedInput {
  let message: string;
  if (tool.inputJSONSchema && tool.validateJsonInput) {
    const problems = isPlainObject(raw) ? tool.validateJsonInput(raw) : ["The input must be a JSON object, but " + describe(raw) + " was provided"];
    if (problems.length === 0) return { ok: true, input: raw as Record<string, unknown> };
    message = `InputValidationError: ${tool.name} failed due to the following ${problems.length === 1 ? "issue" : "issues"}:\n${problems.join("\n")}`;
  } else {
    const result = schema.safeParse(raw);
    if (result.success) return { ok: true, input: result.data as Record<string, unknown> };
    const lenient = lenientInput(result.error as z.ZodError, raw);
    const second = lenient === undefined ? undefined : schema.safeParse(lenient);
    if (second?.success) return { ok: true, input: second.data as Record<string, unknown> };
    message = inputValidationMessage(tool.name, result.error as z.ZodError, raw);
  }
  if (!isSchemaLoaded(tool, context)) {
    message +=
      `\n\nThis tool's schema was not sent to you, so the parameters above were guessed. ` +
      `Load it first with ToolSearch (query "select:${tool.name}"), then call it again with the parameters its schema names.`;
  }
  return { ok: false, message };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/**
 * The input of a call whose arguments arrived as a string that is not JSON (OpenAI-style
 * `arguments`). It reaches the pipeline as a value, and becomes an is_error result there.
 */
export class MalformedToolInput {
  constructor(
    readonly raw: string,
    readonly problem: string,
    /** `custom`: an OpenAI custom tool call (free-form input), which no armature tool takes. */
    readonly kind: "json" | "custom" = "json",
  ) {}

  toJSON(): string {
    return this.raw;
  }
}

export function prepareToolUse(block: ToolUseBlock, context: ToolUseContext): PreparedCall {
  const tool = findToolByName(context.options.tools, block.name);
  if (!tool) return { block, tool, parsed: { ok: false, message: `Error: No such tool available: ${block.name}` }, concurrencySafe: false };
  if (block.input instanceof MalformedToolInput) {
    const shown = block.input.raw.length > 200 ? `${block.input.raw.slice(0, 200)}…` : block.input.raw;
    const message =
      block.input.kind === "custom"
        ? `InputValidationError: ${tool.name} was called as a custom tool with free-form input (${shown}); it is a function tool.\n` +
          `Call it as a function with its arguments as one JSON object.`
        : `InputValidationError: ${tool.name} failed because its arguments are not valid JSON (${block.input.problem}): ${shown}\n` +
          `Send the arguments as one JSON object.`;
    return { block, tool, parsed: { ok: false, message }, concurrencySafe: false };
  }
  const parsed = parseToolInput(tool, modelSchema(tool), block.input, context);
  let concurrencySafe = false;
  if (parsed.ok) {
    try {
      concurrencySafe = tool.isConcurrencySafe(parsed.input) === true;
    } catch {
      concurrencySafe = false; // fail closed: a tool that cannot tell is serial
    }
  }
  return { block, tool, parsed, concurrencySafe };
}

/** A call whose id repeats an earlier one in the same turn: it is answered with an error, never run. */
export function duplicateToolUse(block: ToolUseBlock): PreparedCall {
  return {
    block,
    tool: undefined,
    parsed: { ok: false, message: `Error: Duplicate tool_use id ${block.id}: each call needs its own id. This call was not run.` },
    concurrencySafe: false,
  };
}

/**
 * Calls one turn may make (documented in the README): the calls past it are answered with an
 * error and never prepared or run, so a reply of 10,000 tool_use blocks costs a small result
 * each, not a run each.
 */
export const MAX_TOOL_USES_PER_TURN = 1_000;

/** A call past the turn's limit: answered with an error saying what to do, never run. */
export function overLimitToolUse(block: ToolUseBlock, limit: number): PreparedCall {
  return {
    block,
    tool: undefined,
    parsed: {
      ok: false,
      message:
        `Error: this turn has more than ${limit} tool calls; calls past the ${limit}th (this ${block.name} call among them) were not run. ` +
        `Make at most ${limit} calls in one turn: repeat the ones still needed in your next turn.`,
    },
    // Nothing runs: no reason to serialise what follows.
    concurrencySafe: true,
  };
}

/** Prepares a whole turn; a repeated id becomes an error call, and so does every call past `limit`. */
export function prepareTurn(blocks: readonly ToolUseBlock[], context: ToolUseContext, limit = MAX_TOOL_USES_PER_TURN): PreparedCall[] {
  const seen = new Set<string>();
  return blocks.map((block, index) => {
    if (index >= limit) return overLimitToolUse(block, limit);
    if (seen.has(block.id)) return duplicateToolUse(block);
    seen.add(block.id);
    return prepareToolUse(block, context);
  });
}

/**
 * Awaits `load()` of the tools these blocks name (the Bash grammar on its first use), so that
 * preparing them — which calls the tools' synchronous members — can judge their inputs.
 * Resolves at once when none of them has anything to load.
 */
export async function loadToolsFor(blocks: readonly ToolUseBlock[], context: ToolUseContext): Promise<void> {
  await pendingToolLoads(blocks, context);
}

/** loadToolsFor without the await when there is nothing to load (undefined then): a turn's hot path. */
export function pendingToolLoads(blocks: readonly ToolUseBlock[], context: ToolUseContext): Promise<void> | undefined {
  let pending: Array<Promise<void>> | undefined;
  for (const block of blocks) {
    const tool = findToolByName(context.options.tools, block.name);
    if (!tool?.load) continue;
    (pending ??= []).push(tool.load());
  }
  // A tool that fails to load is judged fail-closed when prepared, and its call reports it.
  return pending ? Promise.allSettled(pending).then(() => undefined) : undefined;
}
