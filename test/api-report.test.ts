// The public API is deliberate: api/armature.api.md lists every name each package entry exports,
// with its declaration, as scripts/api-report.js renders it from the built .d.ts files. A change
// to the exports that does not update the report fails here.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("the API report", () => {
  it("matches the exports of the built package (npm run api rewrites it)", () => {
    const r = spawnSync(process.execPath, ["scripts/api-report.js", "--check"], { cwd: root, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("keeps internals out of the root entry", () => {
    const report = readFileSync(new URL("../api/armature.api.md", import.meta.url), "utf8");
    const rootNames = report.split("\n## ")[1]!.split("\n").filter((l) => l.startsWith("### ")).map((l) => l.split(" ")[1]);
    for (const name of ["createSession", "buildTool", "builtinTools", "runAgent", "connectMcpServers", "createHookRunner", "loadSettings", "fromOpenAIToolCalls"]) {
      expect(rootNames).toContain(name);
    }
    for (const internal of ["runToolUse", "resolvePermission", "prepareTurn", "persistOversizedResult", "createToolUseContext", "StreamingToolExecutor", "parseRuleLists", "DEFERRED_TOOL_PLACEHOLDER"]) {
      expect(rootNames).not.toContain(internal);
    }
    expect(rootNames.length).toBeLessThan(250);
  });
});
