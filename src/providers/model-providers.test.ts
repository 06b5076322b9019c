import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicReply,
  apiError,
  chatReply,
  responsesReply,
  startMockModelServer,
  type MockModelServer,
} from "../../test/mock-model-server.js";
import { AnthropicProvider } from "./anthropic.js";
import type { ModelEvent, ModelProvider, ModelRequest } from "./model.js";
import { OpenAIChatProvider } from "./openai-chat.js";
import { OpenAIResponsesProvider } from "./openai-responses.js";
import { resolveProviderConfig } from "./create-provider.js";

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const readTool = { name: "Read", description: "Reads a file.", input_schema: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] } };

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "m", system: "You are a test.", messages: [{ role: "user", content: "hi" }], tools: [readTool], maxTokens: 1000, ...extra };
}

async function collect(provider: ModelProvider, req: ModelRequest = request()): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const e of provider.stream(req)) events.push(e);
  return events;
}

const blocksOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "block" ? [e] : []));

describe("Anthropic provider (real SDK, scripted SSE on 127.0.0.1)", () => {
  const anthropic = (maxRetries = 2) => new AnthropicProvider({ baseURL: server!.url, apiKey: "test-key", maxRetries });

  it("assembles split JSON deltas per block, keeps thinking and redacted_thinking exactly, reports usage and the stop reason", async () => {
    server = await startMockModelServer([
      anthropicReply(
        [
          { type: "thinking", thinking: "Let me look at the file first.", signature: "sig-AAA==" },
          { type: "text", text: "Reading both." },
          { type: "redacted_thinking", data: "opaque-bytes" },
          { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a/b.txt" } },
          { type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "/c \"quoted\" ü.txt" } },
        ],
        { deltaPieces: 5, usage: { input_tokens: 120, output_tokens: 33, cache_read_input_tokens: 7 } },
      ),
    ]);
    const events = await collect(anthropic());
    expect(blocksOf(events).map((e) => e.block)).toEqual([
      { type: "thinking", thinking: "Let me look at the file first.", signature: "sig-AAA==" },
      { type: "text", text: "Reading both." },
      { type: "redacted_thinking", data: "opaque-bytes" },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a/b.txt" } },
      { type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "/c \"quoted\" ü.txt" } },
    ]);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text).join("")).toBe("Reading both.");
    const end = events.at(-1)!;
    expect(end).toEqual({ type: "message_end", stopReason: "tool_use", usage: { input_tokens: 120, output_tokens: 33, cache_creation_input_tokens: 0, cache_read_input_tokens: 7 } });
    // The request: streaming, system with a breakpoint, exactly one breakpoint in the messages, tools without one.
    const body = server.requests[0]!.body;
    expect(server.requests[0]!.url).toBe("/v1/messages");
    expect(body.stream).toBe(true);
    expect(body.system).toEqual([{ type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } }]);
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }]);
    expect(body.tools).toEqual([readTool]);
  });

  it("retries a 429 and a 529 with the SDK's backoff, then streams", async () => {
    server = await startMockModelServer([apiError(429), apiError(529), anthropicReply([{ type: "text", text: "ok" }])]);
    const events = await collect(anthropic(3));
    expect(server.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: "message_end", stopReason: "end_turn" });
  });

  it("a request that keeps failing ends in one error event with the status", async () => {
    server = await startMockModelServer([apiError(429), apiError(429)]);
    const events = await collect(anthropic(1));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", status: 429 });
  });

  it("a stream cut mid-way is a clean error event, not a hang and not a message_end", async () => {
    server = await startMockModelServer([
      anthropicReply([{ type: "text", text: "partial answer" }, { type: "tool_use", id: "t", name: "Read", input: { file_path: "/x" } }], { cutAfterEvents: 6 }),
    ]);
    const events = await collect(anthropic(0));
    expect(events.at(-1)!.type).toBe("error");
    expect(events.some((e) => e.type === "message_end")).toBe(false);
  });

  it("max_tokens inside a tool call: the block comes out malformed with the raw text", async () => {
    server = await startMockModelServer([
      anthropicReply([{ type: "tool_use", id: "t1", name: "Read", rawJson: '{"file_path": "/very/lo' }], { stopReason: "max_tokens" }),
    ]);
    const events = await collect(anthropic());
    const [block] = blocksOf(events);
    expect(block!.block).toEqual({ type: "tool_use", id: "t1", name: "Read", input: {} });
    expect(block!.malformed?.raw).toBe('{"file_path": "/very/lo');
    expect(events.at(-1)).toMatchObject({ type: "message_end", stopReason: "max_tokens" });
  });

  it("an aborted request ends in an error event", async () => {
    server = await startMockModelServer([{ ...anthropicReply([{ type: "text", text: "never ends" }], { noStop: true }), hang: true }]);
    const controller = new AbortController();
    const provider = anthropic(0);
    const events: ModelEvent[] = [];
    for await (const e of provider.stream(request({ signal: controller.signal }))) {
      events.push(e);
      if (e.type === "block") controller.abort();
    }
    expect(events.at(-1)!.type).toBe("error");
  });
});

