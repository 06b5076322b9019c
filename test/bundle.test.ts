// The package entry is a bundle that carries its own copy of zod (start-up: zod is 95 modules).
// A user's tools are written with their own zod 4 (the peer dependency): their schemas must work
// with the bundle exactly as with the sources — JSON Schema (descriptions included), validation,
// error text — in a fresh process that imports the package as a user does.
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropicToolDefinitions } from "../src/registry/definitions.js";
import { buildTool } from "../src/tool/build-tool.js";
import { packageEntry } from "./helpers.js";

const userZod = pathToFileURL(createRequire(import.meta.url).resolve("zod")).href;

function run(body: string): Record<string, unknown> {
  const script = `const m = await import(${JSON.stringify(packageEntry())});\nconst { z } = await import(${JSON.stringify(userZod)});\n${body}`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout.trim()) as Record<string, unknown>;
}

const greet = buildTool({
  name: "Greet",
  description: "Greets someone.",
  inputSchema: z.object({ name: z.string().min(1).describe("who to greet"), times: z.number().int().max(3).optional() }),
  isReadOnly: () => true,
  call: async (input) => ({ data: `hello ${input.name}` }),
});

describe("the bundled package with the user's own zod", () => {
  it("defines, describes, validates and runs a tool", async () => {
    const out = run(`
      const tool = m.buildTool({
        name: "Greet",
        description: "Greets someone.",
        inputSchema: z.object({ name: z.string().min(1).describe("who to greet"), times: z.number().int().max(3).optional() }),
        isReadOnly: () => true,
        call: async (input) => ({ data: "hello " + input.name }),
      });
      const defs = await m.toolDefinitions("anthropic", [tool]);
      const s = m.createSession({ cwd: process.cwd(), tools: [tool] });
      const [good, bad, missing] = await s.runTurn([
        { type: "tool_use", id: "a", name: "Greet", input: { name: "Ada" } },
        { type: "tool_use", id: "b", name: "Greet", input: { name: "Ada", times: 7 } },
        { type: "tool_use", id: "c", name: "Greet", input: {} },
      ]);
      console.log(JSON.stringify({ schema: defs[0].input_schema, good, bad, missing }));
    `);
    // The same tool through the sources (one zod): the bundle gives the same schema.
    const fromSources = await anthropicToolDefinitions([greet]);
    expect(out.schema).toEqual(fromSources[0]!.input_schema);
    expect(out.schema).toMatchObject({ properties: { name: { type: "string", minLength: 1, description: "who to greet" } }, required: ["name"] });
    expect(out.good).toMatchObject({ tool_use_id: "a", content: "hello Ada" });
    expect(out.bad).toMatchObject({ tool_use_id: "b", is_error: true });
    expect(JSON.stringify(out.bad)).toMatch(/times/);
    expect(out.missing).toMatchObject({ tool_use_id: "c", is_error: true });
    expect(JSON.stringify(out.missing)).toMatch(/name/);
  });

  it("still refuses a zod 3 schema with the message that names the peer dependency", () => {
    const out = run(`
      let message = "";
      try { m.buildTool({ name: "Old", description: "d", inputSchema: { _def: { typeName: "ZodObject" } }, call: () => ({ data: "" }) }); } catch (err) { message = err.message; }
      console.log(JSON.stringify({ message }));
    `);
    expect(out.message).toMatch(/Zod 3 schema; armature needs Zod 4/);
  });
});
