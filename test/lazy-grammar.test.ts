// The Bash grammar is loaded on the first Bash call, not at import: checked in fresh processes
// on the built package (what a library user or `armature exec` gets).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { packageEntry } from "./helpers.js";

const entry = packageEntry();
const dir = mkdtempSync(join(tmpdir(), "armature-lazy-"));
writeFileSync(join(dir, "a.txt"), "one\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A module loader hook that appends every file it loads to ARMATURE_TEST_LOADED: what a process
// compiled, not only what it ran.
const hooks = join(dir, "hooks.mjs");
writeFileSync(hooks, `import { appendFileSync } from "node:fs";
export async function load(url, context, next) { if (url.startsWith("file:")) appendFileSync(process.env.ARMATURE_TEST_LOADED, url + "\\n"); return next(url, context); }\n`);
const register = join(dir, "register.mjs");
writeFileSync(register, `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

function run(body: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Record<string, unknown> {
  const r = spawnSync(process.execPath, [...args, "--input-type=module", "-e", `const m = await import(${JSON.stringify(entry)});\n${body}`], { encoding: "utf8", cwd: dir, env: { ...process.env, ...env } });
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
      await s.close();
    `);
    expect(out).toMatchObject({ afterImport: false, afterRead: false, read: false, bashError: false, afterBash: true, readOnly: true });
    expect(String(out.bash)).toContain("hi");
    expect(String(out.before)).toMatch(/not loaded yet: await ensureBashGrammar\(\)/);
  });

  it("the analysis's code (parser, option tables) is not even loaded before the first Bash call", () => {
    const log = join(dir, "loaded.txt");
    // The parser names the grammar's file; the option tables hold tar's options.
    const grammarCode = () => readFileSync(log, "utf8").trim().split("\n").filter((url) => /tree-sitter-bash\.wasm|numeric-owner/.test(readFileSync(new URL(url), "utf8")));
    run(`
      const s = m.createSession({ cwd: ${JSON.stringify(dir)}, tools: m.builtinTools() });
      await s.runTurn([{ type: "tool_use", id: "r", name: "Read", input: { file_path: "a.txt" } }]);
      await s.close();
      console.log("{}");
    `, { ARMATURE_TEST_LOADED: log }, ["--import", pathToFileURL(register).href]);
    expect(readFileSync(log, "utf8")).toContain(entry);
    expect(grammarCode()).toEqual([]);
    // The control: a Bash call loads it.
    rmSync(log);
    run(`await m.ensureBashGrammar(); console.log("{}");`, { ARMATURE_TEST_LOADED: log }, ["--import", pathToFileURL(register).href]);
    expect(grammarCode().length).toBeGreaterThanOrEqual(2);
  });

  it("ensureBashGrammar() loads once for concurrent callers; the Bash tool's load() is the same", () => {
    const out = run(`
      await Promise.all([m.ensureBashGrammar(), m.ensureBashGrammar(), m.createBashTool().load()]);
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
      await s.close();
    `);
    expect(out.n).toBe(2);
    expect(String(out.text)).toContain("one");
    expect(String(out.text)).toContain("a.txt");
  });
});
