// The wire contract: every built-in tool's name, description and JSON Schema as the model sees
// them. A change here is a change to what models are trained against — make it deliberately.
import { describe, expect, it } from "vitest";
import { anthropicToolDefinitions } from "../src/registry/definitions.js";
import { builtinTools } from "../src/tools/index.js";
import { ToolSearchTool } from "../src/registry/tool-search/index.js";
import { anthropicWebSearch } from "../src/tools/web-search/index.js";
import { createToolUseContext } from "../src/tool/context.js";

// Every tool, the optional ones included (WebSearch needs a backend, Agent a model), each with
// its full schema: deferred ones as they are sent once ToolSearch has loaded them.
const allTools = () => builtinTools({ webSearch: anthropicWebSearch({ model: "m" }), subagents: true, skills: { skills: [] } });
const allDefinitions = () => {
  const tools = allTools();
  const context = createToolUseContext({ cwd: "/", tools });
  for (const t of tools) context.options.loadedDeferredTools.add(t.name);
  return anthropicToolDefinitions(tools, context).then((defs) => defs.filter((d) => d.name !== "DeferredToolPlaceholder"));
};

describe("model-facing tool definitions", () => {
  it("are unchanged", async () => {
    const defs = await allDefinitions();
    const byName = Object.fromEntries(defs.map((d) => [d.name, d]));
    expect(byName).toMatchSnapshot();
  });

  it("have no duplicate names and every schema forbids unknown keys", async () => {
    const defs = await allDefinitions();
    expect(new Set(defs.map((d) => d.name)).size).toBe(defs.length);
    for (const d of defs) if (d.input_schema) expect(d.input_schema.additionalProperties, d.name).toBe(false);
  });

  it("ToolSearch (added to the pool when tools may be deferred) is unchanged, with the reference's inputs", async () => {
    const [def] = await anthropicToolDefinitions([ToolSearchTool]);
    expect(def).toMatchSnapshot();
    const schema = def!.input_schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(["query", "max_results"]);
    expect(schema.properties.query!.type).toBe("string");
    expect(schema.properties.max_results).toMatchObject({ type: "number", default: 5 });
    expect(schema.required).toEqual(["query"]);
  });
});
