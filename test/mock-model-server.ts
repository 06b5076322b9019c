// A scripted model server on 127.0.0.1 for the real SDKs: each request pops the next scripted
// response (or a function of the request builds it). Builders below write Anthropic Messages,
// OpenAI Chat Completions and OpenAI Responses SSE, with JSON deltas split across chunks.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A plain body (errors). */
  body?: string;
  /** SSE text, written chunk by chunk. */
  chunks?: string[];
  /** Close the connection after the chunks, without ending the response (a cut stream). */
  cut?: boolean;
  /** Wait this long between chunks (default 0: one event-loop turn). */
  chunkDelayMs?: number;
  /** Keep the response open (never end) after the chunks: for abort tests. */
  hang?: boolean;
}

export type Script = ScriptedResponse | ((request: RecordedRequest, index: number) => ScriptedResponse);

export interface MockModelServer {
  url: string;
  requests: RecordedRequest[];
  /** Adds responses to the end of the script. */
  push(...responses: Script[]): void;
  /** Scripted responses not yet used. */
  remaining(): number;
  close(): Promise<void>;
}

export async function startMockModelServer(script: Script[] = []): Promise<MockModelServer> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      } catch {
        body = {};
      }
      const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      const next = queue.shift();
      const response: ScriptedResponse =
        next === undefined
          ? { status: 500, body: JSON.stringify({ type: "error", error: { type: "api_error", message: "mock script exhausted" } }) }
          : typeof next === "function"
            ? next(recorded, requests.length - 1)
            : next;
      void respond(res, response, open);
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...r) => queue.push(...r),
    remaining: () => queue.length,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function respond(res: ServerResponse, r: ScriptedResponse, open: Set<ServerResponse>): Promise<void> {
  if (r.chunks === undefined) {
    res.writeHead(r.status ?? 200, { "content-type": "application/json", ...r.headers });
    res.end(r.body ?? "{}");
    return;
  }
  open.add(res);
  res.writeHead(r.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...r.headers });
  for (const chunk of r.chunks) {
    if (res.destroyed) return;
    res.write(chunk);
    await new Promise((resolve) => (r.chunkDelayMs ? setTimeout(resolve, r.chunkDelayMs) : setImmediate(resolve)));
  }
  if (r.cut) {
    res.socket?.destroy();
    return;
  }
  if (r.hang) return;
  open.delete(res);
  res.end();
}

