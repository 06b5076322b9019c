// The README's first command, end to end: `armature exec examples/turns.jsonl --cwd examples/project`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

interface Result { tool_use_id?: string; tool_call_id?: string; content: unknown; is_error?: boolean }

describe("the README example", () => {
  it("runs every turn, changes nothing, and refuses the unapproved Edit", () => {
    const before = readFileSync("examples/project/src/greet.ts", "utf8");
    const r = spawnSync(process.execPath, ["bin/armature.js", "exec", "examples/turns.jsonl", "--cwd", "examples/project"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const turns = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { content: Result[] } | Result[]);
    expect(turns).toHaveLength(4);
    const results = turns.flatMap((t) => (Array.isArray(t) ? t : t.content));
    const byId = Object.fromEntries(results.map((x) => [x.tool_use_id ?? x.tool_call_id, x]));
    expect(String(byId.toolu_01!.content).split("\n").sort()).toEqual(["src/greet.ts", "src/math.ts"]); // by mtime: checkout order
    expect(byId.toolu_02!.content).toContain("src/math.ts:5:export function mul");
    expect(byId.toolu_03!.content).toContain("3\texport function greet(name: string): string {");
    expect(byId.toolu_04!.content).toContain(" 12 total");
    expect(byId.call_05!.content).toBe("1\t# greeter\n2\t\n3\tA tiny project for armature's example turns: `src/greet.ts` greets, `src/math.ts` adds.");
    expect(byId.toolu_06).toMatchObject({ is_error: true });
    expect(byId.toolu_06!.content).toContain("Permission to use Edit was denied");
    expect(byId.toolu_07!.content).toContain("Did you mean src/greet.ts?");
    for (const id of ["toolu_01", "toolu_02", "toolu_03", "toolu_04"]) expect(byId[id]!.is_error, id).toBeUndefined();
    expect(readFileSync("examples/project/src/greet.ts", "utf8")).toBe(before);
  });
});
