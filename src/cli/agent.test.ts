import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicReply, apiError, chatReply, startMockModelServer, type MockModelServer } from "../../test/mock-model-server.js";
import { captureIO, useTestApiKey, withTempDir } from "../../test/helpers.js";
import { projectSessionsDir } from "../session/session-home.js";
import { splitToolRules } from "./agent.js";
import { main } from "./main.js";

let server: MockModelServer | undefined;
useTestApiKey();
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What a consumer written for the reference agent's stream-json reads: the event kinds, each
 * assistant event's single block, each user event's single tool_result, and the final result.
 */
function readStreamJson(text: string): { kinds: string[]; blocks: string[]; results: Array<[string, boolean]>; final: Json } {
  const events = text.trim().split("\n").map((l) => JSON.parse(l) as Json);
  const kinds: string[] = [];
  const blocks: string[] = [];
  const results: Array<[string, boolean]> = [];
  for (const e of events) {
    kinds.push(e.subtype ? `${e.type}/${e.subtype}` : e.type);
    if (e.type === "system") expect(typeof e.session_id === "string" && Array.isArray(e.tools) && typeof e.model === "string" && typeof e.cwd === "string").toBe(true);
    if (e.type === "assistant") {
      expect(e.message.content).toHaveLength(1);
      expect(e.message).toMatchObject({ type: "message", role: "assistant", stop_reason: null });
      expect(typeof e.message.id).toBe("string");
      expect(typeof e.message.usage.input_tokens).toBe("number");
      expect(e.parent_tool_use_id).toBeNull();
      const b = e.message.content[0];
      blocks.push(b.type === "tool_use" ? `tool_use:${b.name}:${JSON.stringify(b.input)}` : `${b.type}:${b.text}`);
    }
    if (e.type === "user") {
      expect(e.message.role).toBe("user");
      expect(e.message.content).toHaveLength(1);
      const r = e.message.content[0];
      expect(r.type).toBe("tool_result");
      expect("tool_use_result" in e).toBe(true);
      results.push([typeof r.content === "string" ? r.content : JSON.stringify(r.content), r.is_error === true]);
    }
  }
  const final = events.at(-1)!;
  for (const key of ["is_error", "num_turns", "duration_ms", "usage", "permission_denials", "result", "session_id", "subtype"]) expect(final).toHaveProperty(key);
  expect(typeof final.usage.input_tokens).toBe("number");
  return { kinds, blocks, results, final };
}

