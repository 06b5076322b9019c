// OpenAI-compatible servers as users have them (issue 26): scripted servers on 127.0.0.1 with
// the quirks of llama.cpp's server, vLLM and Ollama; reasoning items of the Responses API kept
// across a multi-step run. Each time the loop completes and the saved conversation is right.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chatReply, responsesReply, startMockModelServer, type MockModelServer, type RecordedRequest, type ScriptedResponse } from "../../test/mock-model-server.js";
import { withTempDir } from "../../test/helpers.js";
import { runAgent } from "../agent/run-agent.js";
import { loadConversation } from "../agent/transcript.js";
import type { AgentEvent, AgentResult } from "../agent/types.js";
import { createSession } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import type { AgentMessage } from "./model.js";
import { OpenAIChatProvider } from "./openai-chat.js";
import { OpenAIResponsesProvider } from "./openai-responses.js";

type Json = Record<string, unknown>;
let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
const chunk = (delta: Json, finish: string | null | undefined = null, extra: Json = {}): string =>
  data({ id: "x", object: "chat.completion.chunk", created: 1, model: "local", choices: [{ index: 0, delta, ...(finish === undefined ? {} : { finish_reason: finish }) }], ...extra });

interface Quirks {
  /** Leave `id` out of the tool-call deltas. */
  noIds?: boolean;
  /** Number the ids from 0 in every reply (reused across turns). */
  idFromZero?: boolean;
  /** Never send a finish_reason. */
  noFinish?: boolean;
  /** Id, name and the whole arguments in one delta. */
  oneChunk?: boolean;
  /** Usage only in the last chunk (with the finish), none in a separate chunk. */
  usageLast?: boolean;
}

/** A reply with `calls` (name Read) or text, shaped by the quirks. */
function quirkyReply(q: Quirks, turn: number, calls: string[], text?: string): ScriptedResponse {
  const events = [chunk({ role: "assistant", content: "" })];
  if (text !== undefined) events.push(chunk({ content: text }));
  calls.forEach((path, index) => {
    const id = q.noIds ? undefined : q.idFromZero ? `call_${index}` : `call_t${turn}_${index}`;
    const args = JSON.stringify({ file_path: path });
    const head = { index, ...(id ? { id } : {}), type: "function", function: { name: "Read", arguments: q.oneChunk ? args : "" } };
    events.push(chunk({ tool_calls: [head] }));
    if (!q.oneChunk) for (const piece of [args.slice(0, 5), args.slice(5)]) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const finish = q.noFinish ? undefined : calls.length > 0 ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 10 + turn, completion_tokens: 3, total_tokens: 13 + turn };
  if (q.usageLast) events.push(chunk({}, finish, { usage }));
  else {
    events.push(chunk({}, finish));
    events.push(data({ id: "x", object: "chat.completion.chunk", created: 1, model: "local", choices: [], usage }));
  }
  events.push("data: [DONE]\n\n");
  return { chunks: events };
}

async function drive(it: AsyncGenerator<AgentEvent, AgentResult>): Promise<{ events: AgentEvent[]; result: AgentResult }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await it.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

/** Every tool_use of the conversation is answered, in order, by the next user message; no id repeats. */
function checkConversation(messages: readonly AgentMessage[]): void {
  const ids = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const uses = m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    for (const id of uses) {
      expect(ids.has(id), `tool_use id ${id} repeats`).toBe(false);
      ids.add(id);
    }
    if (uses.length === 0) return;
    const next = messages[i + 1]!;
    expect(next.role).toBe("user");
    const results = (next.content as Array<{ type: string; tool_use_id?: string; is_error?: boolean }>).filter((b) => b.type === "tool_result");
    expect(results.map((r) => r.tool_use_id)).toEqual(uses);
    for (const r of results) expect(r.is_error).toBeFalsy();
  });
}

