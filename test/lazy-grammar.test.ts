// The Bash grammar is loaded on the first Bash call, not at import: checked in fresh processes
// on the built package (what a library user or `armature exec` gets).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const entry = pathToFileURL(resolve("dist/index.js")).href;
const dir = mkdtempSync(join(tmpdir(), "armature-lazy-"));
writeFileSync(join(dir, "a.txt"), "one\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(body: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(entry)});\n${body}`], { encoding: "utf8", cwd: dir });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout.trim()) as Record<string, unknown>;
}

describe("lazy Bash grammar", () => {
  it("is not loaded by import, createSession or a Read turn; a Bash turn loads it and is analysed", () => {
    const out = run(`
      const s = m.createSession({ cwd: ${JSON.stringify(dir)}, tools: m.builtinTools(), allow: ["Bash(echo *)"] });
      const afterImport = m.bashGrammarLoaded();
      const read = await s.runTurn([{ type: "tool_use", id: "r", name: "Read", input: { file_path: "a.txt" } }]);
      const afterRead = m.bashGrammarLoaded();
      let before = "";
      try { m.analyzeCommand("ls"); } catch (err) { before = err.message; }
      const bash = await s.runTurn([{ type: "tool_use", id: "b", name: "Bash", input: { command: "echo hi" } }]);
      console.log(JSON.stringify({ afterImport, afterRead, before, read: read[0].is_error ?? false, bash: bash[0].content, bashError: bash[0].is_error ?? false,
        afterBash: m.bashGrammarLoaded(), readOnly: m.analyzeCommand("ls -la").readOnly }));
    `);
    expect(out).toMatchObject({ afterImport: false, afterRead: false, read: false, bashError: false, afterBash: true, readOnly: true });
    expect(String(out.bash)).toContain("hi");
    expect(String(out.before)).toMatch(/not loaded yet: await ensureBashGrammar\(\)/);
  });

  it("ensureBashGrammar() loads once for concurrent callers; the Bash tool's load() is the same", () => {
    const out = run(`
      await Promise.all([m.ensureBashGrammar(), m.ensureBashGrammar(), m.BashTool.load()]);
      console.log(JSON.stringify({ loaded: m.bashGrammarLoaded(), initMs: m.bashParserInitMs, facts: m.analyzeCommand("rm -rf x; cat y").subcommands.length }));
    `);
    expect(out.loaded).toBe(true);
    expect(out.initMs).toBeGreaterThan(0);
    expect(out.facts).toBe(2);
  });

  it("a streamed Bash call also waits for the grammar", () => {
    const out = run(`
      const s = m.createSession({ cwd: ${JSON.stringify(dir)}, tools: m.builtinTools() });
      async function* blocks() {
        yield { type: "tool_use", id: "x", name: "Bash", input: { command: "cat a.txt" } };
        yield { type: "tool_use", id: "y", name: "Bash", input: { command: "ls" } };
      }
      const results = [];
      for await (const ev of s.stream(blocks())) if (ev.type === "result") results.push(ev.result);
      console.log(JSON.stringify({ n: results.length, text: JSON.stringify(results) }));
    `);
    expect(out.n).toBe(2);
    expect(String(out.text)).toContain("one");
    expect(String(out.text)).toContain("a.txt");
  });
});
