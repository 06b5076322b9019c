import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, chatReply, responsesReply, startMockModelServer, type MockModelServer, type RecordedRequest } from "../../test/mock-model-server.js";
import { script, runnerFor, cmd } from "../../test/hook-helpers.js";
import { withTempDir } from "../../test/helpers.js";
import { AnthropicProvider } from "../providers/anthropic.js";
import { OpenAIChatProvider } from "../providers/openai-chat.js";
import { OpenAIResponsesProvider } from "../providers/openai-responses.js";
import { createSession, type SessionOptions } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import type { HookRunner } from "../hooks/types.js";
import { runAgent } from "./run-agent.js";
import { loadConversation } from "./transcript.js";
import type { AgentEvent, AgentResult, RunAgentOptions } from "./types.js";

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function drive(options: RunAgentOptions): Promise<{ events: AgentEvent[]; result: AgentResult }> {
  const events: AgentEvent[] = [];
  const it = runAgent(options);
  for (;;) {
    const next = await it.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

function sessionIn(dir: string, extra: Partial<SessionOptions> = {}) {
  return createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, ".armature", "session"), ...extra });
}

type Json = Record<string, unknown>;
const messagesOf = (r: RecordedRequest) => r.body.messages as Array<{ role: string; content: Json[] | string }>;

/** Every cache_control in a request's messages, as [message index, block index]. */
function breakpoints(r: RecordedRequest): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  messagesOf(r).forEach((m, i) => {
    if (Array.isArray(m.content)) m.content.forEach((b, j) => b.cache_control !== undefined && out.push([i, j]));
  });
  return out;
}

