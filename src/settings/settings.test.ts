import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { loadSettings, type LoadSettingsOptions } from "./load.js";
import { SettingsError } from "./schema.js";
import { addPermissionRules, settingsPathFor } from "./write.js";

interface Layout {
  managed?: unknown;
  local?: unknown;
  project?: unknown;
  user?: unknown;
  claudeLocal?: unknown;
  claudeProject?: unknown;
  claudeUser?: unknown;
  cliFile?: unknown;
}

function put(path: string, value: unknown): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
}

/** A project, a home and a managed file in a temp dir, as real files. */
function layout(dir: string, l: Layout): LoadSettingsOptions & { proj: string; home: string } {
  const proj = join(dir, "proj");
  const home = join(dir, "home");
  mkdirSync(proj, { recursive: true });
  mkdirSync(home, { recursive: true });
  const managedPath = join(dir, "etc", "managed-settings.json");
  if (l.managed !== undefined) put(managedPath, l.managed);
  if (l.local !== undefined) put(join(proj, ".armature", "settings.local.json"), l.local);
  if (l.project !== undefined) put(join(proj, ".armature", "settings.json"), l.project);
  if (l.user !== undefined) put(join(home, ".armature", "settings.json"), l.user);
  if (l.claudeLocal !== undefined) put(join(proj, ".claude", "settings.local.json"), l.claudeLocal);
  if (l.claudeProject !== undefined) put(join(proj, ".claude", "settings.json"), l.claudeProject);
  if (l.claudeUser !== undefined) put(join(home, ".claude", "settings.json"), l.claudeUser);
  if (l.cliFile !== undefined) put(join(dir, "cli.json"), l.cliFile);
  return { cwd: proj, home, managedPath, userDir: join(home, ".armature"), proj };
}

