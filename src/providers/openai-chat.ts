import { documentPlaceholder } from "../tools/read/read-pdf.js";
import type { AnthropicToolDefinition } from "../registry/definitions.js";
import type { ImageBlock, TextBlock, ToolResultBlock } from "../tool/types.js";
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

/** Tools as Chat Completions functions (the session leaves out deferred tools not loaded yet). */
export function chatTools(tools: readonly AnthropicToolDefinition[]): Json[] {
  return tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } }));
}

/**
 * The history as Chat Completions messages. Results go back as `role: "tool"` messages in
 * tool_use order; their images (tool messages take text only) follow in one user message as
 * `image_url` parts. Thinking blocks have no Chat equivalent and are left out.
 */
export function toChatMessages(system: string, messages: readonly AgentMessage[]): Json[] {
  const out: Json[] = system !== "" ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "assistant") {
      const text = message.content.filter((b): b is TextBlock => b.type === "text").map((b) => b.text).join("");
      const calls = message.content.flatMap((b) =>
        b.type === "tool_use" ? [{ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : [],
      );
      const m: Json = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
      if (calls.length > 0) m.tool_calls = calls;
      out.push(m);
      continue;
    }
    if (typeof message.content === "string") {
      out.push({ role: "user", content: message.content });
      continue;
    }
    const parts: Json[] = [];
    for (const block of message.content) {
      if (block.type === "tool_result") {
        const { text, images } = splitResult(block);
        out.push({ role: "tool", tool_call_id: block.tool_use_id, content: text });
        for (const image of images) parts.push({ type: "image_url", image_url: { url: imageDataUrl(image) } });
      } else if (block.type === "text") {
        parts.push({ type: "text", text: block.text });
      } else {
        parts.push({ type: "image_url", image_url: { url: imageDataUrl(block) } });
      }
    }
    if (parts.length > 0) out.push({ role: "user", content: parts });
  }
  return out;
}

function splitResult(block: ToolResultBlock): { text: string; images: ImageBlock[] } {
  if (typeof block.content === "string") return { text: block.content, images: [] };
  const images = block.content.filter((b): b is ImageBlock => b.type === "image");
  const text = block.content
    .map((b) => (b.type === "image" ? `[image ${b.source.media_type} attached below]` : b.type === "text" ? b.text : b.type === "document" ? documentPlaceholder(b) : `Tool loaded: ${b.tool_name} (its schema is in your tool list now; call it directly)`))
    .join("\n");
  return { text, images };
}

const FINISH: Record<string, StopReason> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

interface OpenCall {
  id: string;
  name: string;
  args: string;
}

/**
 * OpenAI Chat Completions through the official SDK, streaming, with `baseURL` for any
 * compatible server. Tool-call deltas are assembled by index; a call is complete when a later
 * index starts or the choice finishes.
 */
export class OpenAIChatProvider implements ModelProvider {
  readonly name = "openai";
  private client: Promise<OpenAIClient> | undefined;
  /** The server rejected `parallel_tool_calls` once: it is no longer sent. */
  private omitParallel = false;

  constructor(
    private readonly options: ProviderOptions & { parallelToolCalls?: boolean } = {},
  ) {}

  requestBody(request: ModelRequest): Json {
    const body: Json = {
      model: request.model,
      messages: toChatMessages(request.system, request.messages),
      max_completion_tokens: request.maxTokens,
      stream: true,
      stream_options: { include_usage: true },
      ...this.options.extraBody,
    };
    const tools = chatTools(request.tools);
    if (tools.length > 0) {
      body.tools = tools;
      if (!this.omitParallel) body.parallel_tool_calls = this.options.parallelToolCalls ?? true;
    }
    return body;
  }