describe("runAgent against the Anthropic SDK and a scripted server", () => {
  it("replays a reference-shaped run (Read + Grep in parallel, Bash, Edit, answer) and sends what the reference sends", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "notes.txt"), "one\ntwo\nthree\n");
      const file = join(dir, "notes.txt");
      server = await startMockModelServer([
        anthropicReply([
          { type: "thinking", thinking: "Plan: read and grep.", signature: "sig-1" },
          { type: "text", text: "I'll read the file and search it." },
          { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: file } },
          { type: "tool_use", id: "toolu_g", name: "Grep", input: { pattern: "tw", path: dir, output_mode: "content" } },
        ]),
        anthropicReply([{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "wc -l < notes.txt", description: "Count lines" } }]),
        anthropicReply([{ type: "tool_use", id: "toolu_e", name: "Edit", input: { file_path: file, old_string: "two", new_string: "TWO" } }]),
        anthropicReply([{ type: "text", text: "notes.txt has 3 lines; line 2 is now TWO." }]),
      ]);
      const session = sessionIn(dir, { permissionMode: "acceptEdits" });
      const provider = new AnthropicProvider({ baseURL: server.url, apiKey: "k" });
      const { events, result } = await drive({ session, provider, model: "claude-mock", prompt: "Count the lines of notes.txt and capitalise two.", system: "SYSTEM" });
      await session.close();

      expect(result).toMatchObject({ subtype: "success", is_error: false, num_turns: 4, stop_reason: "end_turn", text: "notes.txt has 3 lines; line 2 is now TWO.", denials: [] });
      expect(result.usage).toMatchObject({ input_tokens: 400, output_tokens: 40 });
      expect(await readFile(file, "utf8")).toBe("one\nTWO\nthree\n");

      // The requests the mock received.
      expect(server.requests).toHaveLength(4);
      for (const r of server.requests) {
        // The system prompt, then the names of the deferred tools (WebFetch is one: ToolSearch loads it).
        expect(r.body.system).toEqual([{ type: "text", text: expect.stringMatching(/^SYSTEM\n\nThe following deferred tools are available via ToolSearch\.[\s\S]*\nWebFetch$/), cache_control: { type: "ephemeral" } }]);
        const tools = r.body.tools as Json[];
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["Bash", "Edit", "Grep", "Read"]));
        expect(tools.every((t) => t.cache_control === undefined && typeof t.input_schema === "object")).toBe(true);
        const msgs = messagesOf(r);
        const last = msgs.length - 1;
        expect(breakpoints(r)).toEqual([[last, (msgs[last]!.content as Json[]).length - 1]]);
      }
      const second = messagesOf(server.requests[1]!);
      expect(second).toHaveLength(3);
      // The thinking block goes back exactly as received, then the text and both calls.
      expect(second[1]).toEqual({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Plan: read and grep.", signature: "sig-1" },
          { type: "text", text: "I'll read the file and search it." },
          { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: file } },
          { type: "tool_use", id: "toolu_g", name: "Grep", input: { pattern: "tw", path: dir, output_mode: "content" } },
        ],
      });
      const results = second[2]!.content as Json[];
      expect(results.map((b) => [b.type, b.tool_use_id])).toEqual([["tool_result", "toolu_r"], ["tool_result", "toolu_g"]]);
      expect(String(results[0]!.content)).toContain("1\tone");
      expect(String(results[1]!.content)).toContain("two");
      const bash = (messagesOf(server.requests[2]!).at(-1)!.content as Json[])[0]!;
      expect(bash).toMatchObject({ type: "tool_result", tool_use_id: "toolu_b", content: "3" });
      const edit = (messagesOf(server.requests[3]!).at(-1)!.content as Json[])[0]!;
      expect(edit.is_error).not.toBe(true);

      // Events: one assistant_block per content block, one tool_result per call, a result last.
      expect(events.filter((e) => e.type === "assistant_block")).toHaveLength(7);
      expect(events.filter((e) => e.type === "tool_result").map((e) => (e as { toolName: string }).toolName)).toEqual(["Read", "Grep", "Bash", "Edit"]);
      expect(events.at(-1)).toEqual({ type: "result", result });

      // The transcript hooks are given exists: one JSON line per message.
      const transcript = await loadConversation(join(dir, ".armature", "session", "transcript.jsonl"));
      expect(transcript).toEqual(result.messages);
      expect(result.messages).toHaveLength(8);
    });
  });

  it("a tool call cut off by max_tokens gets an is_error result saying so, and the loop goes on", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "text", text: "Writing." }, { type: "tool_use", id: "t1", name: "Write", rawJson: '{"file_path":"/x","content":"aaaa' }], { stopReason: "max_tokens" }),
        anthropicReply([{ type: "text", text: "I'll write it in parts." }]),
      ]);
      const session = sessionIn(dir);
      const { result } = await drive({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "write" });
      await session.close();
      const sent = messagesOf(server.requests[1]!);
      expect(sent[1]!.content).toEqual([{ type: "text", text: "Writing." }, { type: "tool_use", id: "t1", name: "Write", input: {} }]);
      const block = (sent[2]!.content as Json[])[0]!;
      expect(block).toMatchObject({ type: "tool_result", tool_use_id: "t1", is_error: true });
      expect(String(block.content)).toMatch(/cut off at the output token limit \(max_tokens\)/);
      expect(result).toMatchObject({ subtype: "success", num_turns: 2 });
    });
  });

  it("a stream cut mid-way ends the run with an error and leaves no half-written message in the history", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "text", text: "partial" }, { type: "tool_use", id: "t", name: "Bash", input: { command: "sleep 5" } }], { cutAfterEvents: 5 }),
      ]);
      const session = sessionIn(dir);
      const { result } = await drive({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k", maxRetries: 0 }), model: "m", prompt: "go" });
      await session.close();
      expect(result).toMatchObject({ subtype: "error_during_execution", is_error: true, terminal_reason: "model_error" });
      expect(result.messages).toEqual([{ role: "user", content: "go" }]);
    });
  });

  it("a stream that fails before any output (an overloaded error event, a cut after message_start) is retried", async () => {
    await withTempDir(async (dir) => {
      const overloaded = anthropicReply([{ type: "text", text: "x" }], { cutAfterEvents: 1 });
      overloaded.chunks!.push('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
      overloaded.cut = false;
      server = await startMockModelServer([
        overloaded,
        anthropicReply([{ type: "text", text: "x" }], { cutAfterEvents: 1 }),
        anthropicReply([{ type: "text", text: "fine now" }]),
      ]);
      const session = sessionIn(dir);
      const { events, result } = await drive({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k", maxRetries: 0 }), model: "m", prompt: "hi" });
      await session.close();
      expect(server.requests).toHaveLength(3);
      expect(result).toMatchObject({ subtype: "success", text: "fine now", num_turns: 1 });
      expect(events.filter((e) => e.type === "notice")).toHaveLength(2);
      expect(result.messages).toHaveLength(2);
    });
  });

  it("abort cancels the HTTP stream and running tools, promptly", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        { ...anthropicReply([{ type: "tool_use", id: "t", name: "Bash", input: { command: "sleep 30" } }], { noStop: true }), hang: true },
      ]);
      const session = sessionIn(dir, { permissionMode: "bypassPermissions" });
      const controller = new AbortController();
      const it = runAgent({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "go", signal: controller.signal });
      const t0 = Date.now();
      let result: AgentResult | undefined;
      for (;;) {
        const next = await it.next();
        if (next.done) {
          result = next.value;
          break;
        }
        if (next.value.type === "assistant_block") setTimeout(() => controller.abort(), 200);
      }
      await session.close();
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(result).toMatchObject({ is_error: true, terminal_reason: "aborted" });
      expect(result.messages).toHaveLength(1);
    });
  });

  it("a call that needs approval without an approver is denied, with its reason in the denials", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "t", name: "Bash", input: { command: "rm -rf build" } }]),
        anthropicReply([{ type: "text", text: "Could not remove it." }]),
      ]);
      const session = sessionIn(dir);
      const { result } = await drive({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "clean" });
      await session.close();
      expect(result.denials).toHaveLength(1);
      expect(result.denials[0]).toMatchObject({ tool_name: "Bash", tool_use_id: "t", tool_input: { command: "rm -rf build" } });
      expect(result.denials[0]!.reason).not.toBe("");
    });
  });

  it("maxTurns stops the loop with error_max_turns", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([anthropicReply([{ type: "tool_use", id: "t", name: "Glob", input: { pattern: "*" } }])]);
      const session = sessionIn(dir);
      const { result } = await drive({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "go", maxTurns: 1 });
      await session.close();
      expect(result).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 1 });
      expect(result.messages).toHaveLength(3);
    });
  });
});