describe("loadSettings", () => {
  it("merges arrays across every level, keeps each rule's source, scalars by precedence", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, {
        managed: { permissions: { deny: ["Bash(curl *)"] }, env: { A: "managed" } },
        local: { permissions: { allow: ["Bash(make *)"], defaultMode: "acceptEdits" }, env: { A: "local", B: "local" } },
        project: { permissions: { allow: ["Bash(npm test *)"], ask: ["Bash(git push *)"], defaultMode: "plan" }, env: { C: "project" } },
        user: { permissions: { allow: ["Read(~/notes/**)"], additionalDirectories: ["~/lib"] } },
      });
      const s = await loadSettings({ ...o, trustProject: true, cli: { deny: ["Bash(rm *)"], allowProjectEnv: true } });
      expect(s.rules.map((r) => [r.behavior, r.raw])).toEqual([
        ["deny", "Bash(curl *)"],
        ["deny", "Bash(rm *)"],
        ["allow", "Bash(make *)"],
        ["ask", "Bash(git push *)"],
        ["allow", "Bash(npm test *)"],
        ["allow", "Read(~/notes/**)"],
      ]);
      expect(s.rules[0]!.source).toBe(o.managedPath);
      expect(s.rules[1]!.source).toBe("command line");
      expect(s.rules[2]!.source).toBe(join(o.proj, ".armature", "settings.local.json"));
      expect(s.rules[4]!.root).toBe(o.proj);
      expect(s.mode).toBe("acceptEdits");
      expect(s.env).toEqual({ A: "managed", B: "local", C: "project" });
      expect(s.additionalDirectories).toEqual([join(o.home, "lib")]);
    });
  });

  it("a --mode flag beats settings; managed beats the flag", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, { project: { permissions: { defaultMode: "acceptEdits" } } });
      expect((await loadSettings({ ...o, cli: { mode: "plan" } })).mode).toBe("plan");
      const m = layout(dir, { managed: { permissions: { defaultMode: "default" } } });
      expect((await loadSettings({ ...m, cli: { mode: "plan" } })).mode).toBe("default");
    });
  });

  it("project settings never choose bypassPermissions on their own", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, { project: { permissions: { defaultMode: "bypassPermissions" } }, local: { permissions: { defaultMode: "auto" } } });
      const s = await loadSettings({ ...o, trustProject: true });
      expect(s.mode).toBe("default");
      expect(s.warnings.join("\n")).toMatch(/bypassPermissions.*ignored/);
      expect((await loadSettings({ ...o, trustProject: true, cli: { allowBypassFromProject: true } })).mode).toBe("auto");
      expect((await loadSettings({ ...o, cli: { allowBypassFromProject: true } })).mode).toBe("default");
      const u = layout(join(dir, "u"), { user: { permissions: { defaultMode: "bypassPermissions" } } });
      expect((await loadSettings(u)).mode).toBe("bypassPermissions");
      const d = layout(join(dir, "d"), { user: { permissions: { defaultMode: "bypassPermissions" } }, managed: { permissions: { disableBypassPermissionsMode: "disable" } } });
      expect((await loadSettings(d)).mode).toBe("default");
    });
  });

  it.each([
    [{ permissions: { allow: "Bash(ls)" } }, "permissions.allow"],
    [{ permissions: { deny: ["Bash(ls", "x"] } }, "permissions.deny[0]"],
    [{ permissions: { defaultMode: "yolo" } }, "permissions.defaultMode"],
    [{ env: { A: 1 } }, "env.A"],
    [{ import: ["cursor"] }, "import.0"],
    ["{ not json", "not valid JSON"],
    [[1, 2], "expected object"],
  ])("an invalid file is an error naming the file and the key (%j)", async (content, key) => {
    await withTempDir(async (dir) => {
      const o = layout(dir, { project: content });
      const err = await loadSettings(o).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SettingsError);
      expect((err as Error).message).toContain(join(o.proj, ".armature", "settings.json"));
      expect((err as Error).message).toContain(key);
    });
  });

  it("reads .claude/ files with --settings-from claude or import: [claude]", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, {
        claudeProject: { permissions: { deny: ["Read(.env)"] }, hooks: { PreToolUse: [] } },
        claudeUser: { permissions: { allow: ["Bash(ls *)"] } },
      });
      expect((await loadSettings(o)).rules).toEqual([]);
      const s = await loadSettings({ ...o, trustProject: true, cli: { settingsFrom: ["claude"] } });
      expect(s.rules.map((r) => r.raw)).toEqual(["Read(.env)", "Bash(ls *)"]);
      expect(s.hooks).toEqual([{ source: join(o.proj, ".claude", "settings.json"), config: { PreToolUse: [] }, fromProject: true }]);
      const imp = layout(join(dir, "i"), { project: { import: ["claude"] }, claudeLocal: { permissions: { ask: ["Bash(git *)"] } } });
      // A project's own `import` is a widening key: only a trusted project's turns .claude/ on.
      const untrusted = await loadSettings(imp);
      expect(untrusted.rules).toEqual([]);
      expect(untrusted.ignored.map((i) => i.detail)).toContain('import ["claude"]');
      expect((await loadSettings({ ...imp, trustProject: true })).rules.map((r) => r.raw)).toEqual(["Bash(git *)"]);
    });
  });

  it("hands every file's hooks, highest first; managed-only locks apply", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, {
        managed: { hooks: { Stop: [] }, allowManagedHooksOnly: true },
        project: { hooks: { PreToolUse: [] }, permissions: { allow: ["Bash(ls *)"] } },
      });
      expect((await loadSettings(o)).hooks.map((h) => h.source)).toEqual([o.managedPath]);
      const p = layout(join(dir, "p"), { project: { hooks: { PreToolUse: [] } }, user: { hooks: { Stop: [] } } });
      const s = await loadSettings({ ...p, trustProject: true });
      expect(s.hooks.map((h) => h.source)).toEqual([join(p.proj, ".armature", "settings.json"), join(p.home, ".armature", "settings.json")]);
      expect((await loadSettings(p)).hooks.map((h) => h.source)).toEqual([join(p.home, ".armature", "settings.json")]);
    });
  });

  it("disableAllHooks: in managed settings no hook runs, elsewhere only managed ones; HTTP hook policy from the highest level", async () => {
    await withTempDir(async (dir) => {
      const a = layout(join(dir, "a"), { managed: { hooks: { Stop: [] }, disableAllHooks: true }, project: { hooks: { PreToolUse: [] } } });
      expect((await loadSettings(a)).hooks).toEqual([]);
      const b = layout(join(dir, "b"), {
        managed: { hooks: { Stop: [] }, allowedHttpHookUrls: ["https://hooks.example.com/*"] },
        user: { disableAllHooks: true, allowedHttpHookUrls: ["*"], httpHookAllowedEnvVars: ["TOKEN"] },
        project: { hooks: { PreToolUse: [] } },
      });
      const s = await loadSettings(b);
      expect(s.hooks.map((h) => h.source)).toEqual([b.managedPath]);
      expect(s.hookPolicy).toEqual({ allowedHttpHookUrls: ["https://hooks.example.com/*"], httpHookAllowedEnvVars: ["TOKEN"] });
    });
  });

  it("a --settings file that does not exist is an error naming it (a typo must not drop rules)", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, {});
      await expect(loadSettings({ ...o, cli: { settingsFile: join(dir, "nope.json") } })).rejects.toThrow(`${join(dir, "nope.json")}: cannot read the file`);
    });
  });

  it("a trusted project's env sets only inert variables; a near-miss key is a warning", async () => {
    await withTempDir(async (dir) => {
      const env = { BASH_ENV: "/tmp/evil.sh", RIPGREP_CONFIG_PATH: "./rg", NODE_ENV: "test", API_PORT: "8080", LANG: "/tmp/x" };
      const o = layout(dir, { project: { env, permisions: { deny: ["Bash(rm *)"] } }, user: { env: { PATH: "/usr/bin" } } });
      const untrusted = await loadSettings(o);
      expect(untrusted.env).toEqual({ PATH: "/usr/bin" });
      const s = await loadSettings({ ...o, trustProject: true });
      expect(s.env).toEqual({ NODE_ENV: "test", API_PORT: "8080", PATH: "/usr/bin" });
      expect(s.ignored).toEqual([expect.objectContaining({ key: "env", detail: "env (BASH_ENV, RIPGREP_CONFIG_PATH, LANG)", why: "not-inert-env" })]);
      expect(s.warnings.join("\n")).toContain("env BASH_ENV, RIPGREP_CONFIG_PATH, LANG ignored");
      expect(s.warnings.join("\n")).toContain('unknown key "permisions" is ignored — did you mean "permissions"?');
      const all = await loadSettings({ ...o, trustProject: true, cli: { allowProjectEnv: true } });
      expect(all.env.BASH_ENV).toBe("/tmp/evil.sh");
    });
  });

  it("--settings FILE sits above the project and anchors / rules at its directory", async () => {
    await withTempDir(async (dir) => {
      const o = layout(dir, { cliFile: { permissions: { deny: ["Read(/secret/**)"], defaultMode: "dontAsk" } }, project: { permissions: { defaultMode: "plan" } } });
      const s = await loadSettings({ ...o, cli: { settingsFile: join(dir, "cli.json") } });
      expect(s.mode).toBe("dontAsk");
      expect(s.rules[0]!.root).toBe(dir);
    });
  });
});

