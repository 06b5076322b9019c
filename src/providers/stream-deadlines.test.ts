// Model streams have deadlines (issues 24, 27): real servers on 127.0.0.1 that accept and say
// nothing, start a stream and stall, or send garbage. Each ends with an error naming the server,
// the phase and the setting — never a hang, never an empty successful reply.
import { createServer as createHttpServer, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { runAgent } from "../agent/run-agent.js";
import { loadConversation } from "../agent/transcript.js";
import type { AgentEvent, AgentResult } from "../agent/types.js";
import { createSession } from "../session/session.js";
import { AnthropicProvider } from "./anthropic.js";
import { resolveProviderConfig } from "./create-provider.js";
import type { ModelEvent, ModelProvider, ProviderOptions } from "./model.js";
import { OpenAIChatProvider } from "./openai-chat.js";
import { OpenAIResponsesProvider } from "./openai-responses.js";

interface Stall {
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** Accepts TCP connections and never writes a byte. */
async function silentServer(): Promise<Stall> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createTcpServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.resume(); // read the request, answer nothing
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stall: Stall = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  closers.push(stall.close);
  return stall;
}

/** Answers every request with 200 and `head` (an event stream's start), then keeps it open, silent. */
async function httpServer(head: (url: string) => string, contentType = "text/event-stream", end = false): Promise<Stall> {
  const open = new Set<ServerResponse>();
  let count = 0;
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      count++;
      res.writeHead(200, { "content-type": contentType });
      res.write(head(req.url ?? ""));
      if (end) res.end();
      else open.add(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stall: Stall = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => count,
    close: async () => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  closers.push(stall.close);
  return stall;
}

const sse = (event: string | undefined, data: unknown): string => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
const anthropicStart = sse("message_start", {
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
}) + sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) + sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial" } });
const chatStart = sse(undefined, { id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "Partial" }, finish_reason: null }] });
const responsesStart = sse("response.created", { type: "response.created", response: { id: "resp_1", model: "m", status: "in_progress" } });

/** A server that writes `head`, then `ping` every `everyMs` ms, `pings` times, then `tail`, and ends. */
async function pingingServer(head: string, ping: string, tail: string, pings: number, everyMs: number): Promise<Stall> {
  let count = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      count++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(head);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent++ < pings) return void res.write(ping);
        clearInterval(timer);
        timers.delete(timer);
        res.end(tail);
      }, everyMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stall: Stall = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => count,
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  closers.push(stall.close);
  return stall;
}

const anthropicPing = sse("ping", { type: "ping" });
const anthropicEnd =
  sse("content_block_stop", { type: "content_block_stop", index: 0 }) +
  sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } }) +
  sse("message_stop", { type: "message_stop" });
