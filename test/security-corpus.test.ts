import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { fixture } from "./security-corpus-fixture.js";
import { probeSandbox } from "../src/sandbox/probe.js";

/**
 * The security corpus (test/security-corpus.jsonl): attacks that broke other agents' permission
 * checks, each with its public source, and benign controls. Every case runs through
 * `armature permissions check --batch` — the very path a user's policy test takes.
 * `not-allow`: anything but allow; `deny`: exactly deny; `allow`: exactly allow.
 */
interface CorpusCase {
  id: string;
  source: string;
  tool: string;
  input: unknown;
  mode?: string;
  allow?: string[];
  ask?: string[];
  deny?: string[];
  addDirs?: string[];
  cwd?: string;
  expect: "allow" | "deny" | "not-allow";
  /** A gap outside the resolver (e.g. in the shell analysis), named here so that it stays visible. */
  knownGap?: string;
}

const corpus: CorpusCase[] = readFileSync(join(import.meta.dirname, "security-corpus.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as CorpusCase);

let root: string;
let proj: string;
let home: string;
type Decision = { behavior?: string; reason?: string; rule?: string | null; sandbox?: string; error?: string };
/** Without the sandbox (the analysis alone, which must refuse every attack), and with it where it runs. */
let decisions: Decision[];
let sandboxed: Decision[] | undefined;
const savedEnv = { HOME: process.env.HOME, managed: process.env.ARMATURE_MANAGED_SETTINGS, config: process.env.ARMATURE_CONFIG_DIR, sandbox: process.env.ARMATURE_SANDBOX };

function substitute<T>(value: T): T {
  const text = JSON.stringify(value).replaceAll("{R}", root).replaceAll("{P}", proj).replaceAll("{H}", home);
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "armature-corpus-")));
  proj = join(root, "proj");
  home = join(root, "home");
  fixture(root);
  process.env.HOME = home;
  process.env.ARMATURE_MANAGED_SETTINGS = join(root, "no-managed-settings.json");
  delete process.env.ARMATURE_CONFIG_DIR;

  const batch = corpus
    .map((c) => {
      const line: Record<string, unknown> = { tool: c.tool, input: substitute(c.input) };
      for (const k of ["mode", "allow", "ask", "deny", "addDirs", "cwd"] as const) if (c[k] !== undefined) line[k] = substitute(c[k]);
      return JSON.stringify(line);
    })
    .join("\n");
  const file = join(root, "batch.jsonl");
  writeFileSync(file, batch);
  let out = "";
  const io: CliIO = {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: () => true },
    readStdin: async () => "",
    isTTY: false,
  };
  const checkAll = async (sandbox: "0" | "1"): Promise<Decision[]> => {
    out = "";
    process.env.ARMATURE_SANDBOX = sandbox;
    await main(["permissions", "check", "--batch", file, "--cwd", proj], io);
    return out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Decision);
  };
  decisions = await checkAll("0");
  if (probeSandbox().available) sandboxed = await checkAll("1");
});

afterAll(async () => {
  if (savedEnv.HOME === undefined) delete process.env.HOME;
  else process.env.HOME = savedEnv.HOME;
  if (savedEnv.managed === undefined) delete process.env.ARMATURE_MANAGED_SETTINGS;
  else process.env.ARMATURE_MANAGED_SETTINGS = savedEnv.managed;
  if (savedEnv.config !== undefined) process.env.ARMATURE_CONFIG_DIR = savedEnv.config;
  if (savedEnv.sandbox === undefined) delete process.env.ARMATURE_SANDBOX;
  else process.env.ARMATURE_SANDBOX = savedEnv.sandbox;
  await rm(root, { recursive: true, force: true });
});

describe("security corpus", () => {
  it("has at least 200 cases, each with a public source, attacks and benign controls", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(new Set(corpus.map((c) => c.id)).size).toBe(corpus.length);
    for (const c of corpus) expect(c.source.length, c.id).toBeGreaterThan(5);
    expect(corpus.filter((c) => c.expect === "allow").length).toBeGreaterThanOrEqual(40);
  });

  it("one decision per case", () => {
    expect(decisions).toHaveLength(corpus.length);
  });

  const check = (c: CorpusCase, i: number): void => {
    const d = decisions[i]!;
    const shown = `${c.id} (${c.source}): ${JSON.stringify(d)}`;
    // A call the tool refuses before any decision (its input does not validate) never runs: for an
    // attack that is as good as a deny; for everything else the case itself is broken.
    if (c.expect === "not-allow" && typeof d.error === "string" && d.error.includes("InputValidationError")) return;
    expect(d.error, shown).toBeUndefined();
    if (c.expect === "allow") expect(d.behavior, shown).toBe("allow");
    else if (c.expect === "deny") expect(d.behavior, shown).toBe("deny");
    else expect(d.behavior === "ask" || d.behavior === "deny", shown).toBe(true);
  };
  const cases = corpus.map((c, i) => [c.id, c, i] as const);
  it.each(cases.filter(([, c]) => c.knownGap === undefined))("%s", (_id, c, i) => check(c, i));
  // Fails today for the reason given; when the gap is fixed this turns red: drop the knownGap then.
  it.fails.each(cases.filter(([, c]) => c.knownGap !== undefined))("%s (known gap)", (_id, c, i) => check(c, i));

  // With the sandbox on, an attack may run only inside the read-only boundary (nothing it does
  // there can write, reach the network or another process); a deny stays a deny.
  it.skipIf(!probeSandbox().available)("with the sandbox on, no attack runs outside the read-only boundary without asking", () => {
    expect(sandboxed).toHaveLength(corpus.length);
    const inBoundary = corpus.filter((c, i) => c.expect !== "allow" && sandboxed![i]!.behavior === "allow").map((c) => c.id);
    console.log(`security corpus with the sandbox: ${inBoundary.length} attack cases run in the read-only boundary instead of asking, 0 outside it${inBoundary.length > 0 ? `: ${inBoundary.join(", ")}` : ""}`);
    corpus.forEach((c, i) => {
      const d = sandboxed![i]!;
      const shown = `${c.id} (${c.source}): ${JSON.stringify(d)}`;
      if (c.knownGap !== undefined || typeof d.error === "string") return;
      if (c.expect === "deny") expect(d.behavior, shown).toBe("deny");
      if (c.expect === "not-allow" && d.behavior === "allow") expect(d.sandbox, shown).toBe("read-only");
      if (c.expect === "allow") expect(d.behavior, shown).toBe("allow");
    });
  });
});
