// Bounded turns (issue 24): calls past the documented limit get one is_error result each, in
// the model's order, and are never run — through runTurn and through the agent loop's stream.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTempDir } from "../../test/helpers.js";
import { runAgent } from "../agent/run-agent.js";
import { MAX_TOOL_USES_PER_TURN } from "../pipeline/prepare.js";
import type { ModelEvent, ModelProvider } from "../providers/model.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import type { ToolResultBlock, ToolUseBlock } from "../tool/types.js";

function counting() {
  const ran: number[] = [];
  const tool = buildTool({
    name: "Count",
    description: "Counts its calls.",
    inputSchema: z.object({ i: z.number() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async ({ i }) => {
      ran.push(i);
      return { data: `ran ${i}` };
    },
  });
  return { tool, ran };
}

const blocks = (n: number): ToolUseBlock[] => Array.from({ length: n }, (_, i) => ({ type: "tool_use", id: `toolu_${i}`, name: "Count", input: { i } }));
const text = (r: ToolResultBlock): string => (typeof r.content === "string" ? r.content : JSON.stringify(r.content));

function checkResults(results: readonly ToolResultBlock[], total: number, limit: number): void {
  expect(results.map((r) => r.tool_use_id)).toEqual(blocks(total).map((b) => b.id));
  for (const r of results.slice(0, limit)) expect(r.is_error).toBeFalsy();
  for (const r of results.slice(limit)) {
    expect(r.is_error).toBe(true);
    expect(text(r)).toContain(`more than ${limit} tool calls`);
    expect(text(r)).toContain("next turn");
  }
}

describe("a turn past the tool-call limit", () => {
  it("the documented default is 1,000", () => {
    expect(MAX_TOOL_USES_PER_TURN).toBe(1_000);
  });

  it("runTurn: the first calls run, every later one gets its own error and never runs", async () => {
    await withTempDir(async (dir) => {
      const { tool, ran } = counting();
      const session = createSession({ cwd: dir, tools: [tool], maxToolUsesPerTurn: 5 });
      const results = await session.runTurn(blocks(12));
      await session.close();
      checkResults(results, 12, 5);
      expect(ran.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    });
  });

  it("the agent loop (streamed blocks): the same, and the model gets every result in its order", async () => {
    await withTempDir(async (dir) => {
      const { tool, ran } = counting();
      const session = createSession({ cwd: dir, tools: [tool], sessionDir: join(dir, "s"), maxToolUsesPerTurn: 5 });
      const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      let request = 0;
      const provider: ModelProvider = {
        name: "scripted",
        async *stream(): AsyncGenerator<ModelEvent> {
          yield { type: "message_start", id: `m${request}`, model: "m", usage };
          if (request++ === 0) {
            for (const block of blocks(9)) yield { type: "block", block };
            yield { type: "message_end", stopReason: "tool_use", usage };
          } else {
            yield { type: "block", block: { type: "text", text: "ok" } };
            yield { type: "message_end", stopReason: "end_turn", usage };
          }
        },
      };
      let result;
      for await (const event of runAgent({ session, provider, model: "m", prompt: "go", sessionStart: "none" })) if (event.type === "result") result = event.result;
      await session.close();
      expect(result!.is_error).toBe(false);
      const user = result!.messages[2]!;
      expect(user.role).toBe("user");
      checkResults(user.content as ToolResultBlock[], 9, 5);
      expect(ran.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    });
  });
});
