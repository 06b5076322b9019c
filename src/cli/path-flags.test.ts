import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";

const BIN = resolve(import.meta.dirname, "../../bin/armature.js");
const FIXTURE = resolve(import.meta.dirname, "../../test/fixtures/mcp-server.mjs");

/** The real CLI, started in `shellDir` (the directory relative flags are read against). */
function armature(shellDir: string, args: string[], input = "", env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: shellDir, input, encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });
}

/** The tool_result blocks of exec's output (one user message a line). */
const results = (stdout: string): Array<{ content: unknown; is_error?: boolean }> =>
  stdout
    .trim()
    .split("\n")
    .flatMap((l) => (JSON.parse(l) as { content: Array<{ type: string; content: unknown; is_error?: boolean }> }).content)
    .filter((b) => b.type === "tool_result");

describe("CLI path flags resolve against the shell's directory, not --cwd", () => {
  it("--settings, --mcp-config, --add-dir, --session-dir and the input file are all read from where the command runs", async () => {
    await withTempDir(async (raw) => {
      const root = await realpath(raw);
      const shell = join(root, "shell");
      const project = join(root, "project");
      const extra = join(shell, "extra");
      mkdirSync(project);
      mkdirSync(extra, { recursive: true });
      writeFileSync(join(extra, "note.txt"), "from the added dir\n");
      // Same names under --cwd, which must not be the ones used.
      mkdirSync(join(project, "extra"));
      writeFileSync(join(shell, "settings.json"), JSON.stringify({ permissions: { deny: ["Grep"] } }));
      writeFileSync(join(project, "settings.json"), JSON.stringify({ permissions: { deny: ["Glob"] } }));
      writeFileSync(join(shell, "servers.json"), JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } } }));
      const turns = [
        [{ type: "tool_use", id: "read", name: "Read", input: { file_path: join(extra, "note.txt") } }],
        [{ type: "tool_use", id: "grep", name: "Grep", input: { pattern: "x" } }],
        [{ type: "tool_use", id: "glob", name: "Glob", input: { pattern: "*" } }],
        [{ type: "tool_use", id: "mcp", name: "mcp__fx__echo", input: { text: "served" } }],
      ];
      writeFileSync(join(shell, "turns.jsonl"), turns.map((t) => JSON.stringify(t)).join("\n") + "\n");
      const r = armature(shell, [
        "exec",
        "turns.jsonl",
        "--cwd",
        project,
        "--settings",
        "settings.json",
        "--mcp-config",
        "servers.json",
        "--add-dir",
        "extra",
        "--session-dir",
        "state",
        "--allow",
        "mcp__fx",
      ]);
      expect(r.stderr).not.toMatch(/no such file|not a directory/);
      const [read, grep, glob, mcp] = results(r.stdout);
      expect(read!.is_error, JSON.stringify(read)).toBeFalsy();
      expect(JSON.stringify(read!.content)).toContain("from the added dir");
      expect(grep!.is_error).toBe(true);
      expect(glob!.is_error).toBeFalsy();
      expect(mcp!.content).toEqual([{ type: "text", text: "served" }]);
      expect(existsSync(join(shell, "state"))).toBe(true);
      expect(existsSync(join(project, "state"))).toBe(false);
    });
  }, 90_000);

  it("a --add-dir that does not exist is an error naming it (exit 2)", async () => {
    await withTempDir(async (raw) => {
      const root = await realpath(raw);
      const r = armature(root, ["exec", "-", "--add-dir", "missing"], "[]\n");
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`--add-dir: ${join(root, "missing")} is not a directory`);
      writeFileSync(join(root, "file"), "");
      const f = armature(root, ["permissions", "list", "--add-dir", "file"]);
      expect(f.status).toBe(2);
      expect(f.stderr).toContain(`--add-dir: ${join(root, "file")} is not a directory`);
    });
  }, 60_000);
});

describe("--json on trust and gc", () => {
  it("trust: trusting, --status, --list and --revoke each print one JSON object", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const config = join(dir, "config");
      mkdirSync(join(dir, ".armature"));
      writeFileSync(join(dir, ".armature", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test)"] } }));
      const env = { ARMATURE_CONFIG_DIR: config };
      const before = armature(dir, ["trust", "--status", "--json", dir], "", env);
      expect(before.status).toBe(1);
      expect(JSON.parse(before.stdout)).toEqual({ dir, trusted: false, state: "untrusted", changes: [] });
      const t = armature(dir, ["trust", "--json", dir], "", env);
      expect(t.status).toBe(0);
      const trusted = JSON.parse(t.stdout) as { dir: string; trusted: boolean; pinned: Array<{ entry: string }>; notPinned: string[]; changesSinceLastTrust: string[] };
      expect(trusted).toMatchObject({ dir, trusted: true, changesSinceLastTrust: [], notPinned: [] });
      expect(trusted.pinned.map((p) => p.entry)).toEqual([".armature/settings.json: permissions.allow"]);
      const list = JSON.parse(armature(dir, ["trust", "--list", "--json"], "", env).stdout) as { store: string; projects: Array<{ dir: string; trusted: boolean }> };
      expect(list.store).toBe(join(config, "trust.json"));
      expect(list.projects).toEqual([expect.objectContaining({ dir, trusted: true, changes: [] })]);
      expect(JSON.parse(armature(dir, ["trust", "--revoke", "--json", dir], "", env).stdout)).toEqual({ dir, revoked: true });
      const empty = armature(dir, ["trust", "--list", "--json"], "", env);
      expect(JSON.parse(empty.stdout)).toEqual({ store: join(config, "trust.json"), projects: [] });
      expect(empty.stderr).toBe("");
    });
  }, 60_000);

  it("gc: the folders removed (or that would be), as one JSON object", async () => {
    await withTempDir(async (raw) => {
      const dir = await realpath(raw);
      const old = join(dir, "armature-exec-old");
      const fresh = join(dir, "armature-exec-fresh");
      mkdirSync(old);
      mkdirSync(fresh);
      const longAgo = new Date(Date.now() - 30 * 86_400_000);
      utimesSync(old, longAgo, longAgo);
      const dry = armature(dir, ["gc", "--dir", dir, "--temp-files", dir, "--dry-run", "--json"]);
      expect(dry.status).toBe(0);
      expect(JSON.parse(dry.stdout)).toEqual({ root: dir, olderThanDays: 7, dryRun: true, folders: [old], staleLocks: [], tempFiles: [], protectedPaths: [], errors: [], truncated: false });
      expect(existsSync(old)).toBe(true);
      const real = armature(dir, ["gc", "--dir", dir, "--temp-files", dir, "--json"]);
      expect(JSON.parse(real.stdout)).toMatchObject({ dryRun: false, folders: [old] });
      expect(readdirSync(dir)).toEqual(["armature-exec-fresh"]);
      const none = armature(dir, ["gc", "--dir", dir, "--temp-files", dir, "--json"]);
      expect(JSON.parse(none.stdout)).toMatchObject({ folders: [] });
      expect(none.stderr).toBe("");
    });
  }, 60_000);
});
