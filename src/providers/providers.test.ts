import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../tool/build-tool.js";
import { createSession } from "../session/session.js";
import { fromOpenAIToolCalls, toOpenAIToolMessages, type OpenAIToolCall } from "./openai.js";
import { parseTurnsFile, TurnParseError } from "./turns.js";

const echo = buildTool({
  name: "Echo", description: "", inputSchema: z.object({ text: z.string() }), isReadOnly: () => true,
  call: async (i) => ({ data: i.text }),
});

describe("OpenAI adapters", () => {
  it("parses arguments; a malformed string becomes an is_error result for that call only", async () => {
    const blocks = fromOpenAIToolCalls({
      role: "assistant",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "Echo", arguments: '{"text":"hi"}' } },
        { id: "c2", type: "function", function: { name: "Echo", arguments: '{"text": "unterminated' } },
        { id: "c3", type: "function", function: { name: "Echo", arguments: "" } },
      ],
    });
    const s = createSession({ cwd: process.cwd(), tools: [echo] });
    const results = await s.runTurn(blocks);
    const msgs = toOpenAIToolMessages(results);
    expect(msgs[0]).toEqual({ role: "tool", tool_call_id: "c1", content: "hi" });
    expect(msgs[1]!.content).toMatch(/^<tool_use_error>InputValidationError: Echo failed because its arguments are not valid JSON \(.+\): \{"text": "unterminated\nSend the arguments as one JSON object\.<\/tool_use_error>$/);
    expect(msgs[2]!.content).toContain("The required parameter `text` is missing");
    await s.close();
  });

  it("arguments that are not a string: an object is used, anything else is an error for that call only", async () => {
    const blocks = fromOpenAIToolCalls({
      role: "assistant",
      tool_calls: [
        { id: "o", type: "function", function: { name: "Echo", arguments: { text: "obj" } as unknown as string } },
        { id: "n", type: "function", function: { name: "Echo", arguments: 5 as unknown as string } },
        { id: "m" } as unknown as OpenAIToolCall,
      ],
    });
    const s = createSession({ cwd: process.cwd(), tools: [echo] });
    const results = await s.runTurn(blocks);
    expect(results[0]!.content).toBe("obj");
    expect(results[1]!.content).toContain("arguments must be a JSON object encoded as a string");
    expect(results[2]!.content).toContain("No such tool available");
    await s.close();
  });

  it("describes images in text-only tool messages", () => {
    const [m] = toOpenAIToolMessages([{ type: "tool_result", tool_use_id: "x", content: [{ type: "text", text: "see" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }]);
    expect(m!.content).toBe("see\n[image: image/png, 3 bytes]");
  });
});

describe("parseTurnsFile", () => {
  const use = { type: "tool_use", id: "a", name: "Echo", input: { text: "x" } };
  it.each([
    ["array of blocks", JSON.stringify([use]), "anthropic"],
    ["Anthropic message", JSON.stringify({ role: "assistant", content: [{ type: "text", text: "hm" }, use] }), "anthropic"],
    ["OpenAI message", JSON.stringify({ role: "assistant", tool_calls: [{ id: "a", function: { name: "Echo", arguments: "{}" } }] }), "openai"],
    ["pretty whole-file document", JSON.stringify([use], null, 2), "anthropic"],
  ])("%s", (_n, text, shape) => {
    const turns = parseTurnsFile(text);
    expect(turns).toHaveLength(1);
    expect(turns[0]!.shape).toBe(shape);
    expect(turns[0]!.blocks[0]!.id).toBe("a");
  });

  it("a text-only assistant message is a turn without calls", () => {
    expect(parseTurnsFile(JSON.stringify({ role: "assistant", content: "just text" }))).toEqual([{ shape: "anthropic", blocks: [] }]);
  });

  it("JSON Lines: one turn a line, blank lines skipped", () => {
    expect(parseTurnsFile(`${JSON.stringify([use])}\n\n${JSON.stringify([use])}\n`)).toHaveLength(2);
  });

  it("a bad line is an error naming its number", () => {
    expect(() => parseTurnsFile(`${JSON.stringify([use])}\nnot json\n`)).toThrow(/^line 2: not JSON/);
    expect(() => parseTurnsFile(`${JSON.stringify([use])}\n{"role":"assistant"}\n`)).toThrow(TurnParseError);
    expect(() => parseTurnsFile(`[{"type":"tool_use","name":"x"}]`)).toThrow(/line 1: .*needs a string "id"/);
  });
});
