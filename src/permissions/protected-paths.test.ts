import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { PROTECTED_DIRS, PROTECTED_FILES } from "../fs/protected-names.js";
import { gitDirReason, globMayNameProtected, protectedPathReason } from "./safety.js";

describe("protected paths (data with a reason per entry)", () => {
  it("every entry says why", () => {
    for (const e of [...PROTECTED_DIRS, ...PROTECTED_FILES]) {
      expect(e.reason.length).toBeGreaterThan(10);
      expect(e.name).toBe(e.name.toLowerCase());
    }
  });

  it.each([
    ["/p/.git/hooks/pre-commit", /\.git\/ is a protected directory/],
    ["/p/.hg/hgrc", /\.hg\/ is a protected directory.*hgrc/],
    ["/p/venv/lib/python3.12/site-packages/evil.pth", /\.pth file in site-packages/],
    ["/usr/lib/python3/dist-packages/x.pth", /\.pth file in dist-packages/],
    ["/p/.Rprofile", /\.rprofile is a protected file/],
    ["/p/.github/workflows/ci.yml", /\.github\/workflows is protected/],
    ["/p/.GitHub/Workflows/ci.yml", /\.github\/workflows is protected/],
    ["/p/.gitlab-ci.yml", /CI configuration/],
    ["/p/.envrc", /direnv/],
    ["/p/.npmrc", /package manager/],
    ["/p/.yarnrc.yml", /package manager/],
    ["/p/.vscode/tasks.json", /\.vscode\/ is a protected directory/],
    ["/p/.vscode/settings.json", /\.vscode\//],
    ["/p/.devcontainer/devcontainer.json", /\.devcontainer\//],
    ["/p/.armature/settings.json", /\.armature\//],
    ["/p/.claude/settings.local.json", /\.claude\//],
    ["/p/.mcp.json", /MCP servers/],
    ["/p/sub/sitecustomize.py", /Python imports it/],
    ["/p/.circleci/config.yml", /\.circleci\//],
  ])("%s is protected", (path, reason) => {
    expect(protectedPathReason(path)).toMatch(reason);
  });

  it.each([
    "/p/src/index.ts",
    "/p/README.md",
    "/p/.github/ISSUE_TEMPLATE/bug.md",
    "/p/docs/workflows/ci.md",
    "/p/lib/paths.pth.txt",
    "/p/notes.pth",
    "/p/.claude/worktrees/x/src/a.ts",
    "/p/config/app.json",
    "/p/src/rprofile.R",
  ])("%s is not protected (benign control)", (path) => {
    expect(protectedPathReason(path)).toBeNull();
  });

  it("a directory acting as a git dir: config, HEAD, objects/, hooks/ next to HEAD or other git-dir entries", async () => {
    await withTempDir(async (dir) => {
      const bare = join(dir, "bare");
      mkdirSync(join(bare, "objects"), { recursive: true });
      writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
      expect(gitDirReason(join(bare, "config"))).toMatch(/acts as a git directory \(it holds head, objects\)/);
      expect(protectedPathReason(join(bare, "config"))).toMatch(/acts as a git directory/);
      expect(protectedPathReason(join(bare, "hooks", "post-checkout"))).toMatch(/acts as a git directory/);
      expect(protectedPathReason(join(bare, "objects", "ab", "cdef"))).toMatch(/acts as a git directory/);
      // HEAD written last into a directory that already has the rest.
      const late = join(dir, "late");
      mkdirSync(join(late, "refs"), { recursive: true });
      writeFileSync(join(late, "config"), "[core]\n");
      expect(protectedPathReason(join(late, "HEAD"))).toMatch(/acts as a git directory/);
      // Benign controls: a config folder in an ordinary project, a file named config alone.
      const proj = join(dir, "proj");
      mkdirSync(join(proj, "config"), { recursive: true });
      mkdirSync(join(proj, "src"), { recursive: true });
      expect(protectedPathReason(join(proj, "config", "app.json"))).toBeNull();
      expect(protectedPathReason(join(proj, "src", "config"))).toBeNull();
      expect(protectedPathReason(join(proj, "HEAD"))).toBeNull();
    });
  });

  it("globs that may expand to a protected name", () => {
    expect(globMayNameProtected(".hg")).toBe(true);
    expect(globMayNameProtected("*.pth")).toBe(true);
    expect(globMayNameProtected("workflow?")).toBe(true);
    expect(globMayNameProtected("*.o")).toBe(false);
  });
});