describe("runAgent hooks", () => {
  it("SessionStart, UserPromptSubmit context, Stop exit 2 continues with its message, SessionEnd; the transcript exists when they run", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "hooks.log");
      const hookScript = await script(
        dir,
        "hook.sh",
        `input=$(cat)
event=$(printf '%s' "$input" | sed -E 's/.*"hook_event_name":"([A-Za-z]+)".*/\\1/')
tp=$(printf '%s' "$input" | sed -E 's/.*"transcript_path":"([^"]+)".*/\\1/')
[ -f "$tp" ] && echo "$event transcript-ok" >> ${log} || echo "$event transcript-missing" >> ${log}
case "$event" in
  UserPromptSubmit) echo "Remember: the answer is 42." ;;
  Stop) if printf '%s' "$input" | grep -q '"stop_hook_active":false'; then echo "Also say goodbye." >&2; exit 2; fi ;;
esac
exit 0`,
      );
      const config: Record<string, unknown> = {};
      for (const event of ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]) config[event] = [{ hooks: [cmd(hookScript)] }];
      const { createHookRunner } = await import("../hooks/runner.js");
      const hooks: HookRunner = createHookRunner([{ source: "test", config }], { projectDir: dir });
      server = await startMockModelServer([anthropicReply([{ type: "text", text: "42" }]), anthropicReply([{ type: "text", text: "42. Goodbye!" }])]);
      const session = sessionIn(dir, { hooks });
      const { result } = await drive({ session, hooks, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "What is the answer?" });
      await session.close();
      expect(result).toMatchObject({ subtype: "success", text: "42. Goodbye!", num_turns: 2 });
      expect(messagesOf(server.requests[0]!)[0]!.content).toEqual([
        { type: "text", text: "What is the answer?" },
        { type: "text", text: "Remember: the answer is 42.", cache_control: { type: "ephemeral" } },
      ]);
      expect(messagesOf(server.requests[1]!).at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Stop hook feedback:\nAlso say goodbye.", cache_control: { type: "ephemeral" } }] });
      expect((await readFile(log, "utf8")).trim().split("\n")).toEqual([
        "SessionStart transcript-ok",
        "UserPromptSubmit transcript-ok",
        "Stop transcript-ok",
        "Stop transcript-ok",
        "SessionEnd transcript-ok",
      ]);
    });
  });

  it("a UserPromptSubmit block stops before any request", async () => {
    await withTempDir(async (dir) => {
      const hooks = runnerFor(dir, "UserPromptSubmit", [cmd("echo 'no secrets' >&2; exit 2")]);
      server = await startMockModelServer([]);
      const session = sessionIn(dir, { hooks });
      const { result } = await drive({ session, hooks, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "print the key" });
      await session.close();
      expect(server.requests).toHaveLength(0);
      expect(result).toMatchObject({ is_error: true, terminal_reason: "prompt_blocked" });
      expect(result.error).toContain("no secrets");
    });
  });
});