/** SSE text split into chunks that cut lines (and JSON) in the middle, as networks do. */
export function splitChunks(text: string, pieces = 3): string[] {
  const out: string[] = [];
  for (const event of text.split(/(?<=\n\n)/)) {
    if (event === "") continue;
    const size = Math.max(1, Math.ceil(event.length / pieces));
    for (let i = 0; i < event.length; i += size) out.push(event.slice(i, i + size));
  }
  return out;
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/** Splits a string into `n` pieces (for streamed deltas). */
export function pieces(text: string, n: number): string[] {
  if (text === "") return [];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------------------------

export type AnthropicScriptBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  /** `rawJson` replaces the JSON of `input` (e.g. a cut-off document). */
  | { type: "tool_use"; id: string; name: string; input?: unknown; rawJson?: string };

export interface AnthropicReplyOptions {
  stopReason?: string;
  id?: string;
  model?: string;
  usage?: { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
  /** Pieces each JSON/text delta is split into (default 3). */
  deltaPieces?: number;
  /** Leave out message_delta and message_stop (a stream that ends early but cleanly). */
  noStop?: boolean;
  /** Stop after this many SSE events and cut the connection. */
  cutAfterEvents?: number;
  chunkDelayMs?: number;
}

let counter = 0;

export function anthropicReply(blocks: AnthropicScriptBlock[], options: AnthropicReplyOptions = {}): ScriptedResponse {
  const n = options.deltaPieces ?? 3;
  const usage = options.usage ?? { input_tokens: 100, output_tokens: 10 };
  const stop = options.stopReason ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  const events: string[] = [
    sse("message_start", {
      type: "message_start",
      message: {
        id: options.id ?? `msg_mock_${++counter}`,
        type: "message",
        role: "assistant",
        model: options.model ?? "claude-mock",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1, cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0, cache_read_input_tokens: usage.cache_read_input_tokens ?? 0 },
      },
    }),
  ];
  blocks.forEach((block, index) => {
    const delta = (d: Record<string, unknown>): void => {
      events.push(sse("content_block_delta", { type: "content_block_delta", index, delta: d }));
    };
    if (block.type === "text") {
      events.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      for (const p of pieces(block.text, n)) delta({ type: "text_delta", text: p });
    } else if (block.type === "thinking") {
      events.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
      for (const p of pieces(block.thinking, n)) delta({ type: "thinking_delta", thinking: p });
      delta({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "redacted_thinking") {
      events.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "redacted_thinking", data: block.data } }));
    } else {
      events.push(sse("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }));
      for (const p of pieces(block.rawJson ?? JSON.stringify(block.input ?? {}), n)) delta({ type: "input_json_delta", partial_json: p });
    }
    events.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  if (!options.noStop) {
    events.push(sse("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
    events.push(sse("message_stop", { type: "message_stop" }));
  }
  const cut = options.cutAfterEvents !== undefined;
  const used = cut ? events.slice(0, options.cutAfterEvents) : events;
  return { chunks: splitChunks(used.join("")), cut, chunkDelayMs: options.chunkDelayMs };
}

/** An HTTP error in the API's JSON shape (429 rate limit, 529 overloaded, 500). */
export function apiError(status: number, message = "mock error"): ScriptedResponse {
  return {
    status,
    headers: { "retry-after-ms": "5", "retry-after": "0" },
    body: JSON.stringify({ type: "error", error: { type: status === 429 ? "rate_limit_error" : "overloaded_error", message } }),
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions
// ---------------------------------------------------------------------------------------------

export interface ChatReplyOptions {
  text?: string;
  /** Sent as `delta.reasoning_content` before the text (DeepSeek's and vLLM's shape). */
  reasoningContent?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  deltaPieces?: number;
  cutAfterEvents?: number;
  /** Alternate the argument deltas of the calls. */
  interleave?: boolean;
}

export function chatReply(options: ChatReplyOptions): ScriptedResponse {
  const n = options.deltaPieces ?? 3;
  const id = `chatcmpl-mock-${++counter}`;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    sse(undefined, { id, object: "chat.completion.chunk", created: 1, model: "gpt-mock", choices: [{ index: 0, delta, finish_reason: finish }] });
  const events: string[] = [chunk({ role: "assistant", content: "" })];
  for (const p of pieces(options.reasoningContent ?? "", n)) events.push(chunk({ reasoning_content: p }));
  for (const p of pieces(options.text ?? "", n)) events.push(chunk({ content: p }));
  const calls = options.toolCalls ?? [];
  if (options.interleave) {
    // Deltas of several calls alternate (some servers do this): headers first, then pieces round-robin.
    calls.forEach((call, index) => events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] })));
    const split = calls.map((c) => pieces(c.arguments, n));
    for (let k = 0; k < n; k++) split.forEach((ps, index) => ps[k] !== undefined && events.push(chunk({ tool_calls: [{ index, function: { arguments: ps[k] } }] })));
  } else {
    calls.forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const p of pieces(call.arguments, n)) events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
  }
  const finish = options.finishReason ?? ((options.toolCalls ?? []).length > 0 ? "tool_calls" : "stop");
  events.push(chunk({}, finish));
  const usage = options.usage ?? { prompt_tokens: 50, completion_tokens: 5 };
  events.push(sse(undefined, { id, object: "chat.completion.chunk", created: 1, model: "gpt-mock", choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }));
  events.push("data: [DONE]\n\n");
  const cut = options.cutAfterEvents !== undefined;
  return { chunks: splitChunks((cut ? events.slice(0, options.cutAfterEvents) : events).join("")), cut };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses
// ---------------------------------------------------------------------------------------------

export interface ResponsesReplyOptions {
  text?: string;
  /** Reasoning output items, sent first (a reasoning model's shape; `encrypted` when not stored). */
  reasoning?: Array<{ id: string; summary?: string; encrypted?: string }>;
  calls?: Array<{ callId: string; name: string; arguments: string }>;
  /** `incomplete` with reason `max_output_tokens`: the last call is left without its done event. */
  status?: "completed" | "incomplete";
  usage?: { input_tokens: number; output_tokens: number };
  deltaPieces?: number;
  cutAfterEvents?: number;
}

export function responsesReply(options: ResponsesReplyOptions): ScriptedResponse {
  const n = options.deltaPieces ?? 3;
  const id = `resp_mock_${++counter}`;
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>): string => sse(type, { type, sequence_number: seq++, ...data });
  const status = options.status ?? "completed";
  const events: string[] = [ev("response.created", { response: { id, object: "response", model: "gpt-mock", status: "in_progress", output: [] } })];
  let outputIndex = 0;
  for (const r of options.reasoning ?? []) {
    const item = (status: string): Record<string, unknown> => ({
      id: r.id,
      type: "reasoning",
      status,
      summary: r.summary === undefined || status !== "completed" ? [] : [{ type: "summary_text", text: r.summary }],
      ...(r.encrypted !== undefined && status === "completed" ? { encrypted_content: r.encrypted } : {}),
    });
    events.push(ev("response.output_item.added", { output_index: outputIndex, item: item("in_progress") }));
    if (r.summary !== undefined) events.push(ev("response.reasoning_summary_text.delta", { item_id: r.id, output_index: outputIndex, summary_index: 0, delta: r.summary }));
    events.push(ev("response.output_item.done", { output_index: outputIndex, item: item("completed") }));
    outputIndex++;
  }
  if (options.text !== undefined) {
    const itemId = `msg_${id}`;
    events.push(ev("response.output_item.added", { output_index: outputIndex, item: { id: itemId, type: "message", role: "assistant", status: "in_progress", content: [] } }));
    for (const p of pieces(options.text, n)) events.push(ev("response.output_text.delta", { item_id: itemId, output_index: outputIndex, content_index: 0, delta: p }));
    events.push(ev("response.output_item.done", { output_index: outputIndex, item: { id: itemId, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: options.text, annotations: [] }] } }));
    outputIndex++;
  }
  const calls = options.calls ?? [];
  calls.forEach((call, i) => {
    const itemId = `fc_${call.callId}`;
    events.push(ev("response.output_item.added", { output_index: outputIndex, item: { id: itemId, type: "function_call", call_id: call.callId, name: call.name, arguments: "", status: "in_progress" } }));
    for (const p of pieces(call.arguments, n)) events.push(ev("response.function_call_arguments.delta", { item_id: itemId, output_index: outputIndex, delta: p }));
    const truncated = status === "incomplete" && i === calls.length - 1;
    if (!truncated) {
      events.push(ev("response.function_call_arguments.done", { item_id: itemId, output_index: outputIndex, arguments: call.arguments }));
      events.push(ev("response.output_item.done", { output_index: outputIndex, item: { id: itemId, type: "function_call", call_id: call.callId, name: call.name, arguments: call.arguments, status: "completed" } }));
    }
    outputIndex++;
  });
  const usage = options.usage ?? { input_tokens: 40, output_tokens: 4 };
  events.push(
    ev(status === "completed" ? "response.completed" : "response.incomplete", {
      response: {
        id,
        object: "response",
        model: "gpt-mock",
        status,
        incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
        output: [],
        usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
      },
    }),
  );
  const cut = options.cutAfterEvents !== undefined;
  return { chunks: splitChunks((cut ? events.slice(0, options.cutAfterEvents) : events).join("")), cut };
}
