import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { withTempDir } from "./helpers.js";

/**
 * A corpus of malicious repository layouts (test/malicious-repos/*.json), each run through the
 * real CLI (`bin/armature.js exec` and `permissions check`): untrusted, no code of the repository
 * runs and no permission widens; trusted (`armature trust`), it works as configured; after a
 * change to its configuration, it is untrusted again and the warning says what changed.
 */

type Behavior = "allow" | "ask" | "deny";
interface RepoCase {
  description: string;
  files: Record<string, unknown>;
  symlinks?: Record<string, string>;
  outside?: Record<string, string>;
  gitInit?: boolean;
  flags?: string[];
  exec?: Array<{ name: string; input: Record<string, unknown> }>;
  markers?: string[];
  trustedRunsCode?: boolean;
  checks?: Array<{ tool: string; input: Record<string, unknown>; mode?: string; untrusted: Behavior; trusted: Behavior }>;
  untrustedWarning?: string[];
  trustedEnvWarning?: string[];
  change?: { file?: string; append?: string; json?: unknown; relink?: Record<string, string>; expect: string };
}

const root = dirname(fileURLToPath(import.meta.url));
const bin = join(root, "..", "bin", "armature.js");
const corpusDir = join(root, "malicious-repos");
const corpus: Array<[string, RepoCase]> = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => [f.replace(/\.json$/, ""), JSON.parse(readFileSync(join(corpusDir, f), "utf8")) as RepoCase]);

interface Places {
  repo: string;
  out: string;
  home: string;
  cfg: string;
  managed: string;
}

function fill<T>(value: T, p: Places): T {
  return JSON.parse(JSON.stringify(value).replaceAll("$REPO", p.repo).replaceAll("$OUT", p.out).replaceAll("$HOME", p.home)) as T;
}

function build(c: RepoCase, p: Places): void {
  for (const [rel, spec] of Object.entries(fill(c.files, p))) {
    const path = join(p.repo, rel);
    mkdirSync(dirname(path), { recursive: true });
    const isFileSpec = spec !== null && typeof spec === "object" && "content" in (spec as object);
    const content = typeof spec === "string" ? spec : isFileSpec ? (spec as { content: string }).content : JSON.stringify(spec, null, 2);
    writeFileSync(path, content);
    if (isFileSpec && (spec as { mode?: string }).mode) chmodSync(path, parseInt((spec as { mode: string }).mode, 8));
  }
  for (const [rel, target] of Object.entries(fill(c.symlinks ?? {}, p))) symlinkSync(target, join(p.repo, rel));
  for (const [rel, content] of Object.entries(c.outside ?? {})) writeFileSync(join(p.out, rel), content);
  if (c.gitInit) spawnSync("git", ["init", "-q", p.repo], { env: { PATH: process.env.PATH, HOME: p.home } });
}

function run(args: string[], p: Places, stdin = ""): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input: stdin,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: p.home, OUT: p.out, ARMATURE_CONFIG_DIR: p.cfg, ARMATURE_MANAGED_SETTINGS: p.managed },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function execTurn(c: RepoCase, p: Places): { code: number | null; err: string } {
  const blocks = fill(c.exec ?? [], p).map((b, i) => ({ type: "tool_use", id: `t${i}`, name: b.name, input: b.input }));
  const r = run(["exec", "--cwd", p.repo, ...(c.flags ?? [])], p, JSON.stringify(blocks));
  return { code: r.code, err: r.err };
}

function decisions(c: RepoCase, p: Places): Behavior[] {
  if (!c.checks || c.checks.length === 0) return [];
  const lines = fill(c.checks, p).map((k) => JSON.stringify({ tool: k.tool, input: k.input, ...(k.mode ? { mode: k.mode } : {}) }));
  const r = run(["permissions", "check", "--batch", "-", "--cwd", p.repo, ...(c.flags ?? [])], p, lines.join("\n"));
  expect(r.code, r.err).toBe(0);
  return r.out.trim().split("\n").map((l) => (JSON.parse(l) as { behavior: Behavior }).behavior);
}

/** `permissions list` prints the settings warnings (to stdout or stderr): both, for the assertions. */
function listOutput(c: RepoCase, p: Places): { err: string } {
  const r = run(["permissions", "list", "--cwd", p.repo, ...(c.flags ?? [])], p);
  return { err: `${r.err}${r.out}` };
}

function clearMarkers(c: RepoCase, p: Places): string[] {
  const markers = fill(c.markers ?? [], p);
  for (const m of markers) if (existsSync(m)) unlinkSync(m);
  return markers;
}

function applyChange(change: NonNullable<RepoCase["change"]>, p: Places): void {
  if (change.file !== undefined && change.append !== undefined) appendFileSync(join(p.repo, change.file), change.append);
  if (change.file !== undefined && change.json !== undefined) writeFileSync(join(p.repo, change.file), JSON.stringify(fill(change.json, p)));
  for (const [rel, target] of Object.entries(fill(change.relink ?? {}, p))) {
    rmSync(join(p.repo, rel));
    symlinkSync(target, join(p.repo, rel));
  }
}

// Every case starts several real processes; on a loaded machine each may take seconds.
describe("malicious repository corpus through the real CLI", () => {
  it.each(corpus)("%s", async (_name, c) => {
    await withTempDir(async (raw) => {
      const dir = realpathSync(raw);
      const p: Places = { repo: join(dir, "repo"), out: join(dir, "out"), home: join(dir, "home"), cfg: join(dir, "cfg"), managed: join(dir, "none.json") };
      for (const d of [p.repo, p.out, p.home]) mkdirSync(d);
      build(c, p);
      const expected = (state: "untrusted" | "trusted"): Behavior[] => (c.checks ?? []).map((k) => k[state]);

      // Untrusted: nothing of the repository runs, nothing widens, one warning says how to trust.
      const markers = clearMarkers(c, p);
      if (c.exec) {
        const r = execTurn(c, p);
        expect(r.code, r.err).toBe(0);
        expect(r.err).toContain(`${p.repo} is not trusted`);
        expect(r.err).toContain(`armature trust ${p.repo}`);
        for (const w of c.untrustedWarning ?? []) expect(r.err).toContain(w);
        for (const m of markers) expect(existsSync(m), `${m} exists: repository code ran while untrusted`).toBe(false);
      }
      expect(decisions(c, p)).toEqual(expected("untrusted"));

      // Trusted: works as configured (env only with inert names).
      const t = run(["trust", p.repo], p);
      expect(t.code, t.err).toBe(0);
      expect(t.out).toContain(`trusted ${p.repo}`);
      if (c.exec) {
        const r = execTurn(c, p);
        expect(r.code, r.err).toBe(0);
        expect(r.err).not.toContain("is not trusted");
        for (const name of c.trustedEnvWarning ?? []) expect(r.err).toContain(name);
        for (const m of markers) expect(existsSync(m), m).toBe(c.trustedRunsCode === true);
      }
      expect(decisions(c, p)).toEqual(expected("trusted"));

      // Changed after trust: untrusted again, and the warning says what changed.
      if (c.change) {
        applyChange(c.change, p);
        clearMarkers(c, p);
        const r = c.exec ? execTurn(c, p) : listOutput(c, p);
        expect(r.err).toContain("changed since you trusted it");
        expect(r.err).toContain(c.change.expect);
        for (const m of markers) expect(existsSync(m), `${m} exists: repository code ran after its configuration changed`).toBe(false);
        expect(decisions(c, p)).toEqual(expected("untrusted"));
      }
    });
  }, 600_000);
});