  /**
   * The request; a server that rejects `parallel_tool_calls` (400 naming it: some compatible
   * servers) is asked again without it, and this provider stops sending it.
   */
  private async create(client: OpenAIClient, request: ModelRequest, deadline: StreamDeadline): Promise<AsyncIterable<Json>> {
    const options = { signal: deadline.signal, headers: deadline.headers };
    try {
      return await client.chat.completions.create(this.requestBody(request), options);
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (status !== 400 || this.omitParallel || !/parallel_tool_calls/i.test(err instanceof Error ? err.message : String(err))) throw err;
      this.omitParallel = true;
      return await client.chat.completions.create(this.requestBody(request), options);
    }
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const usage = emptyUsage();
    const calls: OpenCall[] = [];
    let emitted = 0;
    let text = "";
    let textDone = false;
    let finish: string | undefined;
    let started = false;
    // Ids a server left out, or reused from an earlier turn (some compatible servers number
    // calls from 0 in every reply), are made unique in the history, which must not repeat them.
    const used = new Set<string>();
    for (const m of request.messages) if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use") used.add(b.id);
    const uniqueId = (id: string, index: number): string => {
      let unique = id !== "" ? id : `call_${index}`;
      for (let n = 2; used.has(unique); n++) unique = `${id !== "" ? id : `call_${index}`}_${n}`;
      used.add(unique);
      return unique;
    };
    const flushText = function* (): Generator<ModelEvent> {
      if (!textDone && text !== "") yield { type: "block", block: { type: "text", text } };
      textDone = true;
    };
    // Early (a later index started): only calls whose arguments already parse, in order; a
    // server that interleaves deltas of several calls keeps the rest open until the finish.
    const flushCalls = function* (upTo: number, early: boolean): Generator<ModelEvent> {
      for (; emitted < upTo; emitted++) {
        const call = calls[emitted];
        if (!call) continue;
        const event = toolUseEvent(call.id, call.name, call.args);
        if (early && (event.malformed || call.args.trim() === "")) return;
        (event.block as { id: string }).id = uniqueId(call.id, emitted);
        yield event;
      }
    };
    const server = serverName(this.options.baseURL ?? process.env.OPENAI_BASE_URL, "https://api.openai.com");
    const deadline = new StreamDeadline(server, this.options, request.signal);
    try {
      this.client ??= loadOpenAIClient(this.options);
      const client = await this.client;
      const stream = await deadline.response(this.create(client, request, deadline));
      for await (const chunk of deadline.events(stream)) {
        if (!started) {
          started = true;
          yield { type: "message_start", id: String(chunk.id ?? ""), model: String(chunk.model ?? request.model), usage: emptyUsage() };
        }
        const u = chunk.usage as { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | null | undefined;
        if (u) {
          usage.input_tokens = u.prompt_tokens ?? 0;
          usage.output_tokens = u.completion_tokens ?? 0;
          usage.cache_read_input_tokens = u.prompt_tokens_details?.cached_tokens ?? 0;
        }
        const choice = (chunk.choices as Json[] | undefined)?.[0];
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as {
          content?: string | null;
          reasoning_content?: string | null;
          reasoning?: string | null;
          tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
        };
        // Reasoning text some compatible servers add (DeepSeek, vLLM, llama.cpp): shown as thinking,
        // not kept. Chat Completions requests have no field for it, and DeepSeek rejects it in input.
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === "string" && reasoning !== "") yield { type: "thinking_delta", text: reasoning };
        if (typeof delta.content === "string" && delta.content !== "") {
          text += delta.content;
          yield { type: "text_delta", text: delta.content };
        }
        for (const d of delta.tool_calls ?? []) {
          const index = d.index ?? calls.length;
          yield* flushText();
          if (index > emitted) yield* flushCalls(index, true); // earlier calls are complete
          const call = (calls[index] ??= { id: "", name: "", args: "" });
          if (d.id) call.id = d.id;
          if (d.function?.name) call.name += d.function.name;
          if (d.function?.arguments) call.args += d.function.arguments;
        }
        if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
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
    // Some compatible servers end a complete stream without a finish_reason: the reply is taken
    // as it stands (calls: tool_use, else end_turn). A stream with no chunk at all is an error.
    if (finish === undefined && !started) {
      yield { type: "error", message: `the model server ${server} ended the stream before the reply was complete (no chunk, no finish_reason)` };
      return;
    }
    finish ??= "stop";
    yield* flushText();
    yield* flushCalls(calls.length, false);
    const stopReason = FINISH[finish] ?? "end_turn";
    yield { type: "message_end", stopReason: stopReason === "end_turn" && calls.length > 0 ? "tool_use" : stopReason, usage };
  }
}
