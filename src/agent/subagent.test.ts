// A sub-agent loop built from the pieces the Agent tool uses: createSubagentContext, the
// session's pipeline services and the loop's model, found through the context.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { withTempDir } from "../../test/helpers.js";
import { AnthropicProvider } from "../providers/anthropic.js";
import { createSession } from "../session/session.js";
import { buildTool } from "../tool/build-tool.js";
import { createSubagentContext } from "../tool/context.js";
import { builtinTools } from "../tools/index.js";
import { agentModelOf, createContextRunner, pipelineServicesOf } from "./context-runner.js";
import { runAgentToEnd } from "./run-agent.js";

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const delegate = buildTool({
  name: "Delegate",
  description: "Runs a sub-agent.",
  inputSchema: z.object({ prompt: z.string() }),
  async call(input, context) {
    const services = pipelineServicesOf(context)!;
    const { provider, model } = agentModelOf(context)!;
    const child = createSubagentContext(context, { tools: context.options.tools.filter((t) => t.name !== "Delegate") });
    const result = await runAgentToEnd({
      session: createContextRunner(child, services),
      provider,
      model,
      prompt: input.prompt,
      system: "You are a sub-agent.",
      sessionStart: "none",
      sessionEnd: false,
      transcriptPath: join(context.session.dir, `agent-${child.agent.agentId}.jsonl`),
      signal: context.abortController.signal,
    });
    return { data: `${result.text} (${result.num_turns} turns)` };
  },
});

describe("a sub-agent loop inside a tool call", () => {
  it("runs its own conversation through the parent's pipeline and hands back its text", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\n");
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "p1", name: "Delegate", input: { prompt: "Read a.txt and report its first line." } }]),
        anthropicReply([{ type: "tool_use", id: "c1", name: "Read", input: { file_path: join(dir, "a.txt") } }]),
        anthropicReply([{ type: "text", text: "first line is alpha" }]),
        anthropicReply([{ type: "text", text: "The sub-agent says: alpha." }]),
      ]);
      const session = createSession({ cwd: dir, tools: [...builtinTools(), delegate], sessionDir: join(dir, "s"), deny: ["Bash"], allow: ["Delegate"] });
      const result = await runAgentToEnd({ session, provider: new AnthropicProvider({ baseURL: server.url, apiKey: "k" }), model: "m", prompt: "delegate it", system: "parent" });
      await session.close();
      expect(result).toMatchObject({ subtype: "success", text: "The sub-agent says: alpha.", num_turns: 2 });
      const [, childFirst, childSecond, parentLast] = server.requests.map((r) => r.body);
      expect(childFirst!.system).toEqual([{ type: "text", text: "You are a sub-agent.", cache_control: { type: "ephemeral" } }]);
      expect(childFirst!.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Read a.txt and report its first line.", cache_control: { type: "ephemeral" } }] }]);
      const childTools = (childFirst!.tools as Array<{ name: string }>).map((t) => t.name);
      expect(childTools).not.toContain("Delegate");
      expect(childTools).not.toContain("Bash"); // the parent's deny rule holds in the child
      expect(JSON.stringify(childSecond!.messages)).toContain("alpha");
      const handBack = (parentLast!.messages as Array<{ content: Array<{ content: string }> }>).at(-1)!.content[0]!;
      expect(handBack.content).toBe("first line is alpha (2 turns)");
    });
  });
});
