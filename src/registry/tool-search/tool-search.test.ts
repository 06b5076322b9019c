import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decideDeferredTools, deferredToolsMessage, parseToolSearchMode, ToolSearchModeError } from "../deferral.js";
import { toolJsonSchema } from "../definitions.js";
import { toOpenAIToolMessages } from "../../providers/openai.js";
import { createSession } from "../../session/session.js";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { parseQuery, rankEntries, searchEntry } from "./search.js";

function mcp(name: string, description: string, extra: { searchHint?: string; chars?: number } = {}): Tool {
  return buildTool({
    name,
    description: description + " ".repeat(extra.chars ?? 0),
    searchHint: extra.searchHint,
    inputSchema: z.object({ value: z.string().optional() }),
    isMcp: true,
    mcpServer: name.split("__")[1],
    shouldDefer: true,
    isReadOnly: () => true,
    call: async (input) => ({ data: `ran ${name} ${JSON.stringify(input)}` }),
  }) as unknown as Tool;
}

const builtin = (name: string, shouldDefer = false): Tool =>
  buildTool({ name, description: `${name} tool`, inputSchema: z.object({}), shouldDefer, isReadOnly: () => true, call: async () => ({ data: name }) }) as unknown as Tool;

const POOL = [
  mcp("mcp__github__create_issue", "Create a new issue in a GitHub repository."),
  mcp("mcp__github__list_pull_requests", "List pull requests of a repository."),
  mcp("mcp__slack__send_message", "Send a message to a Slack channel.", { searchHint: "chat post notify" }),
  mcp("mcp__jupyter__run_cell", "Run a notebook cell and return its output."),
  mcp("mcp__web__fetch_page", "Fetch a web page and return it as Markdown."),
  mcp("mcp__web__search", "Search the web."),
];

describe("tool search mode", () => {
  it.each([
    ["true", { kind: "always" }],
    ["1", { kind: "always" }],
    ["false", { kind: "never" }],
    ["auto", { kind: "auto", percent: 10 }],
    ["auto:25", { kind: "auto", percent: 25 }],
    ["AUTO:0", { kind: "auto", percent: 0 }],
  ])("%s", (value, mode) => expect(parseToolSearchMode(value)).toEqual(mode));

  it.each(["maybe", "auto:200", "auto:-1", "auto:x"])("%s is an error naming the value", (value) => {
    expect(() => parseToolSearchMode(value)).toThrow(ToolSearchModeError);
  });

  it("auto defers MCP tools only past the share of the context window; built-in deferrable tools always", () => {
    const small = [builtin("Read"), builtin("Cron", true), ...POOL];
    expect([...decideDeferredTools(small, { mode: { kind: "auto", percent: 10 }, schema: toolJsonSchema })]).toEqual(["Cron"]);
    const big = [...small, mcp("mcp__big__tool", "Big.", { chars: 90_000 })];
    const deferred = decideDeferredTools(big, { mode: { kind: "auto", percent: 10 }, schema: toolJsonSchema });
    expect(deferred.has("mcp__big__tool") && deferred.has("mcp__web__search") && deferred.has("Cron")).toBe(true);
    expect(deferred.has("Read")).toBe(false);
    // A larger window raises the threshold.
    expect(decideDeferredTools(big, { mode: { kind: "auto", percent: 10 }, contextWindowTokens: 1_000_000, schema: toolJsonSchema }).has("mcp__big__tool")).toBe(false);
    expect(decideDeferredTools(small, { mode: { kind: "always" }, schema: toolJsonSchema }).size).toBe(POOL.length + 1);
    expect(decideDeferredTools(big, { mode: { kind: "never" }, schema: toolJsonSchema }).size).toBe(0);
  });
});

