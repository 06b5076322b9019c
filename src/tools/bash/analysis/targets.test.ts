// commandTargets returns early for a command with no rule of its own: every command the rules
// name (the read-all and write-all sets and each `case` of its switch) must be in the set
// that lets it through, or its targets would silently go missing.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HAS_TARGET_RULES } from "./targets.js";

describe("commandTargets early return", () => {
  it("lets through every command its switch has a case for", () => {
    const source = readFileSync(new URL("./targets.ts", import.meta.url), "utf8");
    const body = source.slice(source.indexOf("export function commandTargets"), source.indexOf("function findTargets"));
    const cases = [...body.matchAll(/^\s*case "([^"]+)":/gm)].map((m) => m[1] as string);
    expect(cases.length).toBeGreaterThan(20);
    for (const name of cases) expect([...HAS_TARGET_RULES], name).toContain(name);
  });
});
