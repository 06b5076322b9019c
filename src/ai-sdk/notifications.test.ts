// Background notifications reach a host that drives the loop with the AI SDK: in the next call's
// result during a run, through aiSdkNotifications between runs. The real `ai` package, its mock model.
import { generateText, stepCountIs, streamText, type ModelMessage } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { shellSession } from "../../test/bash-helpers.js";
import { withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import { aiSdkNotifications, aiSdkTools, toModelOutput } from "./index.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
type Prompt = Array<{ role: string; content: unknown }>;
type Call = { toolCallId: string; toolName: string; input: Record<string, unknown> };

/** A model that makes the calls of each step in turn, then says "done"; it keeps every prompt it was sent. */
function scriptedModel(steps: Call[][]): { model: MockLanguageModelV3; prompts: Prompt[] } {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt as Prompt);
      const calls = steps.shift();
      if (!calls) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      return {
        content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolCallId, toolName: c.toolName, input: JSON.stringify(c.input) })),
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

/** The tool outputs the model was sent in a prompt, by call id. */
function toolOutputs(prompt: Prompt): Record<string, { type: string; value: unknown }> {
  const parts = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content as Array<{ type: string; toolCallId: string; output: { type: string; value: unknown } }>);
  return Object.fromEntries(parts.filter((p) => p.type === "tool-result").map((p) => [p.toolCallId, p.output]));
}

const NOTIFICATION = /^\[SYSTEM NOTIFICATION - NOT USER INPUT\]\nThis is an automated background-task event, NOT a message from the user\.\n<task-notification>\n<task-id>(b[0-9a-f]{8})<\/task-id>\n<output-file>[^<]+<\/output-file>\n<status>completed<\/status>\n<summary>Background command "waits for go" completed \(exit code 0\)<\/summary>\n<\/task-notification>$/;

