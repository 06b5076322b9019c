import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { originHostProblem } from "../mcp/http-origin.js";
import { PROJECT_INPUTS, projectInputLoads, trustedProjectDirs } from "./project-inputs.js";
import { WIDENING_KEYS } from "./project-policy.js";
import { ConfigFileError, jsonDepth, readConfigJson } from "./read-config-file.js";

const SRC = join(import.meta.dirname, "..");

/**
 * Files that name project inputs without loading them: lists of what must not be written
 * (protection), and attack data. Every other mention must go through project-inputs.ts.
 */
const NOT_LOADERS: Record<string, string> = {
  "settings/project-inputs.ts": "the list itself",
  "fs/protected-names.ts": "protected names: what a call may not write without a human, what the sandbox keeps read-only",
  "sandbox/plan.ts": "credentials under the home the sandbox hides",
  "shell/corpus.ts": "attack commands the analysis is tested on",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Code without comments (a comment may name a file; only code loads one). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const NAMED_INPUT = /["'`](AGENTS\.md|CLAUDE\.md|\.mcp\.json|settings\.local\.json|\.(armature|claude)\/[\w.-]+)["'`]/;
const PROJECT_JOIN = /join\(\s*(\w+)\s*,\s*["']\.(armature|claude)["']\s*,\s*["'][\w.-]+["']/g;

describe("one list of project-owned inputs", () => {
  it("every entry says what it can do and how trust gates it; import is a widening key", () => {
    for (const input of PROJECT_INPUTS) {
      expect(input.can.length, input.path).toBeGreaterThan(5);
      expect(input.untrusted.length, input.path).toBeGreaterThan(5);
    }
    expect(PROJECT_INPUTS.map((i) => i.path)).toEqual(
      expect.arrayContaining([".armature/settings.local.json", ".claude/settings.local.json", ".mcp.json", ".armature/agents", ".claude/skills", "AGENTS.md", "CLAUDE.md"]),
    );
    expect(WIDENING_KEYS.map((k) => k.key)).toContain("import");
  });

  it("the gate the agent and skill loaders call: no project folder while untrusted; .claude only with the option", () => {
    expect(trustedProjectDirs("/p", "skills", { trusted: false, claude: true })).toEqual([]);
    expect(trustedProjectDirs("/p", "agents", { trusted: false, claude: false })).toEqual([]);
    expect(trustedProjectDirs("/p", "skills", { trusted: true, claude: false })).toEqual(["/p/.armature/skills"]);
    expect(trustedProjectDirs("/p", "agents", { trusted: true, claude: true })).toEqual(["/p/.armature/agents", "/p/.claude/agents"]);
    expect(projectInputLoads("settings", false)).toBe(true); // they restrict
    expect(projectInputLoads("mcp", false)).toBe(false);
  });

  it("no loader in src/ names a project input except through the list", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (rel in NOT_LOADERS) continue;
      const text = code(readFileSync(file, "utf8"));
      const named = NAMED_INPUT.exec(text);
      if (named) offenders.push(`${rel}: ${named[0]}`);
      for (const m of text.matchAll(PROJECT_JOIN)) if (m[1] !== "home") offenders.push(`${rel}: ${m[0]}`);
    }
    expect(offenders, "read project files through settings/project-inputs.ts (PROJECT_INPUTS, trustedProjectDirs)").toEqual([]);
  });
});

describe("configuration files are read safely", () => {
  it.each([
    ["a symlink to /dev/zero", (dir: string) => symlinkSync("/dev/zero", join(dir, "s.json")), "not a regular file"],
    ["a directory", (dir: string) => mkdirSync(join(dir, "s.json")), "not a regular file"],
    ["over 1 MiB", (dir: string) => writeFileSync(join(dir, "s.json"), `{"a":"${"x".repeat(1024 * 1024)}"}`), "too large"],
    ["nested deeper than 64", (dir: string) => writeFileSync(join(dir, "s.json"), `${"[".repeat(65)}${"]".repeat(65)}`), "nested more than 64"],
    ["not JSON", (dir: string) => writeFileSync(join(dir, "s.json"), "{"), "not valid JSON"],
  ])("%s fails closed, naming the file", async (_name, make, problem) => {
    await withTempDir(async (dir) => {
      make(dir);
      const err = await readConfigJson(join(dir, "s.json")).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigFileError);
      expect((err as Error).message).toContain(join(dir, "s.json"));
      expect((err as Error).message).toContain(problem);
    });
  });

  it("a missing file is undefined; a plain one parses (control); depth ignores brackets in strings", async () => {
    await withTempDir(async (dir) => {
      expect(await readConfigJson(join(dir, "none.json"))).toBeUndefined();
      writeFileSync(join(dir, "ok.json"), JSON.stringify({ a: ["[[[[", { b: 1 }] }));
      expect(await readConfigJson(join(dir, "ok.json"))).toEqual({ a: ["[[[[", { b: 1 }] });
      expect(jsonDepth('{"a":"[[[[\\"[["}')).toBe(1);
    });
  });
});

describe("mcp serve --http: Origin and Host", () => {
  const policy = { host: "127.0.0.1", port: 8765 };
  it.each([
    [{ host: "127.0.0.1:8765" }, null],
    [{ host: "localhost:8765", origin: "http://localhost:3000" }, null],
    [{ host: "[::1]:8765", origin: "http://127.0.0.1:8765" }, null],
    [{ host: "127.0.0.1:8765", origin: "https://evil.example" }, "Origin"],
    [{ host: "127.0.0.1:8765", origin: "null" }, "Origin"],
    [{ host: "127.0.0.1:8765", origin: "http://localhost.evil.example" }, "Origin"],
    [{ host: "evil.example:8765" }, "Host"],
    [{ host: "127.0.0.1:9999" }, "Host"],
    [{}, "Host"],
    [{ host: "127.0.0.1:8765", origin: ["http://localhost", "http://localhost"] }, "Origin"],
  ])("%j → %s", (headers, problem) => {
    const got = originHostProblem(headers, policy);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });

  it("allowed origins and hosts are configurable", () => {
    const wide = { ...policy, allowedOrigins: ["https://app.example"], allowedHosts: ["box.lan"] };
    expect(originHostProblem({ host: "box.lan:8765", origin: "https://app.example" }, wide)).toBeNull();
    expect(originHostProblem({ host: "other.lan:8765" }, wide)).toContain("Host");
    expect(originHostProblem({ host: "localhost:8765" }, { host: "0.0.0.0", port: 8765 })).toBeNull();
    expect(originHostProblem({ host: "10.0.0.5:8765" }, { host: "0.0.0.0", port: 8765 })).toContain("--allow-host");
  });
});