describe("armature agent -p", () => {
  it("stream-json: the reference's sample run, replayed, reads the same as the reference's own output", async () => {
    const sample = await readFile(new URL("../../../shared/reference/cc-2.1.332-stream-json-sample.jsonl", import.meta.url), "utf8").catch(() => undefined);
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "notes.txt"), "one\ntwo\nthree\n");
      server = await startMockModelServer([
        anthropicReply([
          { type: "text", text: "I'll read the file and count its lines." },
          { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: join(dir, "notes.txt") } },
          { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "wc -l < notes.txt", description: "Count lines" } },
        ]),
        anthropicReply([{ type: "tool_use", id: "toolu_3", name: "Bash", input: { command: "exit 2", description: "Fail on purpose" } }]),
        anthropicReply([{ type: "text", text: "notes.txt has 3 lines." }]),
      ]);
      const io = captureIO();
      const code = await main(["agent", "-p", "How many lines?", "--output-format", "stream-json", "--verbose", "--base-url", server.url, "--model", "claude-mock", "--cwd", dir, "--permission-mode", "bypassPermissions"], io);
      expect(io.err).toBe("");
      expect(code).toBe(0);
      const ours = readStreamJson(io.out);
      expect(ours.kinds).toEqual(["system/init", "assistant", "assistant", "assistant", "user", "user", "assistant", "user", "assistant", "result/success"]);
      expect(ours.results.map(([, e]) => e)).toEqual([false, false, true]);
      expect(ours.results[1]![0]).toBe("3");
      expect(ours.final).toMatchObject({ is_error: false, num_turns: 4, result: "notes.txt has 3 lines.", permission_denials: [], usage: { input_tokens: 300, output_tokens: 30 } });
      if (sample !== undefined) {
        const theirs = readStreamJson(sample);
        expect(ours.kinds).toEqual(theirs.kinds);
        const normalise = (blocks: string[]) => blocks.map((b) => b.replace(/"file_path":"[^"]*"/, '"file_path":"<notes>"'));
        expect(normalise(ours.blocks)).toEqual(normalise(theirs.blocks));
        expect(ours.results.map(([, e]) => e)).toEqual(theirs.results.map(([, e]) => e));
        expect(ours.final.result).toBe(theirs.final.result);
      }
    });
  });

  it("full Bash outputs: the one a result names stays for later reading, the others are removed when the run ends", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([
          { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo small" } },
          { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "seq 1 40000" } },
        ]),
        anthropicReply([{ type: "text", text: "done" }]),
      ]);
      const sessions = join(dir, "sessions");
      const io = captureIO();
      const code = await main(["agent", "-p", "go", "--output-format", "json", "--base-url", server.url, "--cwd", dir, "--session-dir", sessions, "--permission-mode", "bypassPermissions"], io);
      expect(code).toBe(0);
      const id = (JSON.parse(io.out) as { session_id: string }).session_id;
      const outputs = join(sessions, id, "shell-output");
      const kept = await readdir(outputs);
      expect(kept).toHaveLength(1);
      const conversation = await readFile(join(sessions, `${id}.jsonl`), "utf8");
      expect(conversation).toContain(JSON.stringify(join(outputs, kept[0]!)).slice(1, -1));
      expect((await readFile(join(outputs, kept[0]!), "utf8")).endsWith("39999\n40000\n")).toBe(true);
    });
  });

  it("a call that needs approval is denied, with its reason in the result's permission_denials (json)", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "t1", name: "Bash", input: { command: "rm -rf dist" } }]),
        anthropicReply([{ type: "text", text: "I was not allowed to remove dist." }]),
      ]);
      const io = captureIO();
      const code = await main(["agent", "-p", "remove dist", "--output-format", "json", "--base-url", server.url, "--cwd", dir], io);
      expect(code).toBe(0);
      const result = JSON.parse(io.out) as Json;
      expect(result).toMatchObject({ type: "result", subtype: "success", result: "I was not allowed to remove dist." });
      expect(result.permission_denials).toEqual([expect.objectContaining({ tool_name: "Bash", tool_use_id: "t1", tool_input: { command: "rm -rf dist" } })]);
      expect(result.permission_denials[0].reason).toMatch(/\S/);
    });
  });

  it("--resume restores the session state too: a file read in one run can be edited in the next without reading it again", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "notes.txt");
      await writeFile(file, "alpha\n");
      server = await startMockModelServer([
        anthropicReply([{ type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: file } }]),
        anthropicReply([{ type: "text", text: "Read it." }]),
        anthropicReply([{ type: "tool_use", id: "toolu_edit", name: "Edit", input: { file_path: file, old_string: "alpha", new_string: "beta" } }]),
        anthropicReply([{ type: "text", text: "Edited." }]),
      ]);
      expect(await main(["agent", "-p", "read notes.txt", "--base-url", server.url, "--cwd", dir], captureIO())).toBe(0);
      const { readdir } = await import("node:fs/promises");
      const id = (await readdir(projectSessionsDir(dir))).find((n) => n.endsWith(".jsonl"))!.slice(0, -6);
      const io = captureIO();
      expect(await main(["agent", "-p", "change alpha to beta", "--resume", id, "--mode", "acceptEdits", "--base-url", server.url, "--cwd", dir], io)).toBe(0);
      const editResult = (server.requests[3]!.body.messages as Array<{ content: Json[] }>).at(-1)!.content[0]!;
      expect(editResult.is_error).not.toBe(true);
      expect(await readFile(file, "utf8")).toBe("beta\n");
    });
  });

  it("text output, the prompt from stdin, --disallowedTools hides a tool, --resume and --continue reload the conversation", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([
        anthropicReply([{ type: "text", text: "First answer." }]),
        anthropicReply([{ type: "text", text: "Second answer." }]),
        anthropicReply([{ type: "text", text: "Third answer." }]),
      ]);
      const io = captureIO("first question\n");
      expect(await main(["agent", "--base-url", server.url, "--cwd", dir, "--disallowedTools", "Bash,WebFetch", "--append-system-prompt", "Be terse."], io)).toBe(0);
      expect(io.out).toBe("First answer.\n");
      const first = server.requests[0]!.body;
      expect((first.tools as Json[]).map((t) => t.name)).not.toContain("Bash");
      expect((first.system as Json[])[0]!.text).toMatch(/Working directory: .*\n[\s\S]*Be terse\./);

      const sessions = projectSessionsDir(dir);
      const { readdir } = await import("node:fs/promises");
      const id = (await readdir(sessions)).find((n) => n.endsWith(".jsonl"))!.slice(0, -6);
      const io2 = captureIO();
      expect(await main(["agent", "-p", "second question", "--resume", id, "--base-url", server.url, "--cwd", dir], io2)).toBe(0);
      expect(server.requests[1]!.body.messages).toMatchObject([
        { role: "user", content: "first question" },
        { role: "assistant", content: [{ type: "text", text: "First answer." }] },
        { role: "user", content: [{ type: "text", text: "second question" }] },
      ]);
      const io3 = captureIO();
      expect(await main(["agent", "-p", "third", "-c", "--thinking", "2048", "--base-url", server.url, "--cwd", dir], io3)).toBe(0);
      expect(server.requests[2]!.body.messages as unknown[]).toHaveLength(5);
      expect(server.requests[2]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
      expect(io3.out).toBe("Third answer.\n");
    });
  });

  it("--provider openai with --base-url talks to an OpenAI-compatible server", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([chatReply({ text: "hello from a local model" })]);
      const io = captureIO();
      expect(await main(["agent", "-p", "hi", "--provider", "openai", "--model", "local", "--base-url", `${server.url}/v1`, "--cwd", dir], io)).toBe(0);
      expect(io.out).toBe("hello from a local model\n");
      expect(server.requests[0]!.url).toBe("/v1/chat/completions");
      expect(server.requests[0]!.body.model).toBe("local");
    });
  });

  it("stream-json: the SDK's retries of a failed request are system/api_retry events (Anthropic and OpenAI)", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([apiError(529, "overloaded"), apiError(429, "slow down"), anthropicReply([{ type: "text", text: "third time" }])]);
      const io = captureIO();
      expect(await main(["agent", "-p", "hi", "--output-format", "stream-json", "--base-url", server.url, "--cwd", dir], io), io.err).toBe(0);
      const events = io.out.trim().split("\n").map((l) => JSON.parse(l) as Json);
      expect(events.filter((e) => e.subtype === "api_retry")).toMatchObject([
        { type: "system", attempt: 1, max_retries: 2, retry_delay_ms: 5, error_status: 529, error: "overloaded" },
        { type: "system", attempt: 2, max_retries: 2, retry_delay_ms: 5, error_status: 429, error: "rate_limit" },
      ]);
      expect(events.findIndex((e) => e.subtype === "api_retry")).toBeLessThan(events.findIndex((e) => e.type === "assistant"));
      expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "third time" });
      await server.close();
      server = await startMockModelServer([apiError(500, "boom"), chatReply({ text: "fine" })]);
      const openai = captureIO();
      expect(await main(["agent", "-p", "hi", "--provider", "openai", "--model", "local", "--base-url", `${server.url}/v1`, "--output-format", "stream-json", "--cwd", dir], openai), openai.err).toBe(0);
      expect(openai.out.trim().split("\n").map((l) => JSON.parse(l) as Json).filter((e) => e.subtype === "api_retry")).toMatchObject([{ attempt: 1, error_status: 500, error: "server_error" }]);
    });
  });

  it("a failing model is an error result and exit code 1; bad flags name the flag", async () => {
    await withTempDir(async (dir) => {
      server = await startMockModelServer([anthropicReply([{ type: "text", text: "x" }], { cutAfterEvents: 3 })]);
      const io = captureIO();
      expect(await main(["agent", "-p", "hi", "--output-format", "json", "--base-url", server.url, "--cwd", dir], io)).toBe(1);
      expect(JSON.parse(io.out)).toMatchObject({ is_error: true, subtype: "error_during_execution" });
      const bad = captureIO();
      expect(await main(["agent", "-p", "hi", "--output-format", "xml"], bad)).toBe(2);
      expect(bad.err).toContain("--output-format");
      const bad2 = captureIO();
      expect(await main(["agent", "-p", "hi", "--provider", "gemini", "--cwd", dir], bad2)).toBe(2);
      expect(bad2.err).toContain("--provider");
      const bad3 = captureIO();
      expect(await main(["agent", "-p", "hi", "--resume", "nope", "--cwd", dir], bad3)).toBe(2);
      expect(bad3.err).toContain("--resume");
      const bad4 = captureIO();
      expect(await main(["agent", "-p", "hi", "--thinking", "lots", "--cwd", dir], bad4)).toBe(2);
      expect(bad4.err).toContain("--thinking");
    });
  });
});

