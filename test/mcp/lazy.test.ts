// Start-up cost: the MCP SDK (and Ajv) load only when a server is used or served.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Every module reachable through static, value-level imports (not `import type`, not `import()`). */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)";/gms)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
}

describe("lazy MCP loading", () => {
  it.each(["src/index.ts", "src/cli/main.ts"])("%s does not load the MCP SDK or Ajv at start-up", (entry) => {
    const { files, packages } = staticGraph(resolve(ROOT, entry));
    expect([...packages].filter((p) => p.startsWith("@modelcontextprotocol/") || p.startsWith("ajv"))).toEqual([]);
    expect([...files].some((f) => f.endsWith("src/mcp/manager.ts") || f.endsWith("src/mcp/serve.ts"))).toBe(false);
  });
});
