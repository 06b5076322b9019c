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
 * The everyday-commands corpus (test/everyday-commands.txt): benign, read-only commands of the
 * kind agents run. Each goes through `armature permissions check --batch` in `default` mode with
 * no rules, in a realistic project; the share allowed is printed and must stay ≥ 97% (issue 8).
 */
const commands = readFileSync(join(import.meta.dirname, "everyday-commands.txt"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.startsWith("#"));

/** With the OS sandbox, calls with nothing known to write run read-only instead of asking (issue #17). */
const TARGET = probeSandbox().available ? 0.985 : 0.97;
// An outside corpus written before issue 19's changes (not tuned on): measured and printed, the
// share it reaches is reported, not asserted, so that it stays an honest measure.
const outside = readFileSync(join(import.meta.dirname, "everyday-outside.txt"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.startsWith("#"));


let root: string;
let decisions: Array<{ behavior?: string; reason?: string; error?: string }> = [];
let outsideDecisions: Array<{ behavior?: string; reason?: string; error?: string }> = [];
const saved = { HOME: process.env.HOME, managed: process.env.ARMATURE_MANAGED_SETTINGS, config: process.env.ARMATURE_CONFIG_DIR };

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
  writeFileSync(file, [...commands, ...outside].map((command) => JSON.stringify({ tool: "Bash", input: { command }, mode: "default" })).join("\n"));
  let out = "";
  const io: CliIO = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, readStdin: async () => "", isTTY: false };
  await main(["permissions", "check", "--batch", file, "--cwd", proj], io);
  const all = out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { behavior?: string; reason?: string; error?: string });
  decisions = all.slice(0, commands.length);
  outsideDecisions = all.slice(commands.length);
});

afterAll(async () => {
  for (const [key, value] of [["HOME", saved.HOME], ["ARMATURE_MANAGED_SETTINGS", saved.managed], ["ARMATURE_CONFIG_DIR", saved.config]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await rm(root, { recursive: true, force: true });
});

describe("everyday commands", () => {
  it("has at least 300 distinct commands", () => {
    expect(commands.length).toBeGreaterThanOrEqual(300);
    expect(new Set(commands).size).toBe(commands.length);
  });

  it(`allows at least ${TARGET * 100}% in default mode with no rules`, () => {
    expect(decisions).toHaveLength(commands.length);
    const asked = commands.map((c, i) => [c, decisions[i]!] as const).filter(([, d]) => d.behavior !== "allow");
    for (const [, d] of asked) expect(d.error).toBeUndefined();
    const allowed = commands.length - asked.length;
    const share = allowed / commands.length;
    const lines = asked.map(([c, d]) => `  ${d.behavior}: ${c}  — ${(d.reason ?? "").slice(0, 160)}`);
    console.log(`everyday: ${allowed}/${commands.length} allowed (${(share * 100).toFixed(1)}%)\n${lines.join("\n")}`);
    expect(share).toBeGreaterThanOrEqual(TARGET);
  });

  it("measures the outside corpus (printed, not asserted)", () => {
    expect(outsideDecisions).toHaveLength(outside.length);
    const asked = outside.map((c, i) => [c, outsideDecisions[i]!] as const).filter(([, d]) => d.behavior !== "allow");
    for (const [, d] of asked) expect(d.error).toBeUndefined();
    const allowed = outside.length - asked.length;
    const lines = asked.map(([c, d]) => `  ${d.behavior}: ${c}  — ${(d.reason ?? "").slice(0, 160)}`);
    console.log(`everyday (outside corpus): ${allowed}/${outside.length} allowed (${((allowed / outside.length) * 100).toFixed(1)}%)\n${lines.join("\n")}`);
  });
});