describe("addPermissionRules", () => {
  it("adds rules atomically, keeps other keys, never repeats a rule", async () => {
    await withTempDir(async (dir) => {
      const file = settingsPathFor("local", dir);
      put(file, { env: { A: "1" }, permissions: { allow: ["Bash(ls *)"] } });
      expect(await addPermissionRules(file, "allow", ["Bash(ls *)", "Bash(npm run test *)"])).toEqual(["Bash(npm run test *)"]);
      const json = JSON.parse(await readFile(file, "utf8"));
      expect(json).toEqual({ env: { A: "1" }, permissions: { allow: ["Bash(ls *)", "Bash(npm run test *)"] } });
    });
  });
  it("never overwrites a file that is not valid JSON", async () => {
    await withTempDir(async (dir) => {
      const file = settingsPathFor("project", dir);
      put(file, "{ broken");
      await expect(addPermissionRules(file, "allow", ["Bash(ls *)"])).rejects.toThrow(/not valid JSON/);
      expect(await readFile(file, "utf8")).toBe("{ broken");
    });
  });

  it("writes at once to the same file all land (one after the other), and leave no temp file", async () => {
    await withTempDir(async (dir) => {
      const file = settingsPathFor("local", dir);
      put(file, { permissions: { allow: [] } });
      const writes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => addPermissionRules(file, "allow", [`Bash(tool${i} *)`])));
      expect(writes.filter((w) => w.status === "rejected")).toEqual([]);
      expect(JSON.parse(await readFile(file, "utf8")).permissions.allow).toEqual(Array.from({ length: 20 }, (_, i) => `Bash(tool${i} *)`));
      expect(readdirSync(dirname(file))).toEqual(["settings.local.json"]);
    });
  });

  it("the file keeps its mode; a read-only one is refused and left as it was", async () => {
    await withTempDir(async (dir) => {
      const file = settingsPathFor("local", dir);
      put(file, { permissions: { allow: [] } });
      chmodSync(file, 0o640);
      await addPermissionRules(file, "allow", ["Bash(ls *)"]);
      expect(statSync(file).mode & 0o777).toBe(0o640);
      chmodSync(file, 0o444);
      await expect(addPermissionRules(file, "allow", ["Bash(pwd)"])).rejects.toThrow(/read-only/);
      expect(JSON.parse(await readFile(file, "utf8")).permissions.allow).toEqual(["Bash(ls *)"]);
    });
  });

  it("attack: a symlink a repository planted at the settings name is replaced, its target never written", async () => {
    await withTempDir(async (dir) => {
      const victim = join(dir, "victim.json");
      writeFileSync(victim, "{}\n");
      const file = settingsPathFor("local", join(dir, "repo"));
      mkdirSync(dirname(file), { recursive: true });
      symlinkSync(victim, file);
      await addPermissionRules(file, "allow", ["Bash(ls *)"]);
      expect(await readFile(victim, "utf8")).toBe("{}\n");
      expect(lstatSync(file).isSymbolicLink()).toBe(false);
      expect(JSON.parse(await readFile(file, "utf8")).permissions.allow).toEqual(["Bash(ls *)"]);
    });
  });
});
