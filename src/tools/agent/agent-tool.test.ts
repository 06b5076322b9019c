import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgent } from "../../agent/run-agent.js";
import type { AgentEvent, AgentResult } from "../../agent/types.js";
import { createHookRunner } from "../../hooks/runner.js";
import { AnthropicProvider } from "../../providers/anthropic.js";
import { createSession, type Session } from "../../session/session.js";
import type { Tool } from "../../tool/types.js";
import { anthropicReply, startMockModelServer, type MockModelServer, type RecordedRequest, type ScriptedResponse } from "../../../test/mock-model-server.js";
import { withTempDir } from "../../../test/helpers.js";
import { builtinTools } from "../index.js";
import { loadAgentDefinitions, parseAgentFile } from "./agent-types.js";
import { createAgentTool } from "./agent-tool.js";

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;
const systemOf = (r: RecordedRequest): string => JSON.stringify(r.body.system ?? "");
const isChild = (r: RecordedRequest): boolean => systemOf(r).includes("sub-agent");
const lastContent = (r: RecordedRequest): Json[] => {
  const msgs = r.body.messages as Array<{ content: Json[] | string }>;
  const c = msgs.at(-1)!.content;
  return typeof c === "string" ? [{ type: "text", text: c }] : c;
};

/** Parent and child requests share one server: route each to its own queue. */
function routed(parent: ScriptedResponse[], child: ScriptedResponse[]) {
  return (r: RecordedRequest): ScriptedResponse => (isChild(r) ? child : parent).shift() ?? { status: 500, body: "{}" };
}