describe("armature agent: the user's folder", () => {
  it("sub-agents and skills come from ARMATURE_CONFIG_DIR (not ~/.armature); init lists them (skills: names, as the reference)", async () => {
    await withTempDir(async (dir) => {
      const config = join(dir, "config");
      const home = join(dir, "home");
      const put = async (path: string, text: string): Promise<void> => {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, text);
      };
      await put(join(config, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews a diff.\n---\nReview it.\n");
      await put(join(config, "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies imports.\n---\nSort them.\n");
      // The default folder of that home: not read while ARMATURE_CONFIG_DIR names another.
      await put(join(home, ".armature", "agents", "stale.md"), "---\nname: stale\ndescription: Should not load.\n---\nNo.\n");
      const project = join(dir, "project");
      await mkdir(project);
      const saved = { config: process.env.ARMATURE_CONFIG_DIR, home: process.env.HOME };
      process.env.ARMATURE_CONFIG_DIR = config;
      process.env.HOME = home;
      try {
        server = await startMockModelServer([anthropicReply([{ type: "text", text: "ok" }])]);
        const io = captureIO();
        const code = await main(["agent", "-p", "hi", "--output-format", "stream-json", "--verbose", "--base-url", server.url, "--model", "claude-mock", "--cwd", project], io);
        expect(io.err).toBe("");
        expect(code).toBe(0);
        const init = JSON.parse(io.out.split("\n")[0]!) as Json;
        expect(init.subtype).toBe("init");
        expect(init.agents).toEqual(["general-purpose", "Explore", "reviewer"]);
        expect(init.skills).toEqual(["tidy"]);
        expect(init.tools).toContain("Skill");
        // The model was told of both.
        const system = JSON.stringify(server.requests[0]!.body.system);
        expect(system).toContain("tidy");
      } finally {
        for (const [key, value] of [["ARMATURE_CONFIG_DIR", saved.config], ["HOME", saved.home]] as const) {
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
        }
      }
    });
  });
});

describe("splitToolRules", () => {
  it.each([
    [["Bash(git log *) Edit,Read"], ["Bash(git log *)", "Edit", "Read"]],
    [["Bash(npm run test:*), WebFetch(domain:example.com)"], ["Bash(npm run test:*)", "WebFetch(domain:example.com)"]],
    [["Read", "Grep"], ["Read", "Grep"]],
    [[""], []],
  ])("%j", (input, expected) => {
    expect(splitToolRules(input)).toEqual(expected);
  });
});
