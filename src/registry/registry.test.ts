import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildTool } from "../tool/build-tool.js";
import { createToolUseContext } from "../tool/context.js";
import { parseRuleLists } from "../permissions/rule.js";
import { createSession } from "../session/session.js";
import { toolUse } from "../../test/helpers.js";
import { assembleToolPool, getTools, selectBaseTools } from "./pool.js";
import { anthropicToolDefinitions, openAIToolDefinitions } from "./definitions.js";
import { findToolByName } from "./find-tool.js";

const mk = (name: string, extra: Partial<Parameters<typeof buildTool>[0]> = {}) =>
  buildTool({ name, description: `${name} tool`, inputSchema: z.object({ x: z.string().describe("an x"), n: z.number().default(1) }), call: async () => ({ data: name }), ...extra });

describe("buildTool defaults are fail-closed", () => {
  const t = mk("T");
  it.each([
    ["isEnabled", t.isEnabled(), true],
    ["isConcurrencySafe", t.isConcurrencySafe({ x: "", n: 1 }), false],
    ["isReadOnly", t.isReadOnly({ x: "", n: 1 }), false],
    ["isDestructive", t.isDestructive({ x: "", n: 1 }), false],
    ["requiresUserInteraction", t.requiresUserInteraction(), false],
    ["maxResultSizeChars", t.maxResultSizeChars, 50_000],
    ["shouldDefer", t.shouldDefer, false],
  ])("%s", (_name, got, want) => expect(got).toBe(want));

  it("checkPermissions is passthrough and validateInput passes", async () => {
    const ctx = createToolUseContext({ cwd: "/" });
    expect(await t.checkPermissions({ x: "", n: 1 }, ctx)).toEqual({ behavior: "passthrough" });
    expect(await t.validateInput({ x: "", n: 1 }, ctx)).toEqual({ result: true });
  });

  it("maps non-string data to JSON text", () => {
    const j = buildTool({ name: "J", description: "", inputSchema: z.object({}), call: async () => ({ data: { a: 1 } }) });
    expect(j.mapToolResultToToolResultBlockParam({ a: 1 }, "id")).toEqual({ type: "tool_result", tool_use_id: "id", content: '{\n  "a": 1\n}' });
  });
});

describe("assembleToolPool", () => {
  it("built-ins sorted, then MCP sorted; a built-in wins a clash; MCP changes never move built-ins", () => {
    const builtins = [mk("Read"), mk("Bash"), mk("Edit")];
    const names = (ts: { name: string }[]) => ts.map((t) => t.name);
    const a = assembleToolPool(builtins, [mk("mcp__z__b"), mk("mcp__a__c"), mk("Bash", { isMcp: true })]);
    expect(names(a)).toEqual(["Bash", "Edit", "Read", "mcp__a__c", "mcp__z__b"]);
    expect(a[0]!.isMcp).toBe(false);
    const b = assembleToolPool(builtins, [mk("mcp__a__c")]);
    expect(names(b).slice(0, 3)).toEqual(names(a).slice(0, 3));
  });
});

describe("getTools", () => {
  const ctx = (deny: string[], mode: "default" | "plan" = "default") =>
    createToolUseContext({ cwd: "/", permissionMode: mode, rules: parseRuleLists({ deny }, "test") }).permissionContext;
  it("drops disabled tools, tools hidden by the mode, and tools denied outright", () => {
    const tools = [mk("A"), mk("B", { isEnabled: () => false }), mk("C"), mk("mcp__srv__x", { mcpServer: "srv", isMcp: true }), mk("D")];
    const hidden = new Map([["D", ["plan" as const]]]);
    expect(getTools(tools, ctx(["C", "mcp__srv"]), hidden).map((t) => t.name)).toEqual(["A", "D"]);
    expect(getTools(tools, ctx([], "plan"), hidden).map((t) => t.name)).toEqual(["A", "C", "mcp__srv__x"]);
    expect(getTools(tools, ctx(["C(foo)"]), hidden).map((t) => t.name)).toContain("C"); // content rules do not hide a tool
  });

  it("selectBaseTools honours feature flags", () => {
    const regs = [{ tool: mk("A") }, { tool: mk("B"), feature: "b" }, { tool: mk("C"), feature: "c", defaultOn: false }];
    expect(selectBaseTools(regs).map((r) => r.tool.name)).toEqual(["A", "B"]);
    expect(selectBaseTools(regs, { b: false, c: true }).map((r) => r.tool.name)).toEqual(["A", "C"]);
  });
});

describe("findToolByName", () => {
  it("exact name, then aliases, then legacy names", () => {
    const a = mk("Task", { legacyNames: ["Agent"] });
    const b = mk("Agent");
    const c = mk("TaskOutput", { aliases: ["BashOutput"] });
    expect(findToolByName([a, b, c], "Agent")).toBe(b);
    expect(findToolByName([a, c], "Agent")).toBe(a);
    expect(findToolByName([a, c], "BashOutput")).toBe(c);
    expect(findToolByName([a, c], "nope")).toBeUndefined();
  });
});

describe("provider definitions", () => {
  it("Anthropic and OpenAI shapes from Zod's converter, strict, defaults optional", async () => {
    const t = mk("T", { internalInputSchema: z.object({ hidden: z.boolean().optional() }) });
    const [anth] = await anthropicToolDefinitions([t]);
    expect(anth).toEqual({
      name: "T",
      description: "T tool",
      input_schema: {
        type: "object",
        properties: { x: { type: "string", description: "an x" }, n: { type: "number", default: 1 } },
        required: ["x"],
        additionalProperties: false,
      },
    });
    const [oa] = await openAIToolDefinitions([t]);
    expect(oa).toEqual({ type: "function", function: { name: "T", description: "T tool", parameters: anth!.input_schema } });
  });

  it("a deferred tool is marked defer_loading until loaded (its schema is sent: the API requires one)", async () => {
    const d = mk("Deferred", { shouldDefer: true });
    const ctx = createToolUseContext({ cwd: "/", tools: [d] });
    const [before] = await anthropicToolDefinitions([d], ctx);
    expect(before).toMatchObject({ name: "Deferred", description: "Deferred tool", defer_loading: true, input_schema: { type: "object" } });
    ctx.options.loadedDeferredTools.add("Deferred");
    const [after] = await anthropicToolDefinitions([d], ctx);
    expect(after).toHaveProperty("input_schema");
    expect(after).not.toHaveProperty("defer_loading");
  });

  it("a deferred tool called before loading gets a ToolSearch hint", async () => {
    const d = mk("Deferred", { shouldDefer: true, isReadOnly: () => true });
    const s = createSession({ cwd: process.cwd(), tools: [d] });
    const [r] = await s.runTurn([toolUse("Deferred", { y: 1 }, "a")]);
    expect(r!.content).toContain('load it first with ToolSearch (query "select:Deferred")'.replace("load", "Load"));
    await s.close();
  });

  it("session.toolDefinitions hides tools denied outright", async () => {
    const s = createSession({ cwd: process.cwd(), tools: [mk("A"), mk("B")], deny: ["B"] });
    expect((await s.toolDefinitions("anthropic")).map((d) => d.name)).toEqual(["A"]);
    await s.close();
  });
});
