// The module structure of issue 19: no import circles in src/ (type-only and dynamic imports
// count too: a circle of types is still a circle of meaning), and the layer rules of
// eslint.config.js really fire: src/shell imports nothing above it (nor reaches it through any
// chain of imports, the sandbox's engine process included), src/sandbox stays below
// src/permissions, src/permissions and src/session never import src/tools, outside src/shell only
// the shell's fact modules are imported, and no file outside src/shell reads a command's argv.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Each source file of src/ (tests left out) with the files of src/ it imports, by path from the root. */
function importGraph(): Map<string, string[]> {
  const files = sources(join(root, "src"));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith("."))
      .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, ".ts")))
      .map((path) => (known.has(path) ? path : join(path, "index.ts")))
      .filter((path) => known.has(path));
    graph.set(relative(root, file), [...new Set(targets)].map((t) => relative(root, t)));
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * Every file of src/ a file of `from` reaches through any chain of imports, each with the chain
 * that reaches it (breadth first: a shortest one).
 */
function reached(graph: Map<string, string[]>, from: (file: string) => boolean): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  const queue = [...graph.keys()].filter(from);
  for (const f of queue) chains.set(f, [f]);
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (chains.has(w)) continue;
      chains.set(w, [...chains.get(v)!, w]);
      queue.push(w);
    }
  }
  return chains;
}

// The one circle left, outside the shell model (settings: load ↔ merge share types); the list only shrinks.
const KNOWN_CIRCLES = [["src/settings/load.ts", "src/settings/merge.ts"]];

