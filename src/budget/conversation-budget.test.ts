import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHookRunner } from "../hooks/runner.js";
import { runHooks } from "../hooks/runner.js";
import type { ConversationMessage, ToolResultBlock } from "../tool/types.js";
import { withTempDir } from "../../test/helpers.js";
import { COMPACTED_MARKER, ConversationBudget } from "./conversation-budget.js";

let ids = 0;
/** One round: an assistant message with a call, a user message with its result. */
function round(messages: ConversationMessage[], resultChars: number, extra: Partial<ToolResultBlock> = {}): ToolResultBlock {
  const id = `toolu_${ids++}`;
  messages.push({ role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: {} }] });
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: id, content: `${id}:`.padEnd(resultChars, "x"), ...extra };
  messages.push({ role: "user", content: [block] });
  return block;
}

const resultOf = (m: ConversationMessage): ToolResultBlock => (m.content as ToolResultBlock[])[0]!;
const textOf = (b: ToolResultBlock): string => b.content as string;

describe("ConversationBudget (microcompact over the whole conversation)", () => {
  it("leaves a history under budget alone", async () => {
    await withTempDir(async (dir) => {
      const messages: ConversationMessage[] = [];
      for (let i = 0; i < 10; i++) round(messages, 5_000);
      const budget = new ConversationBudget({ sessionDir: dir, budgetChars: 100_000 });
      expect(await budget.apply(messages)).toEqual({ compacted: 0, charsBefore: 50_000, charsAfter: 50_000 });
    });
  });

  it("compacts the oldest large results down to the target, keeps the full text on disk and the recent results intact", async () => {
    await withTempDir(async (dir) => {
      const messages: ConversationMessage[] = [];
      for (let i = 0; i < 12; i++) round(messages, 10_000);
      const budget = new ConversationBudget({ sessionDir: dir, budgetChars: 100_000, targetRatio: 0.5, keepRecentMessages: 2 });
      const original = textOf(resultOf(messages[1]!));
      const report = await budget.apply(messages);
      expect(report.charsBefore).toBe(120_000);
      expect(report.charsAfter).toBeLessThanOrEqual(50_000);
      expect(report.compacted).toBeGreaterThanOrEqual(7);
      const first = textOf(resultOf(messages[1]!));
      expect(first.startsWith(COMPACTED_MARKER)).toBe(true);
      const path = /kept in (\S+);/.exec(first)![1]!;
      expect(readFileSync(path, "utf8")).toBe(original);
      // Compacted from the oldest: a prefix of the results, never one in the middle.
      const flags = messages.filter((m) => m.role === "user").map((m) => textOf(resultOf(m)).startsWith(COMPACTED_MARKER));
      expect(flags).toEqual([...Array(report.compacted).fill(true), ...Array(12 - report.compacted).fill(false)]);
      expect(flags.slice(-2)).toEqual([false, false]);
      expect(budget.usedChars).toBe(report.charsAfter);
    });
  });

  it("works incrementally and compacts in large steps (seldom), not every round", async () => {
    await withTempDir(async (dir) => {
      const messages: ConversationMessage[] = [];
      const budget = new ConversationBudget({ sessionDir: dir, budgetChars: 50_000 });
      let compactions = 0;
      for (let i = 0; i < 100; i++) {
        round(messages, 5_000);
        const r = await budget.apply(messages);
        if (r.compacted > 0) compactions++;
        expect(budget.usedChars).toBeLessThanOrEqual(55_000);
      }
      expect(compactions).toBeGreaterThan(3);
      expect(compactions).toBeLessThan(40);
    });
  });

  it("skips small results, errors, and what the pipeline already persisted is pointed at, not written again", async () => {
    await withTempDir(async (dir) => {
      const messages: ConversationMessage[] = [];
      round(messages, 500);
      round(messages, 30_000, { is_error: true });
      const persisted = round(messages, 0);
      persisted.content = `<persisted-output>\nOutput too large (1.0 MB). Full output saved to: /elsewhere/toolu_p.txt\nUse Read…\n\n${"p".repeat(2_000)}\n</persisted-output>`;
      for (let i = 0; i < 5; i++) round(messages, 20_000);
      const budget = new ConversationBudget({ sessionDir: dir, budgetChars: 60_000, keepRecentMessages: 1 });
      await budget.apply(messages);
      expect(textOf(resultOf(messages[1]!)).length).toBe(500);
      expect(resultOf(messages[3]!).is_error).toBe(true);
      expect(textOf(resultOf(messages[3]!)).startsWith(COMPACTED_MARKER)).toBe(false);
      expect(textOf(resultOf(messages[5]!))).toContain("kept in /elsewhere/toolu_p.txt");
    });
  });

  it("a PreCompact hook runs before a compaction, and one that blocks stops it", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "precompact.log");
      const allowHook = join(dir, "log.sh");
      writeFileSync(allowHook, `#!/usr/bin/env bash\ncat >> ${log}\necho >> ${log}\n`);
      const blockHook = join(dir, "block.sh");
      writeFileSync(blockHook, `#!/usr/bin/env bash\ncat > /dev/null\necho "not now" >&2\nexit 2\n`);
      chmodSync(allowHook, 0o755);
      chmodSync(blockHook, 0o755);
      const gate = (script: string) => {
        const hooks = createHookRunner([{ source: "test", config: { PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: script }] }] } }], { projectDir: dir });
        return async () => {
          const out = await runHooks(hooks, "PreCompact", { session_id: "s", transcript_path: join(dir, "t.jsonl"), cwd: dir, trigger: "auto", custom_instructions: "" });
          return out.blockReason === undefined;
        };
      };
      const make = (): ConversationMessage[] => {
        const m: ConversationMessage[] = [];
        for (let i = 0; i < 8; i++) round(m, 10_000);
        return m;
      };
      const blocked = await new ConversationBudget({ sessionDir: dir, budgetChars: 50_000, beforeCompact: gate(blockHook) }).apply(make());
      expect(blocked.compacted).toBe(0);
      const done = await new ConversationBudget({ sessionDir: dir, budgetChars: 50_000, beforeCompact: gate(allowHook) }).apply(make());
      expect(done.compacted).toBeGreaterThan(0);
      expect(JSON.parse(readFileSync(log, "utf8").trim())).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto" });
    });
  });
});
