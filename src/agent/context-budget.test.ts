import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMPACTED_MARKER } from "../budget/conversation-budget.js";
import { AnthropicProvider } from "../providers/anthropic.js";
import { createSession } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { withTempDir } from "../../test/helpers.js";
import { runAgentToEnd } from "./run-agent.js";

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("runAgent keeps the conversation within its context budget", () => {
  it("old large results are replaced by a placeholder in later requests; the file keeps them whole", async () => {
    await withTempDir(async (dir) => {
      for (const n of [1, 2, 3, 4]) await writeFile(join(dir, `f${n}.txt`), `${`file ${n} `.repeat(400)}\n`);
      server = await startMockModelServer([
        ...[1, 2, 3, 4].map((n) => anthropicReply([{ type: "tool_use", id: `toolu_${n}`, name: "Read", input: { file_path: join(dir, `f${n}.txt`) } }])),
        anthropicReply([{ type: "text", text: "done" }]),
      ]);
      const session = createSession({ cwd: dir, tools: builtinTools(), sessionDir: join(dir, ".s") });
      const result = await runAgentToEnd({
        session,
        provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }),
        model: "m",
        prompt: "read them",
        contextBudgetChars: 8_000,
      });
      await session.close();
      expect(result.text).toBe("done");
      const last = server.requests.at(-1)!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> | string }>;
      const results = last.filter((m) => m.role === "user" && Array.isArray(m.content)).flatMap((m) => m.content as Array<Record<string, unknown>>).filter((b) => b.type === "tool_result");
      const texts = results.map((b) => String(b.content));
      expect(texts[0]!.startsWith(COMPACTED_MARKER)).toBe(true);
      expect(texts.at(-1)).toContain("file 4");
      // The first request that went over budget saw the oldest result whole.
      const second = JSON.stringify(server.requests[1]!.body.messages);
      expect(second).toContain("file 1 file 1");
    });
  });
});