describe("OpenAI Chat Completions provider (real SDK)", () => {
  it("assembles tool_call deltas by index (parallel calls), sends parallel_tool_calls, maps usage and finish_reason", async () => {
    server = await startMockModelServer([
      chatReply({
        text: "Two reads.",
        toolCalls: [
          { id: "call_a", name: "Read", arguments: '{"file_path":"/a"}' },
          { id: "call_b", name: "Read", arguments: '{"file_path":"/b"}' },
        ],
        usage: { prompt_tokens: 70, completion_tokens: 9 },
      }),
    ]);
    const provider = new OpenAIChatProvider({ baseURL: `${server.url}/v1`, apiKey: "k" });
    const events = await collect(provider);
    expect(blocksOf(events).map((e) => e.block)).toEqual([
      { type: "text", text: "Two reads." },
      { type: "tool_use", id: "call_a", name: "Read", input: { file_path: "/a" } },
      { type: "tool_use", id: "call_b", name: "Read", input: { file_path: "/b" } },
    ]);
    expect(events.at(-1)).toEqual({ type: "message_end", stopReason: "tool_use", usage: { input_tokens: 70, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
    const body = server.requests[0]!.body;
    expect(server.requests[0]!.url).toBe("/v1/chat/completions");
    expect(body).toMatchObject({ parallel_tool_calls: true, stream: true, tools: [{ type: "function", function: { name: "Read", parameters: readTool.input_schema } }] });
    expect(body.messages).toEqual([{ role: "system", content: "You are a test." }, { role: "user", content: "hi" }]);
  });

  it("sends results back as role:tool messages, images as a following user message", async () => {
    server = await startMockModelServer([chatReply({ text: "done" })]);
    const provider = new OpenAIChatProvider({ baseURL: server.url, apiKey: "k" });
    await collect(provider, request({
      messages: [
        { role: "user", content: "look" },
        { role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "s" }, { type: "tool_use", id: "c1", name: "Read", input: { file_path: "/p.png" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "an image" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] },
      ],
    }));
    expect((server.requests[0]!.body.messages as unknown[]).slice(2)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "Read", arguments: '{"file_path":"/p.png"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "an image\n[image image/png attached below]" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    ]);
  });

  it("finish_reason length inside a call: malformed block and max_tokens; a cut stream: an error event", async () => {
    server = await startMockModelServer([
      chatReply({ toolCalls: [{ id: "c", name: "Read", arguments: '{"file_pa' }], finishReason: "length" }),
      chatReply({ text: "abc", cutAfterEvents: 2 }),
    ]);
    const provider = new OpenAIChatProvider({ baseURL: server.url, apiKey: "k", maxRetries: 0 });
    const first = await collect(provider);
    expect(blocksOf(first)[0]!.malformed?.raw).toBe('{"file_pa');
    expect(first.at(-1)).toMatchObject({ type: "message_end", stopReason: "max_tokens" });
    const second = await collect(provider);
    expect(second.at(-1)!.type).toBe("error");
  });

  it("retries a 429 then succeeds", async () => {
    server = await startMockModelServer([apiError(429), chatReply({ text: "ok" })]);
    const events = await collect(new OpenAIChatProvider({ baseURL: server.url, apiKey: "k" }));
    expect(server.requests).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "message_end", stopReason: "end_turn" });
  });
});

describe("OpenAI Responses provider (real SDK)", () => {
  it("function_call items by call_id; results as function_call_output with input_image", async () => {
    server = await startMockModelServer([
      responsesReply({ text: "Reading.", calls: [{ callId: "call_1", name: "Read", arguments: '{"file_path":"/a"}' }, { callId: "call_2", name: "Read", arguments: '{"file_path":"/b"}' }] }),
    ]);
    const provider = new OpenAIResponsesProvider({ baseURL: server.url, apiKey: "k" });
    const events = await collect(provider, request({
      messages: [
        { role: "user", content: "look" },
        { role: "assistant", content: [{ type: "text", text: "ok" }, { type: "tool_use", id: "call_0", name: "Read", input: { file_path: "/p.png" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_0", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] },
      ],
    }));
    expect(blocksOf(events).map((e) => e.block)).toEqual([
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "call_1", name: "Read", input: { file_path: "/a" } },
      { type: "tool_use", id: "call_2", name: "Read", input: { file_path: "/b" } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "message_end", stopReason: "tool_use", usage: { input_tokens: 40, output_tokens: 4 } });
    const body = server.requests[0]!.body;
    expect(server.requests[0]!.url).toBe("/responses");
    expect(body).toMatchObject({ instructions: "You are a test.", parallel_tool_calls: true, tools: [{ type: "function", name: "Read" }] });
    expect(body.input).toEqual([
      { role: "user", content: "look" },
      { role: "assistant", content: "ok" },
      { type: "function_call", call_id: "call_0", name: "Read", arguments: '{"file_path":"/p.png"}' },
      { type: "function_call_output", call_id: "call_0", output: [{ type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" }] },
    ]);
  });

  it("an incomplete response cut in a call: malformed block, max_tokens; a cut stream: error", async () => {
    server = await startMockModelServer([
      responsesReply({ calls: [{ callId: "c", name: "Read", arguments: '{"file_' }], status: "incomplete" }),
      responsesReply({ text: "abc", cutAfterEvents: 3 }),
    ]);
    const provider = new OpenAIResponsesProvider({ baseURL: server.url, apiKey: "k", maxRetries: 0 });
    const first = await collect(provider);
    expect(blocksOf(first)[0]!.malformed?.raw).toBe('{"file_');
    expect(first.at(-1)).toMatchObject({ type: "message_end", stopReason: "max_tokens" });
    expect((await collect(provider)).at(-1)!.type).toBe("error");
  });
});

describe("resolveProviderConfig", () => {
  it("flag, then process env, then settings env, then the default", () => {
    expect(resolveProviderConfig({ provider: "openai", baseURL: "http://127.0.0.1:1/v1" }, { OPENAI_BASE_URL: "http://env" }, {})).toMatchObject({ provider: "openai", baseURL: "http://127.0.0.1:1/v1", model: "gpt-5" });
    expect(resolveProviderConfig({}, { ANTHROPIC_BASE_URL: "http://env", ANTHROPIC_MODEL: "m1" }, { ANTHROPIC_BASE_URL: "http://settings", ANTHROPIC_API_KEY: "sk" })).toEqual({ provider: "anthropic", model: "m1", baseURL: "http://env", apiKey: "sk" });
    expect(() => resolveProviderConfig({ provider: "gemini" }, {}, {})).toThrow(/unknown provider "gemini"/);
  });
});
