// Runs mutations of the security corpus through `armature permissions check --batch`, the path
// the corpus itself takes, in the corpus's file tree. An attack's mutation must never be allowed.
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/io.js";
import { fixture } from "../security-corpus-fixture.js";
import { OPTION_OPERATORS, SEMANTIC_OPERATORS, rng, type Operator } from "./mutate.js";

interface CorpusCase {
  id: string;
  tool: string;
  input: { command?: string };
  expect: "allow" | "deny" | "not-allow";
  knownGap?: string;
  [key: string]: unknown;
}

export interface FuzzFinding {
  id: string;
  operator: string;
  command: string;
  behavior: string;
}

export interface FuzzResult {
  attacksRun: number;
  controlsRun: number;
  /** Attack mutations that were allowed (by semantic operators: always a bug). */
  allowed: FuzzFinding[];
  /** Attack mutations allowed through an option operator. */
  optionAllowed: FuzzFinding[];
  /** Control mutations still allowed, of those run. */
  controlsAllowed: number;
  errors: string[];
}

const corpus: CorpusCase[] = readFileSync(join(import.meta.dirname, "..", "security-corpus.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as CorpusCase);

/** `mutations` per case and operator family; a case mutated by up to `depth` operators in a row. */
export async function fuzzCorpus(options: { seed: number; mutations: number; depth: number }): Promise<FuzzResult> {
  const random = rng(options.seed);
  const root = await realpath(await mkdtemp(join(tmpdir(), "armature-fuzz-")));
  const saved = { HOME: process.env.HOME, managed: process.env.ARMATURE_MANAGED_SETTINGS };
  try {
    fixture(root);
    const proj = join(root, "proj");
    process.env.HOME = join(root, "home");
    process.env.ARMATURE_MANAGED_SETTINGS = join(root, "no-managed-settings.json");
    const sub = (text: string): string => text.replaceAll("{R}", root).replaceAll("{P}", proj).replaceAll("{H}", join(root, "home"));
    const jobs: Array<{ c: CorpusCase; operator: string; command: string; option: boolean }> = [];
    const families: Array<[Record<string, Operator>, boolean]> = [[SEMANTIC_OPERATORS, false], [OPTION_OPERATORS, true]];
    for (const c of corpus) {
      if (c.tool !== "Bash" || typeof c.input.command !== "string" || c.knownGap !== undefined) continue;
      for (const [ops, option] of families) {
        const names = Object.keys(ops);
        for (let m = 0; m < options.mutations; m++) {
          let command: string = c.input.command;
          const used: string[] = [];
          for (let d = 0; d < options.depth; d++) {
            const name = names[Math.floor(random() * names.length)] as string;
            const next = (ops[name] as Operator)(command, random);
            if (next === undefined || next === command) continue;
            command = next;
            used.push(name);
          }
          if (used.length > 0) jobs.push({ c, operator: used.join("+"), command, option });
        }
      }
    }
    const lines = jobs.map(({ c, command }) => {
      const line: Record<string, unknown> = { tool: "Bash", input: { ...c.input, command: sub(command) } };
      for (const k of ["mode", "allow", "ask", "deny", "addDirs", "cwd"]) if (c[k] !== undefined) line[k] = JSON.parse(sub(JSON.stringify(c[k])));
      return JSON.stringify(line);
    });
    const file = join(root, "fuzz.jsonl");
    writeFileSync(file, lines.join("\n"));
    let out = "";
    const io: CliIO = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, readStdin: async () => "", isTTY: false };
    await main(["permissions", "check", "--batch", file, "--cwd", proj], io);
    const decisions = out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { behavior?: string; error?: string });
    const result: FuzzResult = { attacksRun: 0, controlsRun: 0, allowed: [], optionAllowed: [], controlsAllowed: 0, errors: [] };
    if (decisions.length !== jobs.length) result.errors.push(`${decisions.length} decisions for ${jobs.length} mutations`);
    jobs.forEach((job, i) => {
      const d = decisions[i] ?? {};
      if (d.error) result.errors.push(`${job.c.id} ${job.operator}: ${d.error} — ${JSON.stringify(job.command)}`);
      if (job.c.expect === "allow") {
        result.controlsRun++;
        if (d.behavior === "allow") result.controlsAllowed++;
        return;
      }
      result.attacksRun++;
      if (d.behavior === "allow") {
        const finding = { id: job.c.id, operator: job.operator, command: job.command, behavior: d.behavior };
        (job.option ? result.optionAllowed : result.allowed).push(finding);
      }
    });
    return result;
  } finally {
    if (saved.HOME === undefined) delete process.env.HOME;
    else process.env.HOME = saved.HOME;
    if (saved.managed === undefined) delete process.env.ARMATURE_MANAGED_SETTINGS;
    else process.env.ARMATURE_MANAGED_SETTINGS = saved.managed;
    await rm(root, { recursive: true, force: true });
  }
}
