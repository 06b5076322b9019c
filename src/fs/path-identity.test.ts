import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LINK_WALK_MAX_ENTRIES, procPath, walkLinks } from "./path-identity.js";
import { realCanonicalize } from "../permissions/paths.js";

describe("procPath: /proc and /dev/fd as the shell's process sees them", () => {
  it.each([
    ["/proc/self/cwd/.env", { kind: "alias", path: "./.env" }],
    ["/proc/self/cwd", { kind: "alias", path: "." }],
    ["/proc/thread-self/cwd/a/../.env", { kind: "alias", path: "./a/../.env" }],
    ["/proc/self/task/12/cwd/x", { kind: "alias", path: "./x" }],
    ["/proc/self/cwd/../.env", { kind: "alias", path: "./../.env" }],
    ["/proc/self/root/etc/passwd", { kind: "alias", path: "/etc/passwd" }],
    ["/proc/self/root/../etc/passwd", { kind: "alias", path: "/etc/passwd" }],
    ["/proc/self/root/proc/self/cwd/.env", { kind: "alias", path: "./.env" }],
    ["/proc/./self//cwd/.env", { kind: "alias", path: "./.env" }],
    ["/dev/fd/3", { kind: "descriptor" }],
    ["/dev/stdin", { kind: "descriptor" }],
    ["/proc/self/fd/0", { kind: "descriptor" }],
    ["/dev/fd/3/../.env", { kind: "unknown" }],
    ["/proc/self/fd/3/x", { kind: "unknown" }],
    ["/proc/1/cwd/.env", { kind: "unknown" }],
    ["/proc/1234/root/etc/shadow", { kind: "unknown" }],
    ["/proj/../proc/self/cwd/.env", { kind: "unknown" }],
    ["/proc/cpuinfo", { kind: "plain" }],
    ["/proc/self/status", { kind: "plain" }],
    ["/proj/src/a.ts", { kind: "plain" }],
  ])("%s", (path, expected) => {
    expect(procPath(path)).toEqual(expected);
  });
});

describe("walkLinks: where symlinks below a root lead", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "armature-links-")));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "tree/a/b"), { recursive: true });
  mkdirSync(join(root, "outside/deeper"), { recursive: true });
  mkdirSync(join(root, "far"), { recursive: true });
  writeFileSync(join(root, "outside/secret"), "s");
  writeFileSync(join(root, "far/key"), "k");
  writeFileSync(join(root, "tree/a/file"), "f");
  symlinkSync(join(root, "outside"), join(root, "tree/a/b/dir-link"));
  symlinkSync(join(root, "far/key"), join(root, "outside/deeper/key-link"));
  symlinkSync("..", join(root, "tree/a/loop"));

  it("finds link targets, follows links to directories, and stops at loops", () => {
    const got = walkLinks([join(root, "tree")], (p) => realCanonicalize(p));
    expect(got.truncated).toBe(false);
    expect(got.targets.sort()).toEqual([join(root, "far/key"), join(root, "outside"), join(root, "tree")].sort());
    expect(got.directories.sort()).toEqual([join(root, "outside"), join(root, "tree")].sort());
  });

  it("a tree with no links gives nothing; a file root gives nothing", () => {
    expect(walkLinks([join(root, "far")], (p) => realCanonicalize(p)).targets).toEqual([]);
    expect(walkLinks([join(root, "far/key")], (p) => realCanonicalize(p)).targets).toEqual([]);
  });

  it("stops at its bound and says so", () => {
    const big = join(root, "big");
    mkdirSync(big);
    for (let i = 0; i <= LINK_WALK_MAX_ENTRIES / 1000; i++) {
      const d = join(big, `d${i}`);
      mkdirSync(d);
      for (let k = 0; k < 1000; k++) writeFileSync(join(d, `f${k}`), "");
    }
    expect(walkLinks([big], (p) => realCanonicalize(p)).truncated).toBe(true);
  });
});
