import { z } from "zod";
import { z as z3 } from "zod/v3";
import { describe, expect, it } from "vitest";
import { buildTool } from "./build-tool.js";
import type { AnyObjectSchema } from "./types.js";

const call = async (): Promise<{ data: string }> => ({ data: "ok" });

describe("buildTool and the Zod version", () => {
  it("a Zod 4 schema is taken", () => {
    expect(buildTool({ name: "Four", description: "d", inputSchema: z.object({ a: z.string() }), call }).name).toBe("Four");
  });

  it.each([
    ["inputSchema", { inputSchema: z3.object({ a: z3.string() }) as unknown as AnyObjectSchema }],
    ["internalInputSchema", { inputSchema: z.object({}), internalInputSchema: z3.object({}) as unknown as AnyObjectSchema }],
    ["outputSchema", { inputSchema: z.object({}), outputSchema: z3.string() as unknown as z.ZodType }],
  ])("a Zod 3 %s is refused with what to do", (key, schemas) => {
    expect(() => buildTool({ name: "Three", description: "d", call, ...schemas })).toThrow(
      `buildTool("Three"): ${key} is a Zod 3 schema; armature needs Zod 4 (zod ≥ 4.0.0, a peer dependency: npm install zod@^4, then import { z } from "zod")`,
    );
  });

  it("something that is no Zod schema at all is refused too", () => {
    expect(() => buildTool({ name: "Json", description: "d", call, inputSchema: { type: "object" } as unknown as AnyObjectSchema })).toThrow(
      'buildTool("Json"): inputSchema must be a Zod 4 object schema',
    );
  });
});