/** The assistant tool_calls ids and the tool messages' ids of a Chat request, in order. */
function idsSent(r: RecordedRequest): { calls: string[]; results: string[] } {
  const messages = r.body.messages as Json[];
  return {
    calls: messages.flatMap((m) => ((m.tool_calls as Json[] | undefined) ?? []).map((c) => String(c.id))),
    results: messages.flatMap((m) => (m.role === "tool" ? [String(m.tool_call_id)] : [])),
  };
}

const QUIRKS: Array<[string, Quirks]> = [
  ["tool-call ids missing", { noIds: true }],
  ["tool-call ids reused across turns (numbered from 0 each reply)", { idFromZero: true }],
  ["finish_reason absent", { noFinish: true }],
  ["arguments streamed as one chunk", { oneChunk: true }],
  ["usage only in the last chunk", { usageLast: true }],
  ["all of them at once", { noIds: true, noFinish: true, oneChunk: true, usageLast: true }],
];

describe("Chat Completions servers with quirks: the loop completes and the conversation is right", () => {
  it.each(QUIRKS)("%s", async (_name, q) => {
    await withTempDir(async (dir) => {
      for (const n of ["a", "b", "c"]) await writeFile(join(dir, `${n}.txt`), `${n} content\n`);
      server = await startMockModelServer([
        quirkyReply(q, 1, [join(dir, "a.txt"), join(dir, "b.txt")]),
        quirkyReply(q, 2, [join(dir, "c.txt")]),
        quirkyReply(q, 3, [], "a, b and c read"),
      ]);
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, "s") });
      const conversation = join(dir, "conversation.jsonl");
      const { result } = await drive(runAgent({ session, provider: new OpenAIChatProvider({ baseURL: server.url, apiKey: "k" }), model: "local", prompt: "read them", conversationPath: conversation }));
      await session.close();
      expect(result).toMatchObject({ subtype: "success", is_error: false, text: "a, b and c read", num_turns: 3 });
      // Usage: every reply's figures counted once.
      expect(result.usage.input_tokens).toBe(11 + 12 + 13);
      expect(result.usage.output_tokens).toBe(9);
      checkConversation(result.messages);
      expect(await loadConversation(conversation)).toEqual(result.messages);
      // The Read results carry the files' text.
      const results = result.messages.filter((m) => m.role === "user" && Array.isArray(m.content)).flatMap((m) => m.content as unknown as Json[]);
      expect(JSON.stringify(results)).toContain("c content");
      // What went back matches call for call.
      const last = idsSent(server.requests[2]!);
      expect(last.calls).toHaveLength(3);
      expect(last.results).toEqual(last.calls);
      expect(new Set(last.calls).size).toBe(3);
    });
  });

  it("a server that rejects parallel_tool_calls: asked again without it, and never sent it again", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\n");
      const strict = (reply: ScriptedResponse) => (r: RecordedRequest): ScriptedResponse =>
        "parallel_tool_calls" in r.body ? { status: 400, body: JSON.stringify({ error: { message: "Unrecognized request argument supplied: parallel_tool_calls", type: "invalid_request_error" } }) } : reply;
      server = await startMockModelServer([
        strict(chatReply({ toolCalls: [{ id: "c1", name: "Read", arguments: JSON.stringify({ file_path: join(dir, "a.txt") }) }] })),
        strict(chatReply({ toolCalls: [{ id: "c1", name: "Read", arguments: JSON.stringify({ file_path: join(dir, "a.txt") }) }] })),
        strict(chatReply({ text: "alpha" })),
      ]);
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, "s") });
      const { result } = await drive(runAgent({ session, provider: new OpenAIChatProvider({ baseURL: server.url, apiKey: "k", maxRetries: 0 }), model: "local", prompt: "read" }));
      await session.close();
      expect(result).toMatchObject({ subtype: "success", text: "alpha" });
      expect(server.requests.map((r) => "parallel_tool_calls" in r.body)).toEqual([true, false, false]);
    });
  });

  it("reasoning_content is shown as thinking and not sent back (the Chat API has no field for it)", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\n");
      server = await startMockModelServer([
        chatReply({ reasoningContent: "I should read a.txt first.", toolCalls: [{ id: "c1", name: "Read", arguments: JSON.stringify({ file_path: join(dir, "a.txt") }) }] }),
        chatReply({ text: "alpha" }),
      ]);
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, "s") });
      const { events, result } = await drive(runAgent({ session, provider: new OpenAIChatProvider({ baseURL: server.url, apiKey: "k" }), model: "local", prompt: "read" }));
      await session.close();
      expect(result.subtype).toBe("success");
      expect(events.flatMap((e) => (e.type === "thinking_delta" ? [e.text] : [])).join("")).toBe("I should read a.txt first.");
      expect(JSON.stringify(server.requests[1]!.body)).not.toContain("I should read");
    });
  });
});

