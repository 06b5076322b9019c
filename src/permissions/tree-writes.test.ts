import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedTool, request } from "../../test/permission-helpers.js";
import { analyzeCommand } from "../shell/index.js";
import type { PermissionMode } from "../tool/types.js";
import { resolvePermission } from "./resolve.js";
import { treeWriter } from "./tree-writes.js";

let root: string;
/** A plain project (no protected entries) and one with `.claude/` at its root. */
let plain: string;
let configured: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "armature-tree-writes-")));
  plain = join(root, "plain");
  configured = join(root, "configured");
  for (const d of ["plain/sub/x", "plain/build", "plain/dirA", "configured/.claude", "configured/sub"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(plain, "a.txt"), "a\n");
  // Real, benign archives (a normal src tree) for the extractions that must stay allowed.
  writeFileSync(join(plain, "dirA", "index.ts"), "export {};\n");
  execFileSync("tar", ["-cf", "a.tar", "dirA"], { cwd: plain });
  execFileSync("zip", ["-qr", "a.zip", "dirA"], { cwd: plain });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function decide(command: string, cwd: string, rules: { deny?: string[]; ask?: string[] } = {}, mode: PermissionMode = "bypassPermissions") {
  const subject = { kind: "shell" as const, facts: analyzeCommand(command) };
  return resolvePermission(request({ tool: namedTool("Bash"), subject, cwd, mode, ...rules }));
}

describe("whole-tree writers above an Edit deny or ask path ask in every mode", () => {
  it.each([
    "git checkout .",
    "git stash",
    "git stash pop",
    "git restore .",
    "git reset --hard HEAD",
    "git -C . checkout main",
    "patch -p1 < fix.patch",
    "unzip a.zip",
    "tar -x -C . -f a.tar",
    "tar xzf a.tgz",
    "cp -r /tmp/evil/. .",
    "cp -a /tmp/evil/sub .",
    "rsync -a /tmp/evil/ ./",
    "mv dirA .",
    "cd build && tar xf a.tar -C ..",
  ])("%s with Edit(sub) denied", (command) => {
    const d = decide(command, plain, { deny: ["Edit(./sub)"] });
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.reason).toMatch(/^Writing below .+ needs approval: it may change paths that rule Edit\(\.\/sub\) restricts$/);
  });

  it.each<PermissionMode>(["default", "acceptEdits", "bypassPermissions", "auto"])("git checkout . with Edit(sub) ask in %s mode", (mode) => {
    const d = decide("git checkout .", plain, { ask: ["Edit(./sub)"] }, mode);
    expect(d.behavior).toBe("ask");
  });

  it("dontAsk denies what would ask", () => {
    expect(decide("git stash", plain, { deny: ["Edit(./sub)"] }, "dontAsk").behavior).toBe("deny");
  });

  it("a target that is the denied path itself is denied by the rule", () => {
    expect(decide("tar -x -C sub -f a.tar", plain, { deny: ["Edit(./sub)"] }).behavior).toBe("deny");
  });
});

describe("ordinary writes and tree writes elsewhere stay as they were", () => {
  it.each([
    "echo x > out.txt",
    "cp a.txt b.txt",
    "mkdir build2",
    "touch f",
    "mv a.txt b.txt",
    "mv a.txt build",
    "tar -x -C build -f a.tar",
    "unzip a.zip -d build",
    "cp -r dirA build",
    "git stash list",
    "git stash show",
    "tar -tf a.tar",
    "unzip -l a.zip",
  ])("%s with Edit(./sub) denied", (command) => {
    const d = decide(command, plain, { deny: ["Edit(./sub)"] });
    expect(d.behavior, d.reason).toBe("allow");
  });
});

describe("whole-tree writers over protected paths", () => {
  it.each([
    ["git checkout main", "configured", /\.claude/],
    ["git stash", "configured", /\.claude/],
    ["unzip a.zip", "plain", /working directory/],
    ["patch -p1 -i p", "plain", /working directory/],
    ["tar xf a.tar", "plain", /working directory/],
    ["cp -r /tmp/evil/. .", "configured", /\.claude/],
    ["cp -r /tmp/evil/. .", "plain", /working directory/],
    ["rsync -a /tmp/evil/ ./", "plain", /working directory/],
    ["mv dirA ..", "plain", /working directory/],
  ])("%s in %s asks", (command, where, why) => {
    const d = decide(command, where === "plain" ? plain : configured);
    expect(d.behavior, d.reason).toBe("ask");
    expect(d.reason).toMatch(/^Writing below .+ needs approval: it may write protected paths there/);
    expect(d.reason).toMatch(why);
  });

  it.each([
    ["git checkout main", "plain"],
    ["git stash", "plain"],
    ["unzip a.zip -d build", "plain"],
  ])("%s in %s is allowed (nothing protected below)", (command, where) => {
    expect(decide(command, where === "plain" ? plain : configured).behavior).toBe("allow");
  });

  it("git's own .git directory does not count for git's work-tree writers", () => {
    mkdirSync(join(plain, ".git"), { recursive: true });
    try {
      expect(decide("git checkout .", plain).behavior).toBe("allow");
      expect(decide("tar -x -C . -f a.tar", plain).behavior).toBe("ask");
    } finally {
      rmSync(join(plain, ".git"), { recursive: true, force: true });
    }
  });
});

describe("tree writers are decided by command and subcommand", () => {
  it.each([
    ["git checkout .", "git"],
    ["git -c a=b stash", "git"],
    ["git log", null],
    ["tar -czf a.tgz src", null],
    ["tar --extract -f a.tar", "archive"],
    ["cp a b", "place"],
    ["ln -s a b", "place"],
    ["install -d a b", null],
    ["cp -R a b", "copy"],
    ["cp --archive a b", "copy"],
    ["rsync a b", "copy"],
    ["patch -p1", "archive"],
    ["touch f", null],
  ])("%s → %s", (command, kind) => {
    const sub = analyzeCommand(command).subcommands[0]!;
    expect(treeWriter(sub)).toBe(kind);
  });
});

describe("searches that read their stdin read no directory", () => {
  it.each([
    ["git log | rg foo", "allow"],
    ["rg foo < a.txt", "allow"],
    ["cat a.txt | grep foo", "allow"],
    ["rg foo", "ask"],
    ["git log | rg foo .", "ask"],
    ["git log | grep -r foo", "ask"],
    ["git grep foo -- build", "allow"],
    ["git grep foo", "ask"],
  ])("%s with Read(./sub) denied → %s", (command, behavior) => {
    const d = decide(command, plain, { deny: ["Read(./sub)"] }, "default");
    expect(d.behavior, d.reason).toBe(behavior);
  });
});