/** What OpenAI-compatible servers send to keep a connection open: an SSE comment. */
const sseComment = ": keep-alive\n\n";
const chatEnd = sse(undefined, { id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) + "data: [DONE]\n\n";
const responsesEnd = sse("response.completed", { type: "response.completed", response: { id: "resp_1", model: "m", status: "completed", output: [], usage: { input_tokens: 1, output_tokens: 1 } } });

const FAST: ProviderOptions = { apiKey: "k", maxRetries: 0, headersTimeoutMs: 150, streamIdleTimeoutMs: 150 };
type Make = (baseURL: string, options?: ProviderOptions) => ModelProvider;
const PROVIDERS: Array<[string, Make, string, { ping: string; end: string }]> = [
  ["anthropic", (baseURL, o = FAST) => new AnthropicProvider({ ...o, baseURL }), anthropicStart, { ping: anthropicPing, end: anthropicEnd }],
  ["openai (chat)", (baseURL, o = FAST) => new OpenAIChatProvider({ ...o, baseURL }), chatStart, { ping: sseComment, end: chatEnd }],
  ["openai-responses", (baseURL, o = FAST) => new OpenAIResponsesProvider({ ...o, baseURL }), responsesStart, { ping: sseComment, end: responsesEnd }],
];

async function collect(provider: ModelProvider): Promise<{ events: ModelEvent[]; ms: number }> {
  const t0 = performance.now();
  const events: ModelEvent[] = [];
  for await (const e of provider.stream({ model: "m", system: "", messages: [{ role: "user", content: "hi" }], tools: [], maxTokens: 100 })) events.push(e);
  return { events, ms: performance.now() - t0 };
}

function lastError(events: ModelEvent[]): Extract<ModelEvent, { type: "error" }> {
  const last = events[events.length - 1];
  expect(last?.type).toBe("error");
  return last as Extract<ModelEvent, { type: "error" }>;
}

describe.each(PROVIDERS)("stream deadlines: %s", (_name, make, start, keepAlive) => {
  it("a stream that only sends keep-alive pings for 4 times the idle deadline, then ends: kept, and the message is whole", async () => {
    // Pings every 100 ms against a 600 ms deadline: the SDK swallows them, the bytes still count.
    const server = await pingingServer(start, keepAlive.ping, keepAlive.end, 24, 100);
    const { events } = await collect(make(server.url, { ...FAST, streamIdleTimeoutMs: 600 }));
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    expect(events.at(-1)?.type).toBe("message_end");
  });

  it("a server that accepts the connection and sends nothing: a headers timeout naming the server and the setting", async () => {
    const stall = await silentServer();
    const { events, ms } = await collect(make(stall.url));
    const error = lastError(events);
    expect(error.timeout).toBe("headers");
    expect(error.message).toContain(stall.url);
    expect(error.message).toContain("ARMATURE_HEADERS_TIMEOUT_MS");
    expect(error.message).toContain("phase: headers");
    expect(ms).toBeLessThan(10_000); // the SDK's first load included; without a deadline this never ends
    expect(events.some((e) => e.type === "message_end")).toBe(false);
  });

  it("a stream that starts and then stalls: an idle timeout naming the server and the setting", async () => {
    const stall = await httpServer(() => start);
    const { events } = await collect(make(stall.url));
    const error = lastError(events);
    expect(error.timeout).toBe("idle");
    expect(error.message).toContain(stall.url);
    expect(error.message).toContain("ARMATURE_STREAM_IDLE_TIMEOUT_MS");
    expect(events.some((e) => e.type === "message_end")).toBe(false);
  });

  it.each([
    ["data that is not JSON", "data: {this is not json\n\n"],
    ["lines that are not an event stream", "<html><body>502 Bad Gateway</body></html>\n\n"],
    ["an empty body", ""],
  ])("garbage (%s) is an error naming the server, never an empty successful reply", async (_what, body) => {
    const stall = await httpServer(() => body, "text/event-stream", true);
    const { events } = await collect(make(stall.url));
    const error = lastError(events);
    expect(error.message).toContain(stall.url);
    expect(error.timeout).toBeUndefined();
    expect(events.some((e) => e.type === "message_end")).toBe(false);
  });
});

async function drive(it: AsyncGenerator<AgentEvent, AgentResult>): Promise<{ events: AgentEvent[]; result: AgentResult }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await it.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

describe("runAgent on a stalled server", () => {
  it("retries a stall like an overloaded server, then fails with the server, the phase and the setting; the transcript resumes", async () => {
    await withTempDir(async (dir) => {
      const stall = await httpServer(() => anthropicStart);
      const session = createSession({ cwd: dir, tools: [], sessionDir: join(dir, "s") });
      const conversation = join(dir, "conversation.jsonl");
      const t0 = performance.now();
      const { events, result } = await drive(
        runAgent({ session, provider: new AnthropicProvider({ ...FAST, baseURL: stall.url }), model: "m", prompt: "hello", conversationPath: conversation }),
      );
      const ms = performance.now() - t0;
      await session.close();
      expect(result.is_error).toBe(true);
      expect(result.terminal_reason).toBe("model_error");
      expect(result.error).toMatch(/^model request failed \(after 2 retries\): the model server http:\/\/127\.0\.0\.1:\d+ sent nothing for 150 ms/);
      expect(result.error).toContain("ARMATURE_STREAM_IDLE_TIMEOUT_MS");
      expect(stall.connections()).toBe(3); // the first try and two retries
      const notices = events.flatMap((e) => (e.type === "notice" ? [e.text] : []));
      expect(notices.filter((t) => t.includes("retrying"))).toHaveLength(2);
      expect(notices[0]).toContain("after some output, which is discarded");
      // Bounded: three deadlines and the two backoffs (0.5 s + 1 s), not forever.
      expect(ms).toBeLessThan(6_000);
      // Nothing of the stalled reply entered the history; the saved conversation loads and ends with the prompt.
      expect(result.messages).toEqual([{ role: "user", content: "hello" }]);
      expect(await loadConversation(conversation)).toEqual([{ role: "user", content: "hello" }]);
    });
  });
});

describe("deadline settings", () => {
  it("come from the environment (or the settings' env); a bad value is an error naming the variable", () => {
    const config = resolveProviderConfig({}, { ARMATURE_HEADERS_TIMEOUT_MS: "5000" }, { ARMATURE_STREAM_IDLE_TIMEOUT_MS: "7000" });
    expect(config.headersTimeoutMs).toBe(5000);
    expect(config.streamIdleTimeoutMs).toBe(7000);
    expect(() => resolveProviderConfig({}, { ARMATURE_STREAM_IDLE_TIMEOUT_MS: "soon" })).toThrow(/ARMATURE_STREAM_IDLE_TIMEOUT_MS must be a positive whole number of milliseconds, not "soon"/);
    expect(() => resolveProviderConfig({}, { ARMATURE_HEADERS_TIMEOUT_MS: "-1" })).toThrow(/ARMATURE_HEADERS_TIMEOUT_MS/);
  });
});
