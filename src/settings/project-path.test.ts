// Links out of the project are not the project's (issue 35): a path of the project that leads
// outside its real path through a link on the way is refused wherever armature reads or writes
// it as the project's — instructions, skills and agents folders, saved rules, worktrees.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { createWorktree } from "../worktrees/worktree.js";
import { outsideProjectReason, projectPath, trustedProjectDirs } from "./project-inputs.js";
import { settingsPathFor } from "./write.js";

function places(root: string): { project: string; outside: string } {
  const project = join(root, "project");
  const outside = join(root, "outside");
  mkdirSync(project);
  mkdirSync(outside);
  return { project: realpathSync(project), outside: realpathSync(outside) };
}

describe("where a project path really leads", () => {
  it("table: plain paths, missing ones, links inside, links out at any step", async () => {
    await withTempDir(async (root) => {
      const { project, outside } = places(root);
      mkdirSync(join(project, "src"));
      symlinkSync("src", join(project, "inner"));
      symlinkSync(outside, join(project, ".armature"));
      symlinkSync(join(outside, "secret"), join(project, "AGENTS.md"));
      symlinkSync("../outside", join(project, "up"));
      const cases: Array<[string, "inside" | "outside"]> = [
        ["src/a.ts", "inside"],
        ["missing/deeper/file", "inside"],
        ["inner/a.ts", "inside"],
        [".armature/settings.json", "outside"],
        [".armature/worktrees/x", "outside"],
        ["AGENTS.md", "outside"],
        ["up/x", "outside"],
        ["src/../up/x", "outside"],
      ];
      for (const [rel, where] of cases) expect("outside" in projectPath(project, rel) ? "outside" : "inside", rel).toBe(where);
      expect(projectPath(project, "inner/a.ts")).toEqual({ path: join(project, "src", "a.ts") });
      expect(outsideProjectReason(project, ".armature/settings.json")).toContain(`leads outside the project (to ${join(outside, "settings.json")})`);
    });
  });
});

describe("links out of the project, refused where armature uses them", () => {
  it("AGENTS.md linked to a key: the key is not in the system prompt; a real AGENTS.md is (control)", async () => {
    await withTempDir(async (root) => {
      const { project, outside } = places(root);
      writeFileSync(join(outside, "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY----- SECRET");
      symlinkSync(join(outside, "id_ed25519"), join(project, "AGENTS.md"));
      const prompt = await buildSystemPrompt({ cwd: project, toolNames: ["Read"], git: Promise.resolve(undefined) });
      expect(prompt).not.toContain("SECRET");
      const control = join(root, "control");
      mkdirSync(control);
      writeFileSync(join(control, "AGENTS.md"), "Run the tests with npm test.");
      expect(await buildSystemPrompt({ cwd: control, toolNames: ["Read"], git: Promise.resolve(undefined) })).toContain("Run the tests with npm test.");
    });
  });

  it("a trusted project's skills folder linked elsewhere is not loaded; its own folder is", async () => {
    await withTempDir(async (root) => {
      const { project, outside } = places(root);
      mkdirSync(join(project, ".armature"));
      symlinkSync(outside, join(project, ".armature", "skills"));
      mkdirSync(join(project, ".armature", "agents"));
      expect(trustedProjectDirs(project, "skills", { trusted: true, claude: false })).toEqual([]);
      expect(trustedProjectDirs(project, "agents", { trusted: true, claude: false })).toEqual([join(project, ".armature", "agents")]);
    });
  });

  it("an always-allow saved to the project's settings through `.armature -> ~/.armature` is refused, nothing written there", async () => {
    await withTempDir(async (root) => {
      const { project, outside } = places(root);
      symlinkSync(outside, join(project, ".armature"));
      expect(() => settingsPathFor("local", project)).toThrow(/leads outside the project/);
      expect(() => settingsPathFor("project", project)).toThrow(/user settings instead/);
      expect(readdirSync(outside)).toEqual([]);
      const control = join(root, "control");
      mkdirSync(control);
      expect(settingsPathFor("local", control)).toBe(join(control, ".armature", "settings.local.json"));
    });
  });

  it("a worktree is never created through `.armature/worktrees -> elsewhere`; a plain one is (control)", async () => {
    await withTempDir(async (root) => {
      const { project, outside } = places(root);
      const git = (...args: string[]): void => void execFileSync("git", ["-C", project, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
      git("init", "-q", "-b", "main");
      writeFileSync(join(project, "a.txt"), "a\n");
      git("add", "a.txt");
      git("commit", "-qm", "a");
      mkdirSync(join(project, ".armature"));
      symlinkSync(join(outside, "start"), join(project, ".armature", "worktrees"));
      mkdirSync(join(outside, "start"));
      await expect(createWorktree(project, "evil", "test")).rejects.toThrow(/leads outside the project/);
      expect(readdirSync(join(outside, "start"))).toEqual([]);
      const clean = join(root, "clean");
      execFileSync("git", ["clone", "-q", project, clean]);
      const tree = await createWorktree(clean, "ok", "test");
      expect(existsSync(join(tree.path, "a.txt"))).toBe(true);
    });
  });
});