describe("background notifications through the AI SDK adapter", () => {
  it("a background command that ends during a run: its notification follows the next call's result, once", async () => {
    await withTempDir(async (dir) => {
      const session = shellSession(dir);
      const tools = await aiSdkTools(session);
      const { model, prompts } = scriptedModel([
        [{ toolCallId: "bg", toolName: "Bash", input: { command: "while [ ! -e go ]; do sleep 0.02; done; echo finished", description: "waits for go", run_in_background: true } }],
        // The background command ends while this call runs (it waits a little after letting it go).
        [{ toolCallId: "fg", toolName: "Bash", input: { command: "touch go; sleep 0.5; echo foreground" } }],
        [{ toolCallId: "again", toolName: "Bash", input: { command: "echo later" } }],
      ]);
      const result = await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(5) });
      await session.close();
      expect(result.text).toBe("done");
      const fg = toolOutputs(prompts[2]!).fg!;
      expect(fg.type).toBe("text");
      const [own, note, ...rest] = String(fg.value).split("\n\n");
      expect(own).toBe("foreground");
      expect(rest).toEqual([]);
      expect(note).toMatch(NOTIFICATION);
      // The host's record of the call has it as a message of its own.
      const raw = result.steps[1]!.toolResults[0]!.output as { newMessages?: Array<{ role: string; content: unknown }> };
      expect(raw.newMessages).toEqual([{ role: "user", content: note }]);
      // Told once: the next result does not repeat it, nor does the host's take().
      expect(toolOutputs(prompts[3]!).again).toEqual({ type: "text", value: "later" });
      expect(aiSdkNotifications(session).take()).toEqual([]);
    });
  });

  it("a background command that ends after the run: next() waits for it and the host starts the next run with it", async () => {
    await withTempDir(async (dir) => {
      const session = shellSession(dir);
      const notes = aiSdkNotifications(session);
      const { model, prompts } = scriptedModel([
        [{ toolCallId: "bg", toolName: "Bash", input: { command: "while [ ! -e go ]; do sleep 0.02; done", description: "waits for go", run_in_background: true } }],
      ]);
      const messages: ModelMessage[] = [{ role: "user", content: "start it" }];
      const first = await generateText({ model, tools: await aiSdkTools(session), messages, stopWhen: stepCountIs(1) });
      messages.push(...first.response.messages);
      expect(notes.take()).toEqual([]); // still running
      const pending = notes.next();
      await writeFile(join(dir, "go"), "");
      const told = await pending;
      expect(told).toHaveLength(1);
      expect(told[0]!.role).toBe("user");
      expect(told[0]!.content).toMatch(NOTIFICATION);
      messages.push(...told);
      const second = await generateText({ model, tools: await aiSdkTools(session), messages });
      expect(second.text).toBe("done");
      expect(prompts.at(-1)!.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: told[0]!.content }], providerOptions: undefined });
      // Nothing runs any more: next() and iteration end at once, wait() has nothing to wait for.
      expect(await notes.next()).toEqual([]);
      const iterated: ModelMessage[] = [];
      for await (const m of notes) iterated.push(m);
      expect(iterated).toEqual([]);
      expect(await notes.wait()).toEqual([]);
      await session.close();
    });
  });

  it("iterating yields each end as it comes; next() gives up when its signal aborts; a dev server is not waited for by wait()", async () => {
    await withTempDir(async (dir) => {
      const session = shellSession(dir);
      const notes = aiSdkNotifications(session);
      const tools = await aiSdkTools(session);
      const start = async (id: string, command: string, description: string): Promise<void> => {
        for await (const _ of tools.Bash!.execute!({ command, description, run_in_background: true }, { toolCallId: id, messages: [], context: {} }) as AsyncIterable<unknown>) void _;
      };
      await start("a", "sleep 0.2", "short one");
      await start("b", "sleep 0.6", "longer one");
      await start("server", "sleep 30", "dev server");
      const t0 = Date.now();
      expect(await notes.wait()).toEqual([]); // nothing promised: at once
      expect(Date.now() - t0).toBeLessThan(150);
      const seen: string[] = [];
      for await (const m of notes) {
        seen.push(/<summary>([^<]+)<\/summary>/.exec(String(m.content))![1]!);
        if (seen.length === 2) break;
      }
      expect(seen).toEqual(['Background command "short one" completed (exit code 0)', 'Background command "longer one" completed (exit code 0)']);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      expect(await notes.next({ signal: controller.signal })).toEqual([]);
      await session.close();
      // Closing stops the server: its end is pending now.
      expect(notes.take().map((m) => /<status>(\w+)<\/status>/.exec(String(m.content))![1])).toEqual(["killed"]);
    });
  });

  it("what a call adds to the conversation (a skill's instructions, a reminder) reaches the model after its result, in streamText too", async () => {
    await withTempDir(async (dir) => {
      const remind = buildTool({
        name: "Remind",
        description: "Adds a note.",
        inputSchema: z.object({}),
        isReadOnly: () => true,
        async call() {
          return { data: "noted", newMessages: [{ role: "user" as const, content: [{ type: "text" as const, text: "first note" }, { type: "text" as const, text: "second note" }] }] };
        },
      });
      const session = createSession({ cwd: dir, tools: [remind] });
      const tools = await aiSdkTools(session);
      let step = 0;
      const sent: Prompt[] = [];
      const model = new MockLanguageModelV3({
        doStream: async (options) => {
          sent.push(options.prompt as Prompt);
          const finish = (unified: "tool-calls" | "stop") => ({ type: "finish" as const, finishReason: { unified, raw: undefined }, usage });
          if (++step === 1) return { stream: convertArrayToReadableStream([{ type: "tool-call" as const, toolCallId: "r1", toolName: "Remind", input: "{}" }, finish("tool-calls")]) };
          return { stream: convertArrayToReadableStream([{ type: "text-start" as const, id: "x" }, { type: "text-delta" as const, id: "x", delta: "ok" }, { type: "text-end" as const, id: "x" }, finish("stop")]) };
        },
      });
      const result = streamText({ model, tools, prompt: "remind me", stopWhen: stepCountIs(2) });
      expect(await result.text).toBe("ok");
      await session.close();
      expect(toolOutputs(sent[1]!).r1).toEqual({ type: "text", value: "noted\n\nfirst note\n\nsecond note" });
    });
  });

  it("toModelOutput: new messages after an error text, and after images as text parts", () => {
    const note = [{ role: "user" as const, content: "a task ended" }];
    expect(toModelOutput({ type: "tool_result", tool_use_id: "x", content: "bad", is_error: true, newMessages: note })).toEqual({ type: "error-text", value: "bad\n\na task ended" });
    expect(toModelOutput({ type: "tool_result", tool_use_id: "x", content: [{ type: "text", text: "l1" }, { type: "text", text: "l2" }], newMessages: note })).toEqual({ type: "text", value: "l1\nl2\n\na task ended" });
    expect(toModelOutput({ type: "tool_result", tool_use_id: "x", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }], newMessages: note })).toEqual({
      type: "content",
      value: [{ type: "image-data", data: "AAAA", mediaType: "image/png" }, { type: "text", text: "a task ended" }],
    });
  });
});
