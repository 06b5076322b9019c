import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir, captureIO } from "../../test/helpers.js";
import { main } from "./main.js";

const io = captureIO;

interface Result {
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** Runs turns (one array of tool_use blocks each) through `armature exec` in a fresh project. */
async function exec(turns: Array<Array<{ name: string; input: Record<string, unknown> }>>, args: string[], settings?: unknown): Promise<Result[][]> {
  return withTempDir(async (dir) => {
    await mkdir(join(dir, "src"));
    await mkdir(join(dir, "secret"));
    await writeFile(join(dir, "secret", "key"), "TOP-SECRET\n");
    await writeFile(join(dir, "package.json"), '{"name":"p"}\n');
    if (settings !== undefined) {
      await mkdir(join(dir, ".armature"));
      await writeFile(join(dir, ".armature", "settings.json"), JSON.stringify(settings));
    }
    const input = turns
      .map((turn, t) => JSON.stringify(turn.map((call, i) => ({ type: "tool_use", id: `t${t}c${i}`, name: call.name, input: call.input }))))
      .join("\n")
      .replaceAll("{P}", dir);
    const c = io(input);
    expect(await main(["exec", "--cwd", dir, ...args], c), c.err).toBe(0);
    return c.out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => (JSON.parse(l) as { content: Result[] }).content);
  });
}

const cdThenCat = [[{ name: "Bash", input: { command: "cd src" } }], [{ name: "Bash", input: { command: "cat ../secret/key" } }]];

describe("armature exec: a cd moves neither the relative rules nor the working directories", () => {
  it.each([
    ["bypassPermissions", "Read(./secret/**)"],
    ["bypassPermissions", "Read(secret/**)"],
    ["bypassPermissions", "Read(**/secret/**)"],
    ["default", "Read(./secret/**)"],
  ])("in %s, cd src then cat ../secret/key is denied by --deny %s", async (mode, rule) => {
    const [first, second] = await exec(cdThenCat, ["--mode", mode, "--deny", rule]);
    expect(first![0]!.is_error ?? false, first![0]!.content).toBe(false);
    expect(second![0]!.is_error).toBe(true);
    expect(second![0]!.content).toContain(rule);
    expect(second![0]!.content).not.toContain("TOP-SECRET");
  });

  it("the same rule from .armature/settings.json, and a Read of the absolute path after the cd", async () => {
    const turns = [...cdThenCat, [{ name: "Read", input: { file_path: "{P}/secret/key" } }]];
    const [, second, third] = await exec(turns, ["--mode", "bypassPermissions"], { permissions: { deny: ["Read(./secret/**)"] } });
    for (const r of [second![0]!, third![0]!]) {
      expect(r.is_error, r.content).toBe(true);
      expect(r.content).not.toContain("TOP-SECRET");
    }
  });

  it("in default mode, the project's files stay inside the working directories after the cd", async () => {
    const turns = [[{ name: "Bash", input: { command: "cd src" } }], [{ name: "Read", input: { file_path: "{P}/package.json" } }], [{ name: "Bash", input: { command: "cat ../package.json" } }]];
    const [, read, cat] = await exec(turns, ["--mode", "default"]);
    expect(read![0]!.is_error ?? false, read![0]!.content).toBe(false);
    expect(read![0]!.content).toContain('"name":"p"');
    expect(cat![0]!.content).toContain('"name":"p"');
  });
});
