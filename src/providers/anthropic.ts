import type { AnthropicToolDefinition } from "../registry/definitions.js";
import {
  emptyUsage,
  toolUseEvent,
  type AgentMessage,
  type AssistantContentBlock,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ProviderOptions,
  type StopReason,
  type Usage,
} from "./model.js";
import { activityCountingFetch, serverName, StreamDeadline, streamErrorFields } from "./stream-deadline.js";
import { retryObservingFetch } from "./retry-observer.js";

const EPHEMERAL = { type: "ephemeral" } as const;

type Json = Record<string, unknown>;

/** The body of a streaming Messages request, with prompt caching placed as the reference agent places it. */
export function anthropicRequestBody(request: ModelRequest, extraBody: Json = {}): Json {
  const body: Json = {
    model: request.model,
    messages: withLastBreakpoint(request.messages),
    max_tokens: request.maxTokens,
    ...extraBody,
    ...(request.effort !== undefined ? { output_config: { ...(extraBody.output_config as Json | undefined), effort: request.effort } } : {}),
    stream: true,
  };
  // cache_control on the system blocks; none on the tools.
  if (request.system !== "") body.system = [{ type: "text", text: request.system, cache_control: EPHEMERAL }];
  const tools = anthropicTools(request.tools);
  if (tools.length > 0) body.tools = tools;
  return body;
}

/** The beta the API needs for `defer_loading` tools and `tool_reference` results. */
export const TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20";

/** Tools as sent (the session leaves out deferred tools not loaded yet; loaded ones carry `defer_loading`). */
function anthropicTools(tools: readonly AnthropicToolDefinition[]): Json[] {
  return tools.map((t) => ({ ...t }));
}

/**
 * The messages with exactly one cache breakpoint: on the last block of the last message (a
 * string content becomes one text block to carry it). The history itself is not changed.
 */
export function withLastBreakpoint(messages: readonly AgentMessage[]): Json[] {
  // OpenAI reasoning items (a history begun with another provider) mean nothing to this API.
  const out = messages.map((m) => ({ role: m.role, content: m.role === "assistant" && m.content.some((b) => b.type === "reasoning_item") ? m.content.filter((b) => b.type !== "reasoning_item") : m.content }) as Json);
  const last = out[out.length - 1];
  if (!last) return out;
  const content = typeof last.content === "string" ? [{ type: "text", text: last.content }] : [...(last.content as Json[])];
  // Thinking blocks cannot carry a breakpoint: the last other block takes it.
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    content[i] = { ...block, cache_control: EPHEMERAL };
    break;
  }
  last.content = content;
  return out;
}

interface OpenBlock {
  type: string;
  text: string;
  json: string;
  signature: string;
  id: string;
  name: string;
  data: string;
}

type Raw = { type: string; [key: string]: unknown };

/** The one SDK call used, typed loosely: the body is built as plain JSON. */
interface StreamingClient {
  messages: { create(body: Json, options: Json): Promise<AsyncIterable<Raw>> };
}

/** Anthropic Messages through the official SDK, streaming. The SDK is loaded on first use. */
export class AnthropicProvider implements ModelProvider {
  readonly name = "anthropic";
  private client: Promise<StreamingClient> | undefined;

  constructor(private readonly options: ProviderOptions = {}) {}

