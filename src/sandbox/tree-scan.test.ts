// The walk that finds protected names at any depth, and the removal of what a call created there:
// table-driven layouts with the attacks of issue 34 (links on the way, nested repositories, a .git
// file) and the controls that must stay (a clone's own git files, other files).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { markPendingCall, recoverPendingCalls, removeCreatedProtected, unplainGitKeys } from "./remove-created.js";
import { scanTree } from "./tree-scan.js";

function write(root: string, rel: string, text = "x\n"): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

describe("scanTree: protected names at any depth", () => {
  it.each<[string, string[], string[]]>([
    ["a nested repository's hooks and config", ["sub/repo/.git/hooks/pre-commit", "sub/repo/.git/config", "sub/repo/.git/objects/ab"], ["sub/repo/.git/hooks", "sub/repo/.git/config"]],
    ["a .git file (gitdir redirect)", ["vendor/x/.git"], ["vendor/x/.git"]],
    ["config.worktree and info", [".git/config.worktree", ".git/info/attributes"], [".git/config.worktree", ".git/info"]],
    ["nested settings and editor folders", ["a/b/.claude/settings.json", "pkg/.vscode/tasks.json", "deep/er/.envrc", "svc/.mcp.json", "w/.npmrc", "x/.husky/pre-commit", "y/.armature/settings.json"], ["a/b/.claude", "pkg/.vscode", "deep/er/.envrc", "svc/.mcp.json", "w/.npmrc", "x/.husky", "y/.armature"]],
    ["a .pth file in a virtual environment", [".venv/lib/python3.11/site-packages/evil.pth", ".venv/lib/python3.11/site-packages/pkg/mod.py"], [".venv/lib/python3.11/site-packages/evil.pth"]],
    ["CI workflows below the top", ["apps/web/.github/workflows/ci.yml"], ["apps/web/.github/workflows"]],
    ["control: ordinary files", ["src/a.ts", "docs/config", "hooks/x", "site-packages-notes.txt"], []],
  ])("%s", async (_name, files, expected) => {
    await withTempDir(async (root) => {
      for (const f of files) write(root, f);
      const scan = scanTree([root]);
      expect(scan.complete).toBe(true);
      expect(scan.protected.map((p) => p.slice(root.length + 1)).sort()).toEqual([...expected].sort());
    });
  });

  it("core.hooksPath names a folder: it is protected; links are listed, never followed", async () => {
    await withTempDir(async (root) => {
      write(root, ".git/config", '[core]\n\thooksPath = "tools/hooks"\n');
      write(root, "tools/hooks/pre-commit");
      write(root, "outside/.claude/settings.json");
      mkdirSync(join(root, "proj"));
      symlinkSync(join(root, "outside"), join(root, "proj", "link"));
      expect(scanTree([root]).protected).toContain(join(root, "tools/hooks"));
      expect(scanTree([join(root, "proj")]).protected).toEqual([]);
    });
  });

  it("the rules' marks: hidden paths are listed and not entered, protected ones join the list", async () => {
    await withTempDir(async (root) => {
      write(root, "a/.env", "SECRET");
      write(root, "secrets/k/key");
      write(root, "gen/out.js");
      const scan = scanTree([root], {
        mark: (p) => (p.endsWith("/.env") || p.endsWith("/secrets") ? "hide" : p.endsWith("/gen") ? "protect" : undefined),
        markKey: "t",
      });
      expect(scan.hidden.map((h) => h.path.slice(root.length + 1)).sort()).toEqual(["a/.env", "secrets"]);
      expect(scan.protected).toEqual([join(root, "gen")]);
    });
  });

  it("a tree over the limit says it is incomplete", async () => {
    await withTempDir(async (root) => {
      for (let i = 0; i < 20; i++) write(root, `d${i}/f`);
      expect(scanTree([root], { entryLimit: 10 }).complete).toBe(false);
    });
  });
});

