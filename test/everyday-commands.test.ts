import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { everydayProject } from "./everyday-fixture.js";
import { probeSandbox } from "../src/sandbox/probe.js";

/**
 * The everyday-commands corpora: benign, read-only commands of the kind agents run. Each goes
 * through `armature permissions check --batch` in `default` mode with no rules, in a realistic
 * project, twice: with the analysis alone (ARMATURE_SANDBOX=0) and with the OS sandbox where it
 * runs (sandbox.autoAllowBashIfSandboxed: a call with nothing known to write runs in the
 * read-only boundary instead of asking). The shares allowed are printed; asserted:
 * - the analysis alone allows ≥ 97% of test/everyday-commands.txt (issue 8);
 * - with the sandbox, ≥ 99% of everyday-commands.txt and everyday-sandboxed.txt together
 *   (issue 17; the second file holds the loops, xargs and unmodelled tools the sandbox is for).
 * Without bubblewrap the second figure is the analysis-only one, printed, not asserted.
 */
const read = (file: string): string[] =>
  readFileSync(join(import.meta.dirname, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"));
const commands = read("everyday-commands.txt");
const sandboxShapes = read("everyday-sandboxed.txt");
// An outside corpus written before issue 19's changes (not tuned on): measured and printed, the
// share it reaches is reported, not asserted, so that it stays an honest measure.
const outside = read("everyday-outside.txt");

const ANALYSIS_TARGET = 0.97;
const SANDBOX_TARGET = 0.99;
const sandbox = probeSandbox();

type Decision = { behavior?: string; reason?: string; sandbox?: string; error?: string };
let root: string;
/** The decisions of every command of the three files, in order, by analysis alone and with the sandbox. */
const decided: { analysis: Decision[]; sandboxed?: Decision[] } = { analysis: [] };
const saved = { HOME: process.env.HOME, managed: process.env.ARMATURE_MANAGED_SETTINGS, config: process.env.ARMATURE_CONFIG_DIR, sandbox: process.env.ARMATURE_SANDBOX };

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-everyday-")));
  const proj = join(root, "proj");
  const home = join(root, "home");
  mkdirSync(proj);
  mkdirSync(home);
  everydayProject(proj);
  process.env.HOME = home;
  process.env.ARMATURE_MANAGED_SETTINGS = join(root, "no-managed-settings.json");
  delete process.env.ARMATURE_CONFIG_DIR;
  const file = join(root, "batch.jsonl");
  writeFileSync(file, [...commands, ...sandboxShapes, ...outside].map((command) => JSON.stringify({ tool: "Bash", input: { command }, mode: "default" })).join("\n"));
  const check = async (value: "0" | "1"): Promise<Decision[]> => {
    process.env.ARMATURE_SANDBOX = value;
    let out = "";
    const io: CliIO = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, readStdin: async () => "", isTTY: false };
    await main(["permissions", "check", "--batch", file, "--cwd", proj], io);
    return out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Decision);
  };
  decided.analysis = await check("0");
  if (sandbox.available) decided.sandboxed = await check("1");
});

afterAll(async () => {
  for (const [key, value] of [["HOME", saved.HOME], ["ARMATURE_MANAGED_SETTINGS", saved.managed], ["ARMATURE_CONFIG_DIR", saved.config], ["ARMATURE_SANDBOX", saved.sandbox]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await rm(root, { recursive: true, force: true });
});

/** The share allowed of `list` (at `offset` in the batch), printed with what did not pass. */
function measure(label: string, list: readonly string[], offset: number, decisions: readonly Decision[]): number {
  const mine = decisions.slice(offset, offset + list.length);
  expect(mine).toHaveLength(list.length);
  const asked = list.map((c, i) => [c, mine[i]!] as const).filter(([, d]) => d.behavior !== "allow");
  for (const [, d] of asked) expect(d.error).toBeUndefined();
  const allowed = list.length - asked.length;
  const share = allowed / list.length;
  const lines = asked.map(([c, d]) => `  ${d.behavior}: ${c}  — ${(d.reason ?? "").slice(0, 160)}`);
  console.log(`${label}: ${allowed}/${list.length} allowed (${(share * 100).toFixed(1)}%)\n${lines.join("\n")}`);
  return share;
}

const OWN = 0;
const SHAPES = commands.length;
const OUTSIDE = commands.length + sandboxShapes.length;

describe("everyday commands", () => {
  it("has at least 300 distinct commands; the sandbox shapes are distinct and in neither other file", () => {
    expect(commands.length).toBeGreaterThanOrEqual(300);
    expect(new Set(commands).size).toBe(commands.length);
    expect(new Set(sandboxShapes).size).toBe(sandboxShapes.length);
    expect(sandboxShapes.filter((c) => commands.includes(c) || outside.includes(c))).toEqual([]);
  });

  it(`the analysis alone allows at least ${ANALYSIS_TARGET * 100}% in default mode with no rules`, () => {
    const share = measure("everyday (analysis alone)", commands, OWN, decided.analysis);
    measure("everyday loops, xargs, unmodelled tools (analysis alone)", sandboxShapes, SHAPES, decided.analysis);
    expect(share).toBeGreaterThanOrEqual(ANALYSIS_TARGET);
  });

  it.skipIf(!sandbox.available)(`with the sandbox, at least ${SANDBOX_TARGET * 100}% of the everyday corpus runs without a prompt`, () => {
    const sandboxed = decided.sandboxed!;
    measure("everyday (with the sandbox)", commands, OWN, sandboxed);
    measure("everyday loops, xargs, unmodelled tools (with the sandbox)", sandboxShapes, SHAPES, sandboxed);
    const both = [...commands, ...sandboxShapes];
    const share = measure("everyday, both files (with the sandbox)", both, OWN, sandboxed);
    // What the sandbox let through that the analysis alone did not runs in the read-only boundary.
    both.forEach((c, i) => {
      if (decided.analysis[i]!.behavior !== "allow" && sandboxed[i]!.behavior === "allow") expect(sandboxed[i]!.sandbox, c).toBe("read-only");
    });
    expect(share).toBeGreaterThanOrEqual(SANDBOX_TARGET);
  });

  it("measures the outside corpus (printed, not asserted)", () => {
    measure("everyday (outside corpus, analysis alone)", outside, OUTSIDE, decided.analysis);
    if (decided.sandboxed) measure("everyday (outside corpus, with the sandbox)", outside, OUTSIDE, decided.sandboxed);
    else console.log(`everyday (outside corpus, with the sandbox): not measured, ${sandbox.reason ?? "no sandbox"}`);
  });
});