  private getClient(): Promise<StreamingClient> {
    this.client ??= import("@anthropic-ai/sdk").then(({ default: Anthropic }) => {
      const client = new Anthropic({
        apiKey: this.options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? null,
        baseURL: this.options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? null,
        maxRetries: this.options.maxRetries ?? 2,
        fetch: activityCountingFetch(this.options.onRetry ? retryObservingFetch(this.options.maxRetries ?? 2, this.options.onRetry) : undefined),
        ...(this.options.timeoutMs !== undefined ? { timeout: this.options.timeoutMs } : {}),
        ...(this.options.headers ? { defaultHeaders: this.options.headers } : {}),
      });
      return client as unknown as StreamingClient;
    });
    return this.client;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const blocks = new Map<number, OpenBlock>();
    const usage = emptyUsage();
    let stopReason: StopReason = "end_turn";
    let stopped = false;
    const server = serverName(this.options.baseURL ?? process.env.ANTHROPIC_BASE_URL, "https://api.anthropic.com");
    const deadline = new StreamDeadline(server, this.options, request.signal);
    try {
      const client = await this.getClient();
      // Deferred tools (sent with defer_loading once ToolSearch loads them) need the tool-search beta.
      const deferred = request.tools.some((t) => t.defer_loading === true);
      const stream = await deadline.response(
        client.messages.create(anthropicRequestBody(request, this.options.extraBody), {
          signal: deadline.signal,
          headers: { ...deadline.headers, ...(deferred ? { "anthropic-beta": TOOL_SEARCH_BETA } : {}) },
        }),
      );
      for await (const event of deadline.events(stream)) {
        switch (event.type) {
          case "message_start": {
            const message = event.message as { id: string; model: string; usage?: Partial<Usage> };
            mergeUsage(usage, message.usage);
            yield { type: "message_start", id: message.id, model: message.model, usage: { ...usage } };
            break;
          }
          case "content_block_start":
            blocks.set(event.index as number, openBlock(event.content_block as Json));
            break;
          case "content_block_delta": {
            const block = blocks.get(event.index as number);
            const delta = event.delta as Json;
            if (!block) break;
            if (delta.type === "text_delta") {
              block.text += delta.text as string;
              yield { type: "text_delta", text: delta.text as string };
            } else if (delta.type === "input_json_delta") {
              block.json += delta.partial_json as string;
              if (block.type === "tool_use") yield { type: "tool_input_delta", id: block.id, name: block.name, partialJson: delta.partial_json as string };
            } else if (delta.type === "thinking_delta") {
              block.text += delta.thinking as string;
              yield { type: "thinking_delta", text: delta.thinking as string };
            } else if (delta.type === "signature_delta") {
              block.signature += delta.signature as string;
            }
            break;
          }
          case "content_block_stop": {
            const block = blocks.get(event.index as number);
            blocks.delete(event.index as number);
            const done = block && closeBlock(block);
            if (done) yield done;
            break;
          }
          case "message_delta": {
            const delta = event.delta as { stop_reason?: StopReason | null };
            if (delta.stop_reason) stopReason = delta.stop_reason;
            mergeUsage(usage, event.usage as Partial<Usage> | undefined);
            break;
          }
          case "message_stop":
            stopped = true;
            break;
          case "error": {
            const error = event.error as { message?: string; type?: string } | undefined;
            yield { type: "error", message: `the API sent an error event: ${error?.type ?? ""} ${error?.message ?? ""}`.trim() };
            return;
          }
          default:
            break;
        }
      }
    } catch (err) {
      yield { type: "error", ...streamErrorFields(deadline.failure(err), server) };
      return;
    } finally {
      deadline.close();
    }
    // The SDKs end a stream quietly when its signal aborts: a deadline that fired is the error.
    if (deadline.timedOut) {
      yield { type: "error", ...streamErrorFields(deadline.timedOut, server) };
      return;
    }
    if (!stopped) {
      yield { type: "error", message: `the model server ${server} ended the stream before the message was complete (no message_stop)` };
      return;
    }
    yield { type: "message_end", stopReason, usage };
  }
}

function openBlock(start: Json): OpenBlock {
  const block: OpenBlock = { type: String(start.type), text: "", json: "", signature: "", id: "", name: "", data: "" };
  if (typeof start.text === "string") block.text = start.text;
  if (typeof start.thinking === "string") block.text = start.thinking;
  if (typeof start.signature === "string") block.signature = start.signature;
  if (typeof start.id === "string") block.id = start.id;
  if (typeof start.name === "string") block.name = start.name;
  if (typeof start.data === "string") block.data = start.data;
  // A tool_use start may carry its whole input already (never seen streamed, but legal).
  if (start.type === "tool_use" && start.input && typeof start.input === "object" && Object.keys(start.input).length > 0) {
    block.json = JSON.stringify(start.input);
  }
  return block;
}

function closeBlock(block: OpenBlock): Extract<ModelEvent, { type: "block" }> | undefined {
  let done: AssistantContentBlock;
  switch (block.type) {
    case "text":
      done = { type: "text", text: block.text };
      break;
    case "thinking":
      done = { type: "thinking", thinking: block.text, signature: block.signature };
      break;
    case "redacted_thinking":
      done = { type: "redacted_thinking", data: block.data };
      break;
    case "tool_use":
      return toolUseEvent(block.id, block.name, block.json);
    default:
      return undefined; // server tools and other kinds are not part of this loop's history
  }
  return { type: "block", block: done };
}

/** message_start carries input and cache figures; message_delta carries the cumulative output count. */
function mergeUsage(usage: Usage, more: Partial<Usage> | null | undefined): void {
  if (!more) return;
  if (typeof more.input_tokens === "number") usage.input_tokens = more.input_tokens;
  if (typeof more.output_tokens === "number") usage.output_tokens = more.output_tokens;
  if (typeof more.cache_creation_input_tokens === "number") usage.cache_creation_input_tokens = more.cache_creation_input_tokens;
  if (typeof more.cache_read_input_tokens === "number") usage.cache_read_input_tokens = more.cache_read_input_tokens;
}
