// The wire contract: every built-in tool's name, description and JSON Schema as the model sees
// them. A change here is a change to what models are trained against — make it deliberately.
import { describe, expect, it } from "vitest";
import { anthropicToolDefinitions } from "../src/registry/definitions.js";
import { builtinTools } from "../src/tools/index.js";
import { anthropicWebSearch } from "../src/tools/web-search/index.js";

// Every tool, the optional ones included (WebSearch needs a backend, Agent a model).
const allTools = () => builtinTools({ webSearch: anthropicWebSearch({ model: "m" }), subagents: true });

describe("model-facing tool definitions", () => {
  it("are unchanged", async () => {
    const defs = await anthropicToolDefinitions(allTools());
    const byName = Object.fromEntries(defs.map((d) => [d.name, d]));
    expect(byName).toMatchSnapshot();
  });

  it("have no duplicate names and every schema forbids unknown keys", async () => {
    const defs = await anthropicToolDefinitions(allTools());
    expect(new Set(defs.map((d) => d.name)).size).toBe(defs.length);
    for (const d of defs) if (d.input_schema) expect(d.input_schema.additionalProperties, d.name).toBe(false);
  });
});
