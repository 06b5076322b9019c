import type { AnthropicToolDefinition } from "../registry/definitions.js";
import type { ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock } from "../tool/types.js";
import type { ApiRetry } from "./retry-observer.js";

/** A thinking block, kept in the history exactly as received (its signature lets the API verify it). */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

/**
 * An OpenAI Responses `reasoning` output item, kept whole (its `encrypted_content` included)
 * so that the next request gives it back in order: the model keeps its reasoning across tool
 * calls. Other providers leave it out of their requests.
 */
export interface ReasoningItemBlock {
  type: "reasoning_item";
  item: Record<string, unknown>;
}

export type AssistantContentBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock | ReasoningItemBlock;
export type UserContentBlock = TextBlock | ImageBlock | ToolResultBlock;

/**
 * One message of the conversation, in the Anthropic Messages shape: the history every provider
 * converts from at its edge.
 */
export type AgentMessage =
  | { role: "user"; content: string | UserContentBlock[] }
  | { role: "assistant"; content: AssistantContentBlock[] };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function addUsage(total: Usage, more: Partial<Usage> | undefined): void {
  if (!more) return;
  total.input_tokens += more.input_tokens ?? 0;
  total.output_tokens += more.output_tokens ?? 0;
  total.cache_creation_input_tokens += more.cache_creation_input_tokens ?? 0;
  total.cache_read_input_tokens += more.cache_read_input_tokens ?? 0;
}

/** Why the model stopped (Anthropic's words; the OpenAI providers map theirs onto them). */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "pause_turn" | "refusal" | "stop_sequence";

/** One request to a model: the history in the Anthropic shape, tools as the session lists them. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly AgentMessage[];
  tools: readonly AnthropicToolDefinition[];
  maxTokens: number;
  /** How hard the model should think, where the provider has such a setting (Anthropic: `output_config.effort`). */
  effort?: ReasoningEffort;
  signal?: AbortSignal;
}

export type ReasoningEffort = "low" | "medium" | "high" | "xhigh" | "max";

/**
 * What a provider streams back. Blocks come complete, in content order: a `tool_use` block at
 * the moment its JSON is complete (Anthropic: its `content_block_stop`), so the loop can start it
 * while the model still talks. A stream that fails ends with one `error` event, never a throw.
 */
export type ModelEvent =
  | { type: "message_start"; id: string; model: string; usage: Usage }
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** A piece of a tool call's input JSON as it streams (Anthropic); the call still starts at its `block`. */
  | { type: "tool_input_delta"; id: string; name: string; partialJson: string }
  | {
      type: "block";
      block: AssistantContentBlock;
      /** A tool_use whose arguments were not one JSON object (its `input` is then `{}`): the raw text and the parse error. */
      malformed?: { raw: string; problem: string };
    }
  | { type: "message_end"; stopReason: StopReason; usage: Usage }
  | {
      type: "error";
      message: string;
      status?: number;
      /** A deadline ended the request: no headers in time, or the stream went silent (retried like an overloaded server). */
      timeout?: "headers" | "idle";
      /** A failed HTTP request: the message and type of the API's error body. */
      apiError?: { message: string; type?: string };
    };

export interface ModelProvider {
  /** `anthropic`, `openai` or `openai-responses`. */
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export interface ProviderOptions {
  apiKey?: string;
  baseURL?: string;
  /** Retries of a failed request (429, 529, 5xx, connection errors), with the SDK's backoff. Default 2. */
  maxRetries?: number;
  /** Told of each retry as the SDK decides it (stream-json's `system/api_retry`). */
  onRetry?: (retry: ApiRetry) => void;
  /** Per-request timeout in ms (SDK default when not given). */
  timeoutMs?: number;
  /** Wait for a response's headers, connection included (default 60,000 ms; `ARMATURE_HEADERS_TIMEOUT_MS`). */
  headersTimeoutMs?: number;
  /** Wait between two events of a stream (default 90,000 ms; `ARMATURE_STREAM_IDLE_TIMEOUT_MS`). */
  streamIdleTimeoutMs?: number;
  /** Extra fields merged into every request body (e.g. `thinking`, `temperature`). */
  extraBody?: Record<string, unknown>;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
}

/** The parse of a streamed tool-argument string: an object, or the reason it is not one. */
export function parseToolArguments(raw: string): { input: Record<string, unknown> } | { raw: string; problem: string } {
  if (raw.trim() === "") return { input: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { input: value as Record<string, unknown> };
    return { raw, problem: "arguments must be a JSON object" };
  } catch (err) {
    return { raw, problem: err instanceof Error ? err.message : String(err) };
  }
}

/** A streamed tool call as a block event (malformed arguments leave `input` empty and say why). */
export function toolUseEvent(id: string, name: string, raw: string): Extract<ModelEvent, { type: "block" }> {
  const parsed = parseToolArguments(raw);
  if ("input" in parsed) return { type: "block", block: { type: "tool_use", id, name, input: parsed.input } };
  return { type: "block", block: { type: "tool_use", id, name, input: {} }, malformed: parsed };
}

/** An SDK error as an `error` event's fields. */
export function errorFields(err: unknown): { message: string; status?: number } {
  const status = (err as { status?: unknown }).status;
  const message = err instanceof Error ? err.message : String(err);
  return typeof status === "number" ? { message, status } : { message };
}

/** Image result blocks as a `data:` URL (what the OpenAI APIs take). */
export function imageDataUrl(block: ImageBlock): string {
  return `data:${block.source.media_type};base64,${block.source.data}`;
}