describe("ToolSearch ranking", () => {
  const entries = POOL.map((t) => searchEntry(t, t.description(undefined) as string));
  const rank = (q: string, max = 5) => rankEntries(entries, parseQuery(q), max);

  it.each([
    ["github issue", ["mcp__github__create_issue", "mcp__github__list_pull_requests"]],
    ["notebook", ["mcp__jupyter__run_cell"]],
    ["web", ["mcp__web__fetch_page", "mcp__web__search"]],
    ["+slack", ["mcp__slack__send_message"]],
    ["+web fetch", ["mcp__web__fetch_page", "mcp__web__search"]],
    ["notify", ["mcp__slack__send_message"]],
    ["PullRequests", ["mcp__github__list_pull_requests"]],
    ["zzqqxx", []],
  ])("%s", (query, names) => expect(rank(query)).toEqual(names));

  it("max_results caps a keyword search", () => {
    expect(rank("repository message web", 2)).toHaveLength(2);
  });
});

describe("ToolSearch in a session", () => {
  it("loads deferred tools: tool_reference blocks, then the next request carries their schemas", async () => {
    const s = createSession({ cwd: process.cwd(), tools: [builtin("Read")], mcpTools: POOL, toolSearch: "true" });
    try {
      expect((await s.toolDefinitions("anthropic")).map((d) => d.name)).toEqual(["Read", "DeferredToolPlaceholder", "ToolSearch"]);
      expect((await s.toolDefinitions("openai")).map((d) => d.function.name)).toEqual(["Read", "ToolSearch"]);
      expect(s.deferredToolNames()).toEqual(POOL.map((t) => t.name).sort());
      expect(deferredToolsMessage(s.deferredToolNames())).toContain("mcp__web__search");

      const [found, none] = await s.runTurn([
        { type: "tool_use", id: "1", name: "ToolSearch", input: { query: "select:mcp__web__search,MCP__SLACK__SEND_MESSAGE,NoSuch" } },
        { type: "tool_use", id: "2", name: "ToolSearch", input: { query: "select:NoSuch" } },
      ]);
      expect(found!.content).toEqual([
        { type: "tool_reference", tool_name: "mcp__web__search" },
        { type: "tool_reference", tool_name: "mcp__slack__send_message" },
      ]);
      expect(none).toEqual({ type: "tool_result", tool_use_id: "2", content: "No matching deferred tools found" });

      const anthropic = await s.toolDefinitions("anthropic");
      expect(anthropic.map((d) => d.name)).toEqual(["Read", "ToolSearch", "mcp__slack__send_message", "DeferredToolPlaceholder", "mcp__web__search"]);
      expect(anthropic.find((d) => d.name === "mcp__web__search")).toMatchObject({ defer_loading: true, input_schema: { type: "object" } });
      expect((await s.toolDefinitions("openai")).map((d) => d.function.name)).toEqual(["Read", "ToolSearch", "mcp__slack__send_message", "mcp__web__search"]);
      expect(s.deferredToolNames()).not.toContain("mcp__web__search");
      expect(toOpenAIToolMessages([found!])[0]!.content).toBe(
        "Tool loaded: mcp__web__search (its schema is in your tool list now; call it directly)\nTool loaded: mcp__slack__send_message (its schema is in your tool list now; call it directly)",
      );
    } finally {
      await s.close();
    }
  });

  it("a deferred tool called before loading still runs when its input is valid", async () => {
    // An MCP tool runs without approval only under an allow rule (its read-only hint is not one).
    const s = createSession({ cwd: process.cwd(), mcpTools: POOL, toolSearch: "true", allow: ["mcp__web__search"] });
    const [r] = await s.runTurn([{ type: "tool_use", id: "1", name: "mcp__web__search", input: { value: "x" } }]);
    expect(r!.content).toBe('ran mcp__web__search {"value":"x"}');
    await s.close();
  });

  it("with nothing deferred, ToolSearch is not offered", async () => {
    const s = createSession({ cwd: process.cwd(), tools: [builtin("Read")], mcpTools: POOL, toolSearch: "false" });
    expect((await s.toolDefinitions("anthropic")).map((d) => d.name)).toEqual(["Read", ...POOL.map((t) => t.name).sort()]);
    expect(s.deferredToolNames()).toEqual([]);
    await s.close();
  });
});