async function drive(session: Session, prompt: string): Promise<{ events: AgentEvent[]; result: AgentResult }> {
  const provider = new AnthropicProvider({ baseURL: server!.url, apiKey: "k", maxRetries: 0 });
  const events: AgentEvent[] = [];
  const it = runAgent({ session, provider, model: "claude-mock", prompt, system: "MAIN" });
  for (;;) {
    const next = await it.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

function sessionWith(dir: string, tools: Tool[], extra: Parameters<typeof createSession>[0] extends infer O ? Partial<O> : never = {}) {
  return createSession({ cwd: dir, tools, sessionDir: join(dir, ".session"), ...extra });
}

describe("Agent: sub-agents through runAgent against a scripted model", () => {
  it("runs an Explore child with its own read-only tools and conversation, and hands back its report", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.ts"), "export const a = 1;\n");
      await writeFile(join(dir, "b.ts"), "export const b = 2;\n");
      const parent = [
        anthropicReply([{ type: "tool_use", id: "toolu_agent", name: "Agent", input: { description: "Count ts files", prompt: "How many .ts files are there?", subagent_type: "Explore" } }]),
        anthropicReply([{ type: "text", text: "There are 2." }]),
      ];
      const child = [
        anthropicReply([{ type: "tool_use", id: "toolu_glob", name: "Glob", input: { pattern: "*.ts" } }]),
        anthropicReply([{ type: "text", text: "REPORT: 2 files.\nThey are a.ts and b.ts." }], { usage: { input_tokens: 50, output_tokens: 5 } }),
      ];
      server = await startMockModelServer(Array.from({ length: 4 }, () => routed(parent, child)));
      const session = sessionWith(dir, builtinTools({ subagents: {} }));
      const { result } = await drive(session, "count files");
      await session.close();
      expect(result.text).toBe("There are 2.");

      const childRequests = server.requests.filter(isChild);
      expect(childRequests).toHaveLength(2);
      const childTools = (childRequests[0]!.body.tools as Json[]).map((t) => t.name);
      expect(childTools).toEqual(expect.arrayContaining(["Glob", "Grep", "Read", "Bash"]));
      for (const name of ["Write", "Edit", "Agent", "TodoWrite", "AskUserQuestion"]) expect(childTools).not.toContain(name);
      // The child's conversation starts with the prompt alone: none of the parent's history.
      expect((childRequests[0]!.body.messages as unknown[]).length).toBe(1);
      expect(systemOf(childRequests[0]!)).toContain("Explore sub-agent");

      const handedBack = lastContent(server.requests.filter((r) => !isChild(r))[1]!)[0]!;
      expect(handedBack.tool_use_id).toBe("toolu_agent");
      const text = (handedBack.content as Json[])[0]!.text as string;
      expect(text).toMatch(/^ {2}<tools-used-before-summary>Glob<\/tools-used-before-summary>\n\n\[Subagent hand-back\]/);
      expect(text).toContain("\n  REPORT: 2 files.\n  They are a.ts and b.ts.\nagentId: a");
      expect(text).toMatch(/<usage>subagent_tokens: 165\ntool_uses: 1\nduration_ms: \d+<\/usage>$/);
    });
  });

  it("an Explore child cannot change anything: it runs in plan mode", async () => {
    await withTempDir(async (dir) => {
      const parent = [
        anthropicReply([{ type: "tool_use", id: "toolu_agent", name: "Agent", input: { description: "try", prompt: "touch a file", subagent_type: "Explore" } }]),
        anthropicReply([{ type: "text", text: "ok" }]),
      ];
      const child = [
        anthropicReply([{ type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "touch pwned" } }]),
        anthropicReply([{ type: "text", text: "could not" }]),
      ];
      server = await startMockModelServer(Array.from({ length: 4 }, () => routed(parent, child)));
      const session = sessionWith(dir, builtinTools({ subagents: {} }), { permissionMode: "bypassPermissions" });
      await drive(session, "go");
      await session.close();
      const bashResult = lastContent(server.requests.filter(isChild)[1]!)[0]!;
      expect(bashResult.is_error).toBe(true);
      expect(String(bashResult.content)).toContain("plan mode");
      await expect(readFile(join(dir, "pwned"))).rejects.toThrow();
    });
  });

  it("a background agent returns at once; its report arrives as a notification before the loop ends", async () => {
    await withTempDir(async (dir) => {
      const parent = [
        anthropicReply([{ type: "tool_use", id: "toolu_bg", name: "Agent", input: { description: "Read a.txt", prompt: "first line of a.txt?", run_in_background: true } }]),
        anthropicReply([{ type: "text", text: "Started it; waiting." }]),
        anthropicReply([{ type: "text", text: "The first line is alpha." }]),
      ];
      const child = [anthropicReply([{ type: "text", text: "B-REPORT: first line is alpha." }])];
      server = await startMockModelServer(Array.from({ length: 4 }, () => routed(parent, child)));
      const session = sessionWith(dir, builtinTools({ subagents: {} }));
      const { result } = await drive(session, "go");
      await session.close();
      expect(result.text).toBe("The first line is alpha.");
      const parentRequests = server.requests.filter((r) => !isChild(r));
      const launched = lastContent(parentRequests[1]!)[0]!;
      expect(String(launched.content)).toMatch(/^Async agent launched successfully\./);
      const notified = lastContent(parentRequests[2]!).map((b) => b.text).join("\n");
      expect(notified).toContain("<task-notification>");
      expect(notified).toContain("<status>completed</status>");
      expect(notified).toContain("<result>B-REPORT: first line is alpha.</result>");
    });
  });

  it("TaskStop stops a background agent", async () => {
    await withTempDir(async (dir) => {
      const parent = [
        anthropicReply([{ type: "tool_use", id: "toolu_bg", name: "Agent", input: { description: "slow", prompt: "work", run_in_background: true } }]),
        (r: RecordedRequest) => {
          const id = /agentId: (a[0-9a-f]+)/.exec(String(lastContent(r)[0]!.content))![1]!;
          return anthropicReply([{ type: "tool_use", id: "toolu_stop", name: "TaskStop", input: { task_id: id } }]);
        },
        anthropicReply([{ type: "text", text: "stopped" }]),
      ];
      // The child's request hangs until it is aborted.
      const child: ScriptedResponse[] = [{ ...anthropicReply([{ type: "text", text: "working on it" }], { noStop: true }), hang: true }];
      const router = (r: RecordedRequest): ScriptedResponse => {
        if (isChild(r)) return child.shift() ?? { status: 500, body: "{}" };
        const next = parent.shift() ?? { status: 500, body: "{}" };
        return typeof next === "function" ? next(r) : next;
      };
      server = await startMockModelServer(Array.from({ length: 4 }, () => router));
      const session = sessionWith(dir, builtinTools({ subagents: {} }), { allow: ["TaskStop"] });
      const { result } = await drive(session, "go");
      await session.close();
      expect(result.text).toBe("stopped");
      const stopResult = lastContent(server.requests.filter((r) => !isChild(r))[2]!)[0]!;
      expect(String(stopResult.content)).toContain("Successfully stopped task");
    });
  }, 20_000);

  it("unknown types and nesting past the limit are errors the model can act on", async () => {
    await withTempDir(async (dir) => {
      const parent = [
        anthropicReply([{ type: "tool_use", id: "t1", name: "Agent", input: { description: "x", prompt: "y", subagent_type: "no-such-agent" } }]),
        anthropicReply([{ type: "text", text: "fine" }]),
      ];
      server = await startMockModelServer(Array.from({ length: 2 }, () => routed(parent, [])));
      const session = sessionWith(dir, builtinTools({ subagents: { maxDepth: 0 } }));
      await drive(session, "go");
      await session.close();
      const r = lastContent(server.requests[1]!)[0]!;
      expect(r.is_error).toBe(true);
      expect(String(r.content)).toContain("Agent type 'no-such-agent' not found. Available agents: Explore, general-purpose");
    });
  });

  it("user-defined types come from agent files; SubagentStart adds context and SubagentStop can send the child back to work", async () => {
    await withTempDir(async (dir) => {
      const agentsDir = join(dir, ".armature", "agents");
      await mkdir(agentsDir, { recursive: true });
      await writeFile(join(agentsDir, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: inherit\n---\nYou review code. Be terse.\n");
      const { agents, errors } = await loadAgentDefinitions([agentsDir]);
      expect(errors).toEqual([]);
      const log = join(dir, "hooks.log");
      const hooks = createHookRunner(
        [{
          source: "test",
          config: {
            SubagentStart: [{ matcher: "reviewer", hooks: [{ type: "command", command: `cat >> ${log}; echo >> ${log}; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"START-CONTEXT"}}'` }] }],
            SubagentStop: [{ hooks: [{ type: "command", command: `input=$(cat); echo "$input" >> ${log}; case "$input" in *'"stop_hook_active":false'*) echo "add a summary line" >&2; exit 2;; esac` }] }],
          },
        }],
        { projectDir: dir },
      );
      const parent = [
        anthropicReply([{ type: "tool_use", id: "t1", name: "Agent", input: { description: "review", prompt: "review a.ts", subagent_type: "reviewer" } }]),
        anthropicReply([{ type: "text", text: "reviewed" }]),
      ];
      const child = [anthropicReply([{ type: "text", text: "LGTM" }]), anthropicReply([{ type: "text", text: "LGTM\nSummary: fine." }])];
      server = await startMockModelServer(Array.from({ length: 4 }, () => routed(parent, child)));
      const session = sessionWith(dir, builtinTools({ subagents: { agents, hooks } }));
      await drive(session, "go");
      await session.close();
      const childRequests = server.requests.filter(isChild);
      expect((childRequests[0]!.body.tools as Json[]).map((t) => t.name).sort()).toEqual(["Grep", "Read"]);
      expect(systemOf(childRequests[0]!)).toContain("You review code. Be terse.");
      expect(JSON.stringify(childRequests[0]!.body.messages)).toContain("START-CONTEXT");
      expect(JSON.stringify(childRequests[1]!.body.messages)).toContain("SubagentStop hook feedback:\\nadd a summary line");
      const report = ((lastContent(server.requests.filter((r) => !isChild(r))[1]!)[0]!.content as Json[])[0]!.text as string);
      expect(report).toContain("  LGTM\n  Summary: fine.");
      const logged = (await readFile(log, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Json);
      expect(logged.map((e) => e.hook_event_name)).toEqual(["SubagentStart", "SubagentStop", "SubagentStop"]);
      expect(logged[0]).toMatchObject({ agent_type: "reviewer" });
    });
  });
});

describe("agent files", () => {
  it.each([
    ["no front matter", "just text", /no front matter/],
    ["no name", "---\ndescription: x\n---\nhi", /no name/],
    ["bad name", "---\nname: ../evil\ndescription: x\n---\nhi", /must be letters/],
    ["no description", "---\nname: x\n---\nhi", /no description/],
    ["front matter that is not YAML", "---\nname: x\ndescription: [unclosed\n---\nhi", /not valid YAML/],
  ])("%s is refused with a reason", async (_what, text, reason) => {
    await expect(parseAgentFile(text, "f.md")).rejects.toThrow(reason);
  });

  it("reads YAML lists, quoted values and `*` tools", async () => {
    expect((await parseAgentFile("---\nname: 'a'\ndescription: \"d\"\ntools:\n  - Read\n  - Grep\n---\nP", "f")).tools).toEqual(["Read", "Grep"]);
    expect((await parseAgentFile("---\nname: a\ndescription: d\ntools: [Read, Bash]\n---\nP", "f")).tools).toEqual(["Read", "Bash"]);
    expect((await parseAgentFile("---\nname: a\ndescription: d\ntools: '*'\n---\nP", "f")).tools).toBeUndefined();
  });

  it("reads the front matter as YAML: folded and literal blocks, comments, a description with a colon", async () => {
    const folded = await parseAgentFile("---\nname: reviewer # the short name\ndescription: >-\n  Reviews a diff\n  for mistakes.\ntools: Read, Grep\n---\nPrompt", "f");
    expect(folded).toMatchObject({ name: "reviewer", description: "Reviews a diff for mistakes.", tools: ["Read", "Grep"], systemPrompt: "Prompt" });
    const literal = await parseAgentFile("---\nname: a\ndescription: |\n  Line one\n  Line two\n---\nP", "f");
    expect(literal.description).toBe("Line one\nLine two");
    const colon = await parseAgentFile("---\nname: a\ndescription: Use when: the tests fail\n---\nP", "f");
    expect(colon.description).toBe("Use when: the tests fail");
  });

  it("a broken file is reported and the others still load", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "good.md"), "---\nname: good\ndescription: d\n---\nP");
      await writeFile(join(dir, "bad.md"), "nothing");
      const { agents, errors } = await loadAgentDefinitions([dir, join(dir, "missing")]);
      expect(agents.map((a) => a.name)).toEqual(["good"]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain("bad.md");
    });
  });

  it("Explore agents are concurrency-safe and read-only; general-purpose ones are neither", () => {
    const tool = createAgentTool();
    expect(tool.isConcurrencySafe({ description: "d", prompt: "p", subagent_type: "Explore" })).toBe(true);
    expect(tool.isReadOnly({ description: "d", prompt: "p" })).toBe(false);
  });
});