describe("removeCreatedProtected: only what the call created, never through a link", () => {
  it("removes new protected paths at any depth; keeps what existed and every other file", async () => {
    await withTempDir(async (root) => {
      write(root, "old/.envrc", "kept");
      const before = scanTree([root]);
      write(root, "a/b/.envrc");
      write(root, "pkg/.vscode/tasks.json");
      write(root, "src/new.ts");
      const { removed } = removeCreatedProtected(before, scanTree([root]), [root]);
      expect(removed.map((p) => p.slice(root.length + 1)).sort()).toEqual(["a/b/.envrc", "pkg/.vscode"]);
      expect(readFileSync(join(root, "old/.envrc"), "utf8")).toBe("kept");
      expect(existsSync(join(root, "src/new.ts"))).toBe(true);
    });
  });

  it("attack: a folder on the way replaced by a link to outside — nothing outside is removed", async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "project");
      const outside = join(dir, "home");
      write(outside, ".config/git/config", "user config");
      write(outside, "workflows-target/workflows/ci.yml", "outside");
      mkdirSync(root);
      const before = scanTree([root]);
      // What a checked-out branch can hold: .config -> the home's, .github -> another folder.
      symlinkSync(join(outside, ".config"), join(root, ".config"));
      symlinkSync(join(outside, "workflows-target"), join(root, ".github"));
      const after = scanTree([root]);
      const { removed } = removeCreatedProtected(before, after, [root]);
      expect(existsSync(join(outside, ".config/git/config"))).toBe(true);
      expect(existsSync(join(outside, "workflows-target/workflows/ci.yml"))).toBe(true);
      expect(removed.every((p) => p.startsWith(root))).toBe(true);
    });
  });

  it("a repository the call made keeps git's own files; hooks that are not samples and a config naming programs go", async () => {
    await withTempDir(async (root) => {
      const before = scanTree([root]);
      execFileSync("git", ["init", "-q", join(root, "clean")]);
      execFileSync("git", ["init", "-q", join(root, "evil")]);
      writeFileSync(join(root, "evil/.git/hooks/post-checkout"), "#!/bin/sh\ntouch /tmp/pwned\n");
      writeFileSync(join(root, "evil/.git/config"), readFileSync(join(root, "evil/.git/config"), "utf8") + "[core]\n\tfsmonitor = ./run.sh\n");
      const { removed } = removeCreatedProtected(before, scanTree([root]), [root]);
      expect(removed.map((p) => p.slice(root.length + 1)).sort()).toEqual(["evil/.git/config", "evil/.git/hooks/post-checkout"]);
      expect(existsSync(join(root, "clean/.git/config"))).toBe(true);
      expect(execFileSync("git", ["-C", join(root, "clean"), "status", "--short"], { encoding: "utf8" })).toBe("");
    });
  });

  it("unplainGitKeys: what init and clone write is plain; programs, includes and odd lines are not", () => {
    const clone = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote "origin"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n';
    expect(unplainGitKeys(clone)).toEqual([]);
    expect(unplainGitKeys("[core]\n\tfsmonitor = x\n")).toEqual(["core.fsmonitor"]);
    expect(unplainGitKeys("[include]\n\tpath = ../x\n")).toEqual(["include.path"]);
    expect(unplainGitKeys('[filter "lfs"]\n\tsmudge = x\n')).toEqual(["filter.*.smudge"]);
    expect(unplainGitKeys("[core] pager = less\n")).toHaveLength(1);
    expect(unplainGitKeys('[alias]\n\tco = !sh -c "x"\n')).toEqual(["alias.co"]);
  });

  it("a call whose armature died: the next start removes what it created, from the record", async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "project");
      const pending = join(dir, "pending");
      mkdirSync(root);
      const before = scanTree([root]);
      markPendingCall(pending, { roots: [root], before, extraProtected: [] });
      write(root, "x/.envrc");
      // This process is alive: its record is left for it.
      expect(recoverPendingCalls(pending)).toEqual([]);
      const record = join(pending, execFileSync("ls", [pending], { encoding: "utf8" }).trim());
      const dead = JSON.parse(readFileSync(record, "utf8")) as { pid: number };
      dead.pid = 2 ** 22 + 12345;
      writeFileSync(record, JSON.stringify(dead));
      expect(recoverPendingCalls(pending)).toEqual([join(root, "x/.envrc")]);
      expect(existsSync(record)).toBe(false);
    });
  });
});
