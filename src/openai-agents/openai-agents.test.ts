// armature/openai-agents with the Agents SDK's own Runner and a scripted model (the SDK's Model
// interface, answering from a script): calls that would ask interrupt the run, approve/reject on
// the run state decide them, the resumed run executes only what a person approved. Real files.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as agents from "@openai/agents";
import { Agent, Runner, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { notesFinderTool, withTempDir } from "../../test/helpers.js";
import { createSession } from "../session/session.js";
import { builtinTools } from "../tools/index.js";
import { agentsTools } from "./index.js";

/** A Model answering turn n with script[n]: function calls, or a final message. */
function scriptedModel(script: Array<Array<{ callId: string; name: string; input: unknown }> | string>) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    async getResponse(request): Promise<ModelResponse> {
      requests.push(request);
      const step = script[Math.min(requests.length - 1, script.length - 1)]!;
      return {
        usage: new Usage(),
        output:
          typeof step === "string"
            ? [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: step }] }]
            : step.map((c) => ({ type: "function_call" as const, callId: c.callId, name: c.name, arguments: JSON.stringify(c.input), status: "completed" as const })),
      };
    },
    getStreamedResponse() {
      throw new Error("not scripted");
    },
  };
  const toolNames = (n: number) => requests[n]!.tools.map((t) => (t as { name?: string }).name);
  return { model, requests, toolNames };
}

describe("armature/openai-agents with the Agents SDK's Runner", () => {
  it("runs against the Agents SDK its test project names (0.20 here, 0.14 in previous-peers)", () => {
    // ModelTimeoutError is new since 0.14.
    expect("ModelTimeoutError" in agents).toBe(process.env.ARMATURE_TEST_PEERS !== "previous");
  });

  it("interrupts for calls that would ask; approve runs one, reject leaves the other undone; denied and allowed calls never ask", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default", deny: ["Edit(./secret.txt)"] });
      const { model, requests } = scriptedModel([
        [
          { callId: "w1", name: "Write", input: { file_path: join(dir, "yes.txt"), content: "approved\n" } },
          { callId: "w2", name: "Write", input: { file_path: join(dir, "no.txt"), content: "declined\n" } },
          { callId: "w3", name: "Write", input: { file_path: join(dir, "secret.txt"), content: "x" } },
          { callId: "g1", name: "Glob", input: { pattern: "*.txt" } },
        ],
        "done",
      ]);
      const agent = new Agent({ name: "coder", instructions: "write", model, tools: await agentsTools(session) });
      const runner = new Runner({ tracingDisabled: true });
      const first = await runner.run(agent, "write them");
      const callId = (item: (typeof first.interruptions)[number]) => ("callId" in item.rawItem ? item.rawItem.callId : undefined);
      expect(first.interruptions.map(callId).sort()).toEqual(["w1", "w2"]);
      await expect(readFile(join(dir, "yes.txt"), "utf8")).rejects.toThrow();
      for (const item of first.interruptions) {
        if (callId(item) === "w1") first.state.approve(item);
        else first.state.reject(item);
      }
      const second = await runner.run(agent, first.state);
      await session.close();
      expect(second.finalOutput).toBe("done");
      expect(await readFile(join(dir, "yes.txt"), "utf8")).toBe("approved\n");
      await expect(readFile(join(dir, "no.txt"), "utf8")).rejects.toThrow();
      await expect(readFile(join(dir, "secret.txt"), "utf8")).rejects.toThrow();
      // What the model read back: the denial for w3 (armature's reason), a result for w1 and g1.
      const sent = JSON.stringify(requests.at(-1)!.input);
      expect(sent).toMatch(/Permission to use Write was denied/);
      expect(sent).toContain("yes.txt");
    });
  });

  it("a call that was never put to a person is not approved by running it (no canUseTool: denied)", async () => {
    await withTempDir(async (dir) => {
      const session = createSession({ cwd: dir, tools: builtinTools(), permissionMode: "default" });
      const { model } = scriptedModel([[{ callId: "w1", name: "Write", input: { file_path: join(dir, "x.txt"), content: "x" } }], "done"]);
      const agent = new Agent({ name: "coder", instructions: "write", model, tools: await agentsTools(session, { approvals: "session" }) });
      const result = await new Runner({ tracingDisabled: true }).run(agent, "write");
      await session.close();
      expect(result.interruptions).toEqual([]);
      expect(JSON.stringify(result.newItems.filter((i) => i.type === "tool_call_output_item").map((i) => i.output))).toMatch(/cannot ask for approval/);
      await expect(readFile(join(dir, "x.txt"), "utf8")).rejects.toThrow();
    });
  });

  it("sends every tool in full, deferred ones included, and no ToolSearch", async () => {
    await withTempDir(async (dir) => {
      const remote = notesFinderTool();
      const session = createSession({ cwd: dir, tools: [...builtinTools(), remote], toolSearch: "true" });
      const { model, requests, toolNames } = scriptedModel([[{ callId: "n1", name: "mcp__notes__find", input: { q: "tea" } }], "done"]);
      const agent = new Agent({ name: "notes", instructions: "find", model, tools: await agentsTools(session) });
      const result = await new Runner({ tracingDisabled: true }).run(agent, "find tea");
      await session.close();
      const names = toolNames(0);
      expect(names).toContain("mcp__notes__find");
      expect(names).not.toContain("ToolSearch");
      expect(result.finalOutput).toBe("done");
      expect(JSON.stringify(requests.at(-1)!.input)).toContain("note about tea");
    });
  });
});
