import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, startMockModelServer, type MockModelServer } from "../mock-model-server.js";
import { runQuery, sdkEnv, sdkWorkspace } from "./sdk-helpers.js";

let server: MockModelServer | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.close();
  await cleanup?.();
  server = undefined;
  cleanup = undefined;
});

describe("the Agent SDK's query() on armature", () => {
  it("one-shot: a Read call and a final answer, with the reference's message shapes", async () => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    await writeFile(join(ws.cwd, "notes.txt"), "alpha\nbeta\n");
    server = await startMockModelServer([
      anthropicReply([{ type: "text", text: "Reading." }, { type: "tool_use", id: "toolu_r1", name: "Read", input: { file_path: join(ws.cwd, "notes.txt") } }]),
      anthropicReply([{ type: "text", text: "It says alpha and beta." }], { model: "claude-sonnet-4-5" }),
    ]);
    const run = await runQuery("What is in notes.txt?", {
      cwd: ws.cwd,
      model: "claude-sonnet-4-5",
      env: sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" }),
    });
    expect(run.error, run.stderr).toBeUndefined();
    const kinds = run.messages.map((m) => ("subtype" in m && m.subtype ? `${m.type}/${m.subtype}` : m.type));
    expect(kinds[0]).toBe("system/init");
    expect(kinds.at(-1)).toBe("result/success");
    const init = run.messages[0] as Extract<(typeof run.messages)[number], { type: "system" }> & { tools: string[]; model: string; cwd: string };
    expect(init.tools).toContain("Read");
    expect(init.model).toBe("claude-sonnet-4-5");
    const toolResult = run.messages.find((m) => m.type === "user");
    expect(JSON.stringify(toolResult)).toContain("alpha");
    expect(run.result).toMatchObject({ subtype: "success", is_error: false, result: "It says alpha and beta.", num_turns: 2 });
    // Sonnet 4.5: $3 / $15 per million; two requests of 100 in + 10 out.
    expect(run.result!.total_cost_usd).toBeCloseTo((200 * 3 + 20 * 15) / 1e6, 10);
    expect(server.requests).toHaveLength(2);
    expect(await readFile(join(ws.cwd, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("tool_use_result carries each tool's structured output in the reference's shapes", async () => {
    const ws = await sdkWorkspace();
    cleanup = ws.cleanup;
    const file = join(ws.cwd, "a.txt");
    await writeFile(file, "one\ntwo\n");
    server = await startMockModelServer([
      anthropicReply([
        { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: file } },
        { type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "echo hi" } },
      ]),
      anthropicReply([{ type: "tool_use", id: "toolu_edit", name: "Edit", input: { file_path: file, old_string: "two", new_string: "TWO" } }]),
      anthropicReply([{ type: "tool_use", id: "toolu_todo", name: "TodoWrite", input: { todos: [{ content: "ship it", status: "pending", activeForm: "Shipping it" }] } }]),
      anthropicReply([{ type: "text", text: "done" }]),
    ]);
    const run = await runQuery("work", {
      cwd: ws.cwd,
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      env: sdkEnv(ws.home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "test-key" }),
    });
    expect(run.error, run.stderr).toBeUndefined();
    const byId = new Map<string, unknown>();
    for (const m of run.messages) {
      if (m.type !== "user") continue;
      const content = m.message.content as Array<{ tool_use_id?: string }>;
      byId.set(content[0]?.tool_use_id ?? "", (m as { tool_use_result?: unknown }).tool_use_result);
    }
    expect(byId.get("toolu_read")).toEqual({ type: "text", file: { filePath: file, content: "one\ntwo\n", numLines: 3, startLine: 1, totalLines: 3 } });
    expect(byId.get("toolu_bash")).toEqual({ stdout: "hi", stderr: "", interrupted: false, isImage: false, noOutputExpected: false });
    expect(byId.get("toolu_edit")).toMatchObject({ filePath: file, oldString: "two", newString: "TWO", originalFile: "one\ntwo\n", replaceAll: false, userModified: false });
    expect((byId.get("toolu_edit") as { structuredPatch: unknown[] }).structuredPatch.length).toBeGreaterThan(0);
    expect(byId.get("toolu_todo")).toMatchObject({ oldTodos: [], newTodos: [{ content: "ship it", status: "pending", activeForm: "Shipping it" }] });
    expect(await readFile(file, "utf8")).toBe("one\nTWO\n");
  });
});