describe("runAgent with the OpenAI providers", () => {
  it("Chat Completions: parallel calls run, results go back as role:tool messages in order", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\n");
      await writeFile(join(dir, "b.txt"), "beta\n");
      server = await startMockModelServer([
        chatReply({ toolCalls: [{ id: "c1", name: "Read", arguments: JSON.stringify({ file_path: join(dir, "a.txt") }) }, { id: "c2", name: "Read", arguments: JSON.stringify({ file_path: join(dir, "b.txt") }) }] }),
        chatReply({ text: "alpha and beta" }),
      ]);
      const session = sessionIn(dir);
      const { result } = await drive({ session, provider: new OpenAIChatProvider({ baseURL: server.url, apiKey: "k" }), model: "gpt", prompt: "read both", system: "S" });
      await session.close();
      expect(result).toMatchObject({ subtype: "success", text: "alpha and beta", num_turns: 2 });
      const sent = server.requests[1]!.body.messages as Json[];
      expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
      expect(sent.slice(3).map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
      expect(String(sent[3]!.content)).toContain("alpha");
      expect(String(sent[4]!.content)).toContain("beta");
    });
  });

  it("Responses: function_call items run; outputs go back as function_call_output with the call_id", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\n");
      server = await startMockModelServer([
        responsesReply({ calls: [{ callId: "call_9", name: "Read", arguments: JSON.stringify({ file_path: join(dir, "a.txt") }) }] }),
        responsesReply({ text: "alpha" }),
      ]);
      const session = sessionIn(dir);
      const { result } = await drive({ session, provider: new OpenAIResponsesProvider({ baseURL: server.url, apiKey: "k" }), model: "gpt", prompt: "read" });
      await session.close();
      expect(result).toMatchObject({ subtype: "success", text: "alpha" });
      const input = server.requests[1]!.body.input as Json[];
      expect(input.slice(1).map((i) => i.type)).toEqual(["function_call", "function_call_output"]);
      expect(input[2]).toMatchObject({ call_id: "call_9" });
      expect(String(input[2]!.output)).toContain("alpha");
    });
  });
});
