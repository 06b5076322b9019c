import { documentPlaceholder } from "../tools/read/read-pdf.js";
import { toolResultText } from "./openai.js";
import type { AnthropicToolDefinition } from "../registry/definitions.js";
import type { ToolResultBlock } from "../tool/types.js";
import {
  emptyUsage,
  imageDataUrl,
  toolUseEvent,
  type AgentMessage,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ProviderOptions,
  type StopReason,
} from "./model.js";
import { loadOpenAIClient, type OpenAIClient } from "./openai-client.js";
import { serverName, StreamDeadline, streamErrorFields } from "./stream-deadline.js";

type Json = Record<string, unknown>;

export function responsesTools(tools: readonly AnthropicToolDefinition[]): Json[] {
  return tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.input_schema, strict: false }));
}

/**
 * The history as Responses input items: tool_use blocks become `function_call` items and
 * results `function_call_output` items (same `call_id`), whose images go as `input_image`.
 */
export function toResponsesInput(messages: readonly AgentMessage[]): Json[] {
  const items: Json[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      // In the reply's order: reasoning items must precede the calls they led to.
      let text = "";
      const flush = (): void => {
        if (text !== "") items.push({ role: "assistant", content: text });
        text = "";
      };
      for (const b of message.content) {
        if (b.type === "text") {
          text += b.text;
          continue;
        }
        if (b.type === "reasoning_item") {
          flush();
          items.push(b.item);
        } else if (b.type === "tool_use") {
          flush();
          items.push({ type: "function_call", call_id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
        }
      }
      flush();
      continue;
    }
    if (typeof message.content === "string") {
      items.push({ role: "user", content: message.content });
      continue;
    }
    const parts: Json[] = [];
    for (const block of message.content) {
      if (block.type === "tool_result") items.push({ type: "function_call_output", call_id: block.tool_use_id, output: resultOutput(block) });
      else if (block.type === "text") parts.push({ type: "input_text", text: block.text });
      else parts.push({ type: "input_image", image_url: imageDataUrl(block), detail: "auto" });
    }
    if (parts.length > 0) items.push({ role: "user", content: parts });
  }
  return items;
}

function resultOutput(block: ToolResultBlock): string | Json[] {
  if (typeof block.content === "string") return block.content;
  if (!block.content.some((b) => b.type === "image")) return toolResultText(block);
  return block.content.map((b) =>
    b.type === "image"
      ? { type: "input_image", image_url: imageDataUrl(b), detail: "auto" }
      : { type: "input_text", text: b.type === "text" ? b.text : b.type === "document" ? documentPlaceholder(b) : `Tool loaded: ${b.tool_name}` },
  );
}

/** A reasoning output item as input: its fields as received, without the output-only `status`. */
function reasoningInput(item: Json): Json {
  const { status: _status, ...rest } = item;
  return rest;
}

interface OpenCall {
  callId: string;
  name: string;
  args: string;
  done: boolean;
}

/** OpenAI Responses API through the official SDK, streaming (`function_call` items, `call_id`). */
export class OpenAIResponsesProvider implements ModelProvider {
  readonly name = "openai-responses";
  private client: Promise<OpenAIClient> | undefined;

  constructor(private readonly options: ProviderOptions & { parallelToolCalls?: boolean } = {}) {}

  /** Whether requests store responses server-side (`store`, false unless extraBody says otherwise). */
  private get storing(): boolean {
    return this.options.extraBody?.store === true;
  }

  requestBody(request: ModelRequest): Json {
    const body: Json = {
      model: request.model,
      input: toResponsesInput(request.messages),
      max_output_tokens: request.maxTokens,
      stream: true,
      store: false,
      ...this.options.extraBody,
    };
    if (request.system !== "") body.instructions = request.system;
    // Not stored: the reasoning items come back only if asked for with their encrypted content.
    if (!this.storing) {
      const include = Array.isArray(body.include) ? (body.include as unknown[]) : [];
      if (!include.includes("reasoning.encrypted_content")) body.include = [...include, "reasoning.encrypted_content"];
    }
    const tools = responsesTools(request.tools);
    if (tools.length > 0) {
      body.tools = tools;
      body.parallel_tool_calls = this.options.parallelToolCalls ?? true;
    }
    return body;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const usage = emptyUsage();
    const calls = new Map<string, OpenCall>();
    let end: { status: string; reason?: string } | undefined;
    let sawCall = false;
    const server = serverName(this.options.baseURL ?? process.env.OPENAI_BASE_URL, "https://api.openai.com");
    const deadline = new StreamDeadline(server, this.options, request.signal);
    try {
      this.client ??= loadOpenAIClient(this.options);
      const client = await this.client;
      const stream = await deadline.response(client.responses.create(this.requestBody(request), { signal: deadline.signal, headers: deadline.headers }));
      for await (const event of deadline.events(stream)) {
        const item = event.item as Json | undefined;
        switch (event.type) {
          case "response.created": {
            const r = event.response as Json;
            yield { type: "message_start", id: String(r.id ?? ""), model: String(r.model ?? request.model), usage: emptyUsage() };
            break;
          }
          case "response.reasoning_summary_text.delta":
            yield { type: "thinking_delta", text: String(event.delta ?? "") };
            break;
          case "response.output_text.delta":
            yield { type: "text_delta", text: String(event.delta ?? "") };
            break;
          case "response.output_item.added":
            if (item?.type === "function_call") {
              calls.set(String(item.id ?? item.call_id), { callId: String(item.call_id ?? ""), name: String(item.name ?? ""), args: String(item.arguments ?? ""), done: false });
            }
            break;
          case "response.function_call_arguments.delta": {
            const call = calls.get(String(event.item_id));
            if (call) call.args += String(event.delta ?? "");
            break;
          }
          case "response.output_item.done":
            if (item?.type === "reasoning") {
              yield { type: "block", block: { type: "reasoning_item", item: reasoningInput(item) } };
            } else if (item?.type === "message") {
              const text = ((item.content as Json[] | undefined) ?? []).map((c) => (c.type === "output_text" ? String(c.text) : "")).join("");
              if (text !== "") yield { type: "block", block: { type: "text", text } };
            } else if (item?.type === "function_call") {
              const open = calls.get(String(item.id ?? item.call_id));
              if (open) open.done = true;
              sawCall = true;
              yield toolUseEvent(String(item.call_id), String(item.name), String(item.arguments ?? ""));
            }
            break;
          case "response.completed":
          case "response.incomplete": {
            const r = event.response as { status?: string; incomplete_details?: { reason?: string } | null; usage?: Json | null };
            const u = r.usage as { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } } | null | undefined;
            usage.input_tokens = u?.input_tokens ?? 0;
            usage.output_tokens = u?.output_tokens ?? 0;
            usage.cache_read_input_tokens = u?.input_tokens_details?.cached_tokens ?? 0;
            end = { status: r.status ?? (event.type === "response.completed" ? "completed" : "incomplete"), reason: r.incomplete_details?.reason };
            break;
          }
          case "response.failed": {
            const r = event.response as { error?: { message?: string } | null };
            yield { type: "error", message: `the response failed: ${r.error?.message ?? "no reason given"}` };
            return;
          }
          case "error":
            yield { type: "error", message: `the API sent an error event: ${String(event.message ?? event.code ?? "")}` };
            return;
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
    if (!end) {
      yield { type: "error", message: `the model server ${server} ended the stream before the response was complete (no response.completed)` };
      return;
    }
    // Calls cut off by the output limit: their arguments are partial, so they come out malformed.
    for (const call of calls.values()) {
      if (!call.done) {
        sawCall = true;
        yield toolUseEvent(call.callId, call.name, call.args);
      }
    }
    let stopReason: StopReason = sawCall ? "tool_use" : "end_turn";
    if (end.status === "incomplete") stopReason = end.reason === "content_filter" ? "refusal" : "max_tokens";
    yield { type: "message_end", stopReason, usage };
  }
}
