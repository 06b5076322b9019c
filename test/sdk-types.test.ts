// armature's types against the official SDKs (`@anthropic-ai/sdk`, `openai`): what one gives,
// the other takes without casts. Checked by tsc (npm run lint) and run by vitest.
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expect, expectTypeOf, it } from "vitest";
import { builtinTools, createSession, fromOpenAIToolCalls, toOpenAIToolMessages, type AnthropicToolDefinition, type ToolUseBlock } from "../src/index.js";

type AnthropicTools = NonNullable<Anthropic.MessageCreateParamsNonStreaming["tools"]>;
type OpenAITools = NonNullable<OpenAI.ChatCompletionCreateParamsNonStreaming["tools"]>;

describe("types that fit the official SDKs", () => {
  it("toolDefinitions() are the `tools` of messages.create and chat.completions.create", async () => {
    const session = createSession({ cwd: process.cwd(), tools: builtinTools() });
    const anthropic = await session.toolDefinitions("anthropic");
    const openai = await session.toolDefinitions("openai");
    expectTypeOf(anthropic).toExtend<AnthropicTools>();
    expectTypeOf(openai).toExtend<OpenAITools>();
    const request: Anthropic.MessageCreateParamsNonStreaming = { model: "m", max_tokens: 1, messages: [], tools: anthropic };
    const chat: OpenAI.ChatCompletionCreateParamsNonStreaming = { model: "m", messages: [], tools: openai };
    expect(request.tools!.every((t) => "input_schema" in t && t.input_schema.type === "object")).toBe(true);
    expect(chat.tools).toHaveLength(openai.length);
    expectTypeOf<AnthropicToolDefinition["input_schema"]>().not.toBeNullable();
    await session.close();
  });

  it("tool_use blocks of an Anthropic Message run, and the results are a user message's content", async () => {
    const session = createSession({ cwd: process.cwd(), tools: builtinTools() });
    const message = { content: [{ type: "tool_use", id: "toolu_1", name: "Glob", input: { pattern: "package.json" }, caller: { type: "direct" } }] } as Pick<Anthropic.Message, "content">;
    const blocks = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    expectTypeOf(blocks).toExtend<readonly ToolUseBlock[]>();
    const results = await session.runTurn(blocks);
    const next: Anthropic.MessageParam = { role: "user", content: results };
    expect(next.content).toHaveLength(1);
    await session.close();
  });

  it("fromOpenAIToolCalls takes a ChatCompletionMessage, custom tool calls included; the tool messages go back as they are", async () => {
    const message: OpenAI.ChatCompletionMessage = {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [
        { id: "call_f", type: "function", function: { name: "Glob", arguments: '{"pattern":"package.json"}' } },
        { id: "call_c", type: "custom", custom: { name: "Glob", input: "package.json" } },
        { id: "call_u", type: "custom", custom: { name: "Freeform", input: "x" } },
      ],
    };
    const blocks = fromOpenAIToolCalls(message);
    expect(blocks.map((b) => b.name)).toEqual(["Glob", "Glob", "Freeform"]);
    const session = createSession({ cwd: process.cwd(), tools: builtinTools() });
    const results = await session.runTurn(blocks);
    expect(results[0]!.is_error).toBeUndefined();
    expect(results[1]).toMatchObject({ tool_use_id: "call_c", is_error: true });
    expect(results[1]!.content).toContain("Glob was called as a custom tool with free-form input (package.json)");
    expect(results[2]).toMatchObject({ tool_use_id: "call_u", is_error: true, content: expect.stringContaining("No such tool available: Freeform") });
    const back: OpenAI.ChatCompletionMessageParam[] = [message, ...toOpenAIToolMessages(results)];
    expect(back).toHaveLength(4);
    await session.close();
  });

  it("a tool call without a name gets an is_error result naming the call", async () => {
    const blocks = fromOpenAIToolCalls({ role: "assistant", tool_calls: [{ id: "call_x", function: { arguments: "{}" } } as unknown as OpenAI.ChatCompletionMessageFunctionToolCall] });
    const session = createSession({ cwd: process.cwd(), tools: builtinTools() });
    const [r] = await session.runTurn(blocks);
    expect(r).toMatchObject({ is_error: true, content: expect.stringContaining("call_x") });
    await session.close();
  });

  it("session.stream takes any Iterable or AsyncIterable of tool_use blocks", async () => {
    const session = createSession({ cwd: process.cwd(), tools: builtinTools() });
    const block: ToolUseBlock = { type: "tool_use", id: "a", name: "Glob", input: { pattern: "package.json" } };
    async function* arriving(): AsyncGenerator<ToolUseBlock> {
      yield { ...block, id: "b" };
    }
    const ids: string[] = [];
    for (const source of [[block], new Set([{ ...block, id: "s" }]), arriving()]) {
      for await (const event of session.stream(source)) if (event.type === "result") ids.push(event.result.tool_use_id);
    }
    expect(ids).toEqual(["a", "s", "b"]);
    await session.close();
  });
});