describe("module structure", () => {
  it("the walker finds a circle where there is one", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
    ]);
    expect(circles(graph)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("src/ has no import circles but the known ones", () => {
    const graph = importGraph();
    // The walker sees the graph: the shell's door loads the analysis with import().
    expect(graph.get("src/shell/index.ts")).toContain("src/shell/analyze.ts");
    expect(circles(graph)).toEqual(KNOWN_CIRCLES);
  });

  it("src/shell reaches nothing above it through any chain of imports (the sandbox's engine process included)", () => {
    const graph = importGraph();
    const chains = reached(graph, (f) => f.startsWith("src/shell/"));
    // The walker follows chains out of the folder: the shell starts its helpers through the sandbox.
    expect(chains.get("src/sandbox/seccomp.ts")).toBeDefined();
    const above = [...chains].filter(([f]) => /^src\/(permissions|tools|session)\//.test(f)).map(([, chain]) => chain.join(" -> "));
    expect(above).toEqual([]);
  });

  it("the walker finds a chain where there is one", () => {
    const graph = new Map([
      ["src/shell/a.ts", ["src/sandbox/b.ts"]],
      ["src/sandbox/b.ts", ["src/permissions/c.ts"]],
      ["src/permissions/c.ts", []],
    ]);
    expect(reached(graph, (f) => f.startsWith("src/shell/")).get("src/permissions/c.ts")).toEqual(["src/shell/a.ts", "src/sandbox/b.ts", "src/permissions/c.ts"]);
  });

  // Each row: a file in a layer, the code it would hold, and whether the lint rejects it.
  const rows: Array<{ file: string; code: string; rejected: boolean }> = [
    { file: "src/shell/probe.ts", code: 'export { resolvePermission } from "../permissions/resolve.js";', rejected: true },
    { file: "src/shell/probe.ts", code: 'import { ReadTool } from "../tools/read/read-tool.js"; export const t = ReadTool;', rejected: true },
    { file: "src/shell/probe.ts", code: 'import type { Session } from "../session/session.js"; export type S = Session;', rejected: true },
    { file: "src/shell/probe.ts", code: 'import { TOOLS } from "./commands/tools.js"; export const t = TOOLS;', rejected: false },
    { file: "src/permissions/probe.ts", code: 'import { atomicWriteFile } from "../tools/fs/atomic-write.js"; export const w = atomicWriteFile;', rejected: true },
    { file: "src/permissions/probe.ts", code: 'import { getopt } from "../shell/getopt.js"; export const g = getopt;', rejected: true },
    { file: "src/permissions/probe.ts", code: 'import type { Word } from "../shell/words.js"; export type W = Word;', rejected: true },
    { file: "src/permissions/probe.ts", code: 'import { tableFor } from "../shell/commands/index.js"; export const t = tableFor;', rejected: true },
    { file: "src/permissions/probe.ts", code: 'import type { ShellSubcommand } from "../tool/types.js"; export const n = (s: ShellSubcommand) => s.argv[0];', rejected: true },
    // The four files that once read argv are no exception any more.
    ...["modes", "resolve", "safety", "scope"].map((m) => ({
      file: `src/permissions/${m}.ts`,
      code: 'import type { ShellSubcommand } from "../tool/types.js"; export const n = (s: ShellSubcommand) => s.argv[0];',
      rejected: true,
    })),
    { file: "src/permissions/probe.ts", code: 'import { effectiveArgv } from "../shell/bash-rules.js"; export const a = effectiveArgv;', rejected: false },
    { file: "src/permissions/probe.ts", code: 'import { effectiveArgv } from "../shell/bash-rules.js"; export const a = (s: Parameters<typeof effectiveArgv>[0]) => effectiveArgv(s);', rejected: true },
    { file: "src/permissions/probe.ts", code: 'import { analyzeCommand } from "../shell/index.js"; export const a = analyzeCommand;', rejected: false },
    { file: "src/permissions/probe.ts", code: 'import { atomicWriteFile } from "../fs/atomic-write.js"; export const w = atomicWriteFile;', rejected: false },
    // Every module outside src/shell reads facts, not a command's argv or text (issue 19).
    ...["src/tools/bash/exit-code.ts", "src/sandbox/boundary.ts", "src/session/hook-if.ts", "src/hooks/runner.ts", "src/audit/audit-report.ts", "src/cli/probe.ts"].flatMap((file) => [
      { file, code: 'import type { ShellSubcommand } from "../tool/types.js"; export const n = (s: ShellSubcommand) => s.argv[0];', rejected: true },
      { file, code: 'import type { ShellSubcommand } from "../tool/types.js"; export const n = (s: ShellSubcommand) => s.effective.split(" ");', rejected: true },
    ]),
    { file: "src/tools/bash/probe.ts", code: 'import { commandFacts } from "../../shell/command-facts.js"; import type { ShellSubcommand } from "../../tool/types.js"; export const n = (s: ShellSubcommand) => commandFacts(s).program;', rejected: false },
    // Named exceptions: the CLI's own command line and bwrap's argument lists are not a command's argv.
    { file: "src/cli/probe.ts", code: "export const a = process.argv.slice(2);", rejected: false },
    { file: "src/sandbox/probe.ts", code: "export const f = (argv: string[]) => [\"--\", ...argv];", rejected: false },
    { file: "src/shell/probe.ts", code: 'import type { ShellSubcommand } from "../tool/types.js"; export const n = (s: ShellSubcommand) => s.argv[0];', rejected: false },
    { file: "src/sandbox/probe.ts", code: 'import { PROTECTED_DIRS } from "../permissions/safety.js"; export const d = PROTECTED_DIRS;', rejected: true },
    { file: "src/sandbox/probe.ts", code: 'import { PROTECTED_DIRS } from "../fs/protected-names.js"; export const d = PROTECTED_DIRS;', rejected: false },
    { file: "src/session/probe.ts", code: 'import { TaskStopTool } from "../tools/task-stop/task-stop-tool.js"; export const t = TaskStopTool;', rejected: true },
    { file: "src/session/probe.ts", code: 'import { findTaskRegistry } from "../tasks/registry.js"; export const f = findTaskRegistry;', rejected: false },
    { file: "src/tools/bash/probe.ts", code: 'import { parseBashScript } from "../../shell/parser.js"; export const p = parseBashScript;', rejected: true },
    { file: "src/tools/bash/probe.ts", code: 'import { jqReadTargets } from "../../shell/lang/jq.js"; export const j = jqReadTargets;', rejected: true },
    { file: "src/tools/bash/probe.ts", code: 'import { analyzeCommand } from "../../shell/index.js"; export const a = analyzeCommand;', rejected: false },
    { file: "src/tools/bash/probe.ts", code: 'import { resolvePermission } from "../../permissions/resolve.js"; export const r = resolvePermission;', rejected: false },
  ];
  it("the layer rules of the lint reject what crosses a layer and pass what does not", async () => {
    const eslint = new ESLint({ cwd: root });
    const layerRules = new Set(["no-restricted-imports", "no-restricted-syntax"]);
    const verdicts = [];
    for (const row of rows) {
      const [result] = await eslint.lintText(row.code, { filePath: join(root, row.file) });
      const hits = result!.messages.filter((m) => m.ruleId !== null && layerRules.has(m.ruleId));
      verdicts.push({ ...row, rejected: hits.length > 0 });
    }
    expect(verdicts).toEqual(rows);
  });
});