describe("Responses reasoning items", () => {
  it("are kept with their encrypted content and sent back in order at every later step", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\n");
      await writeFile(join(dir, "b.txt"), "beta\n");
      const read = (callId: string, name: string) => ({ callId, name: "Read", arguments: JSON.stringify({ file_path: join(dir, name) }) });
      server = await startMockModelServer([
        responsesReply({ reasoning: [{ id: "rs_1", summary: "Start with a.", encrypted: "ENC-ONE" }], calls: [read("call_1", "a.txt")] }),
        responsesReply({ reasoning: [{ id: "rs_2", encrypted: "ENC-TWO" }], text: "Now b.", calls: [read("call_2", "b.txt")] }),
        responsesReply({ reasoning: [{ id: "rs_3", encrypted: "ENC-THREE" }], text: "alpha, beta" }),
      ]);
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, "s") });
      const conversation = join(dir, "conversation.jsonl");
      const { events, result } = await drive(runAgent({ session, provider: new OpenAIResponsesProvider({ baseURL: server.url, apiKey: "k" }), model: "o-mock", prompt: "read both", conversationPath: conversation }));
      await session.close();
      expect(result).toMatchObject({ subtype: "success", text: "alpha, beta", num_turns: 3 });
      // Not stored: every request asks for the encrypted content.
      for (const r of server.requests) {
        expect(r.body.store).toBe(false);
        expect(r.body.include).toEqual(["reasoning.encrypted_content"]);
      }
      const shape = (r: RecordedRequest) => (r.body.input as Json[]).map((i) => (i.type === "reasoning" ? `reasoning:${String(i.id)}` : i.type ?? `${String(i.role)}`));
      expect(shape(server.requests[1]!)).toEqual(["user", "reasoning:rs_1", "function_call", "function_call_output"]);
      expect(shape(server.requests[2]!)).toEqual(["user", "reasoning:rs_1", "function_call", "function_call_output", "reasoning:rs_2", "assistant", "function_call", "function_call_output"]);
      const items = (server.requests[2]!.body.input as Json[]).filter((i) => i.type === "reasoning");
      expect(items).toEqual([
        { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Start with a." }], encrypted_content: "ENC-ONE" },
        { id: "rs_2", type: "reasoning", summary: [], encrypted_content: "ENC-TWO" },
      ]);
      // The summary streams as thinking; the saved conversation keeps the items (a resume sends them too).
      expect(events.flatMap((e) => (e.type === "thinking_delta" ? [e.text] : [])).join("")).toBe("Start with a.");
      const saved = await loadConversation(conversation);
      expect(saved).toEqual(result.messages);
      expect(JSON.stringify(saved)).toContain("ENC-TWO");
    });
  });

  it("with store: true nothing extra is asked for (the server keeps the items)", () => {
    const provider = new OpenAIResponsesProvider({ extraBody: { store: true } });
    const body = provider.requestBody({ model: "m", system: "", messages: [{ role: "user", content: "hi" }], tools: [], maxTokens: 10 });
    expect(body.store).toBe(true);
    expect(body.include).toBeUndefined();
  });
});
