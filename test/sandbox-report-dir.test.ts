// The shell's cwd report lives in the session folder under the config dir (~/.armature), which the
// sandbox mounts read-only when a writable root holds it: a HOME under /tmp, or a project that is
// the home folder. The report folder must stay writable there (else every command that writes
// ends with bash's "Read-only file system" for its cwd file), and the rest of the config dir must not.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArgs } from "../src/sandbox/bwrap-args.js";
import { sandboxPlan } from "../src/sandbox/plan.js";
import { probeSandbox } from "../src/sandbox/probe.js";
import { DEFAULT_SANDBOX_SETTINGS } from "../src/sandbox/settings.js";
import { withTempDir } from "./helpers.js";

const probe = probeSandbox();

describe.runIf(probe.available)("the sandbox and armature's report folder inside a read-only config dir", () => {
  it("a writing command's cwd report is written; the config dir around it stays read-only", async () => {
    await withTempDir(async (dir) => {
      const home = join(dir, "home");
      const project = join(home, "project");
      const report = join(home, ".armature", "projects", "p", "session", "shell-cwd");
      await mkdir(report, { recursive: true });
      await mkdir(project, { recursive: true });
      const plan = sandboxPlan("workspace-write", false, DEFAULT_SANDBOX_SETTINGS, { projectDir: home, additionalDirectories: [], cwd: project, reportDir: report, env: { ...process.env, HOME: home } });
      expect(plan.readOnly).toContain(join(home, ".armature"));
      const script = `pwd -P > ${report}/cwd; echo planted > ${home}/.armature/settings.json; echo ok > ${project}/out.txt`;
      const run = spawnSync(probe.bwrap!, bwrapArgs(plan, ["/bin/bash", "-c", script]), { encoding: "utf8" });
      expect(run.stderr).toContain("settings.json: Read-only file system");
      expect(run.stderr).not.toContain(`${report}/cwd`);
      expect((await readFile(join(report, "cwd"), "utf8")).trim()).toBe(project);
      expect(existsSync(join(home, ".armature", "settings.json"))).toBe(false);
      expect(await readFile(join(project, "out.txt"), "utf8")).toBe("ok\n");
    });
  });
});
