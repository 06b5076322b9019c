import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedTool, request } from "../../test/permission-helpers.js";
import { analyzeCommand } from "../shell/index.js";
import { createReadDenyFilter } from "../tools/search/deny.js";
import type { PermissionMode } from "../tool/types.js";
import { parseRuleLists } from "./rule.js";
import { isUnresolvable, MAX_SYMLINK_DEPTH, memoCanonicalize, realCanonicalize } from "./paths.js";
import { resolvePermission } from "./resolve.js";

/**
 * Two bypasses a review reproduced: a symlink whose target does not exist was judged by its own
 * name (so writing through it created `.git/hooks/pre-commit`), and a `cd` moved the anchor of
 * `./x` rules and the working directories with the shell. Real directories, real symlinks.
 */
let root: string;
let proj: string;
let src: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "armature-anchor-")));
  proj = join(root, "p");
  src = join(proj, "src");
  for (const d of ["p/src", "p/secret", "p/.git/hooks", "other"]) mkdirSync(join(root, d), { recursive: true });
  for (const [f, text] of Object.entries({ "p/secret/key": "k\n", "p/package.json": "{}\n", "p/src/app.ts": "a\n", "other/notes.txt": "n\n" })) {
    writeFileSync(join(root, f), text);
  }
  const links: Record<string, string> = {
    "p/src/g2": "../.git/hooks/pre-commit",
    "p/src/o3": join(root, "x", "nonexist", "newfile"),
    "p/src/rc": "../.bashrc",
    "p/src/chain": "g2",
    "p/src/sec": "../secret/newkey",
    "p/src/inside": "new.ts",
    "p/src/existing": "app.ts",
    "p/src/loop1": "loop2",
    "p/src/loop2": "loop1",
    "p/src/self": "self",
  };
  for (const [link, target] of Object.entries(links)) symlinkSync(target, join(root, link));
  // Chains of links: one the kernel follows (39 hops), one it refuses (41 hops, ELOOP).
  for (const [name, hops] of [["short", MAX_SYMLINK_DEPTH - 1], ["long", MAX_SYMLINK_DEPTH + 1]] as const) {
    for (let i = 0; i < hops; i++) symlinkSync(i === hops - 1 ? "../.git/hooks/post-merge" : `${name}${i + 1}`, join(src, `${name}${i}`));
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("canonical names of dangling symlinks", () => {
  it.each([
    ["src/g2", "p/.git/hooks/pre-commit"],
    ["src/o3", "x/nonexist/newfile"],
    ["src/o3/below", "x/nonexist/newfile/below"],
    ["src/rc", "p/.bashrc"],
    ["src/chain", "p/.git/hooks/pre-commit"],
    ["src/sec", "p/secret/newkey"],
    ["src/inside", "p/src/new.ts"],
    ["src/existing", "p/src/app.ts"],
    ["src/g2/..", "p/.git/hooks"],
    ["src/../src/g2", "p/.git/hooks/pre-commit"],
    ["src/short0", "p/.git/hooks/post-merge"],
    ["src/new/deeper.ts", "p/src/new/deeper.ts"],
  ])("%s → %s", (path, expected) => {
    for (const canonicalize of [realCanonicalize, memoCanonicalize(realCanonicalize)]) {
      expect(canonicalize(`${proj}/${path}`)).toBe(join(root, expected));
    }
  });

  it.each(["src/loop1", "src/self", "src/loop1/x", `src/long0`])("%s is unresolvable (a loop, or deeper than the kernel follows)", (path) => {
    for (const canonicalize of [realCanonicalize, memoCanonicalize(realCanonicalize)]) {
      expect(isUnresolvable(canonicalize(`${proj}/${path}`))).toBe(true);
    }
  });

  it("a missing path right below the root is itself", () => {
    expect(realCanonicalize("/armature-no-such-entry")).toBe("/armature-no-such-entry");
  });
});

function write(path: string, mode: PermissionMode, rules: { allow?: readonly string[]; deny?: readonly string[] } = {}) {
  const lists = { allow: rules.allow ? [...rules.allow] : undefined, deny: rules.deny ? [...rules.deny] : undefined };
  return resolvePermission(request({ tool: namedTool("Write"), subject: { kind: "file", access: "write", paths: [path] }, cwd: proj, mode, ...lists }));
}

describe("writes through dangling symlinks are judged where they land", () => {
  it.each([
    ["src/g2", "acceptEdits", {}, "ask", /\.git/],
    ["src/chain", "acceptEdits", {}, "ask", /\.git/],
    ["src/rc", "acceptEdits", {}, "ask", /resolves to .*\/p\/\.bashrc, and \.bashrc is a protected file/],
    ["src/o3", "acceptEdits", {}, "ask", /outside/],
    ["src/rc", "default", { allow: ["Edit(./src/**)"] }, "ask", /\.bashrc/],
    ["src/o3", "default", { allow: ["Edit(./src/**)"] }, "ask", /./],
    ["src/sec", "bypassPermissions", { deny: ["Edit(./secret/**)"] }, "deny", /Edit\(\.\/secret\/\*\*\)/],
    ["src/loop1", "acceptEdits", {}, "ask", /./],
    ["src/loop1", "default", { allow: ["Edit(//**)"] }, "ask", /./],
    ["src/long0", "default", { allow: ["Edit(//**)"] }, "ask", /./],
    ["src/inside", "acceptEdits", {}, "allow", /./],
    ["src/existing", "acceptEdits", {}, "allow", /./],
    ["src/new.ts", "default", { allow: ["Edit(./src/**)"] }, "allow", /./],
  ] as const)("Write %s in %s %j → %s", (path, mode, rules, behavior, reason) => {
    const d = write(join(proj, path), mode, rules);
    expect(d.behavior, d.reason).toBe(behavior);
    expect(d.reason).toMatch(reason);
  });

  it.each(["touch src/g2", "cp package.json src/g2", "cd src && touch chain", "touch src/o3", "mkdir -p src/o3/more"])("%s in acceptEdits asks", (command) => {
    const d = resolvePermission(request({ tool: namedTool("Bash"), subject: { kind: "shell", facts: analyzeCommand(command) }, cwd: proj, mode: "acceptEdits" }));
    expect(d.behavior, d.reason).toBe("ask");
  });
});

describe("after a cd, relative rules and the working directories stay at the project", () => {
  const secretRules = ["Read(./secret/**)", "Read(secret/**)", "Read(**/secret/**)", "Read(/secret/**)"];
  const modes: PermissionMode[] = ["bypassPermissions", "default"];
  const cases = secretRules.flatMap((rule) => modes.map((mode) => [rule, mode] as const));

  function shell(command: string, mode: PermissionMode, rules: { allow?: string[]; deny?: string[]; addDirs?: string[] } = {}) {
    return resolvePermission(request({ tool: namedTool("Bash"), subject: { kind: "shell", facts: analyzeCommand(command) }, cwd: src, projectDir: proj, mode, ...rules }));
  }
  function read(path: string, mode: PermissionMode, rules: { allow?: string[]; deny?: string[]; addDirs?: string[] } = {}) {
    return resolvePermission(request({ tool: namedTool("Read"), subject: { kind: "file", access: "read", paths: [path] }, cwd: src, projectDir: proj, mode, ...rules }));
  }

  it.each(cases)("cat ../secret/key with %s in %s is denied", (rule, mode) => {
    const d = shell("cat ../secret/key", mode, { deny: [rule] });
    expect(d.behavior, d.reason).toBe("deny");
  });

  it.each(cases)("Read of the absolute and the relative path with %s in %s is denied", (rule, mode) => {
    for (const path of [join(proj, "secret", "key"), "../secret/key"]) {
      const d = read(path, mode, { deny: [rule] });
      expect(d.behavior, `${path}: ${d.reason}`).toBe("deny");
    }
  });

  it.each([
    ["echo x > ../secret/key", "Edit(./secret/**)"],
    ["cp app.ts ../secret/key", "Edit(secret/**)"],
  ])("%s with %s denied is denied", (command, rule) => {
    const d = shell(command, "bypassPermissions", { deny: [rule] });
    expect(d.behavior, d.reason).toBe("deny");
  });

  it.each(["{P}/package.json", "../package.json", "{P}/src/app.ts"])("Read %s in default mode is inside the working directories", (path) => {
    const d = read(path.replace("{P}", proj), "default");
    expect(d.behavior, d.reason).toBe("allow");
  });

  it("cat ../package.json in default mode is a read inside the working directories", () => {
    const d = shell("cat ../package.json", "default");
    expect(d.behavior, d.reason).toBe("allow");
  });

  it("an additional directory written relatively is relative to the project, not the shell", () => {
    expect(read(join(root, "other", "notes.txt"), "default", { addDirs: ["../other"] }).behavior).toBe("allow");
    expect(read(join(root, "other", "notes.txt"), "default").behavior).toBe("ask");
  });

  it("an allow rule anchored with ./ means the project's folder after a cd", () => {
    const d = resolvePermission(
      request({ tool: namedTool("Write"), subject: { kind: "file", access: "write", paths: ["app.ts"] }, cwd: src, projectDir: proj, mode: "default", allow: ["Edit(./src/**)"] }),
    );
    expect(d.behavior, d.reason).toBe("allow");
  });

  it("reading outside the project after a cd still asks", () => {
    expect(read(join(root, "other", "notes.txt"), "default").behavior).toBe("ask");
    expect(shell("cat ../../other/notes.txt", "default").behavior).toBe("ask");
  });

  it("the search tools' deny filter is anchored at the project too", () => {
    const rules = parseRuleLists({ deny: ["Read(./secret/**)"] }, "test", proj);
    const filter = createReadDenyFilter(rules, proj, "/nonexistent-home");
    expect(filter.denies(join(proj, "secret", "key"))).toBe(true);
    expect(filter.denies(join(src, "app.ts"))).toBe(false);
  });
});
