import { lstatSync, readdirSync, statSync } from "node:fs";
import { lutimes, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import picomatch from "picomatch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolUse } from "../../../test/helpers.js";
import { createSession } from "../../session/session.js";
import { displayPath, isVcsDirectory } from "../search/paths.js";
import { crawlGlob, planGlob } from "./crawl.js";
import { createGlobTool } from "./glob.js";
import { startStatHelpers, STAT_HELPERS_FROM, stopStatHelpers } from "./stat-pool.js";

// A tree large enough that helper threads stat part of it, with many equal modification times,
// hidden files and folders, a VCS folder, and symlinks of every kind.
let root: string;
let outside: string;
const BASE = 1_600_000_000;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "armature-glob-large-"));
  outside = await mkdtemp(join(tmpdir(), "armature-glob-outside-"));
  const files: string[] = [];
  for (let i = 0; i < STAT_HELPERS_FROM + 600; i++) files.push(`pkg${i % 5}/mod${i % 13}/file${i}.${i % 3 === 0 ? "js" : "ts"}`);
  files.push(".env", ".cache/a.ts", ".cache/.b.ts", "pkg1/.hidden.ts", ".git/HEAD.ts", "pkg2/.svn/x.ts", "target.ts");
  for (const [i, rel] of files.entries()) {
    const path = join(root, rel);
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, "");
    // 41 distinct times: about 65 files share each, so the 100 oldest end inside a run of ties.
    const t = BASE + 100 + (i * 7) % 41;
    await utimes(path, t, t);
  }
  // Old enough to be among the 100 oldest.
  for (const hidden of [".env", ".cache/.b.ts", "pkg1/.hidden.ts"]) await utimes(join(root, hidden), BASE + 5, BASE + 5);
  await utimes(join(root, "target.ts"), BASE + 1, BASE + 1);
  await symlink(join(root, "target.ts"), join(root, "pkg0", "link-to-file.ts")); // listed, with the target's time
  await symlink(join(root, "pkg1"), join(root, "link-to-dir.ts")); // not followed, not listed
  await symlink(join(root, "nowhere"), join(root, "pkg3", "dangling.ts")); // listed, with its own time
  await lutimes(join(root, "pkg3", "dangling.ts"), BASE + 2, BASE + 2);
  await symlink(join(root, "pkg4", "loop.ts"), join(root, "pkg4", "loop.ts")); // listed, with its own time
  await lutimes(join(root, "pkg4", "loop.ts"), BASE + 3, BASE + 3);
});
afterAll(async () => {
  await stopStatHelpers();
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** The contract worked out the plain way: walk, match, stat, sort everything, take 100. */
function expected(searchDir: string, glob: string, cwd: string): string {
  const isMatch = picomatch(glob, { dot: true });
  const found: Array<{ path: string; mtime: number }> = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!isVcsDirectory(entry.name)) walk(path);
        continue;
      }
      if (!isMatch(relative(searchDir, path))) continue;
      let info;
      try {
        info = statSync(path);
      } catch {
        info = lstatSync(path);
      }
      if (!info.isDirectory()) found.push({ path, mtime: info.mtimeMs });
    }
  };
  walk(searchDir);
  found.sort((a, b) => a.mtime - b.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (found.length === 0) return "No files found";
  const lines = found.slice(0, 100).map((f) => displayPath(f.path, cwd));
  if (found.length > 100) lines.push(`(Showing 100 of ${found.length} matching files; ${found.length - 100} more are not listed. Narrow the pattern or path to see the rest.)`);
  return lines.join("\n");
}

async function glob(input: { pattern: string; path?: string }, cwd: string): Promise<string> {
  const session = createSession({ cwd, tools: [createGlobTool()], additionalDirectories: [root] });
  try {
    const [r] = await session.runTurn([toolUse("Glob", input, "g")]);
    expect(r!.is_error).toBeFalsy();
    return r!.content as string;
  } finally {
    await session.close();
  }
}

describe("Glob on a large tree (stats shared with helper threads)", () => {
  // [name, pattern, path (below the root), where the crawl starts (below the root), the glob below it]
  it.each([
    ["every file", "**/*", undefined, "", "**/*"],
    ["**/*.ts", "**/*.ts", undefined, "", "**/*.ts"],
    ["a directory prefix", "pkg1/**/*.ts", undefined, "pkg1", "**/*.ts"],
    ["one folder level", "*/mod1/*", undefined, "", "*/mod1/*"],
    ["hidden names only", "**/.*", undefined, "", "**/.*"],
    ["an absolute path inside the cwd", "**/*.ts", "pkg2", "pkg2", "**/*.ts"],
  ])("%s: the 100 oldest, oldest first, ties by path, with and without helper threads", async (_name, pattern, sub, start, below) => {
    const input = sub ? { pattern, path: join(root, sub) } : { pattern };
    const want = expected(join(root, start), below, root);
    await stopStatHelpers();
    expect(await glob(input, root)).toBe(want);
    await startStatHelpers();
    expect(await glob(input, root)).toBe(want);
  });

  it("what the fixture promises is in the answer", async () => {
    const lines = (await glob({ pattern: "**/*" }, root)).split("\n");
    // The link has its target's time: equal times go by path.
    expect(lines.slice(0, 4)).toEqual(["pkg0/link-to-file.ts", "target.ts", "pkg3/dangling.ts", "pkg4/loop.ts"]);
    expect(lines.slice(4, 7)).toEqual([".cache/.b.ts", ".env", "pkg1/.hidden.ts"]);
    expect(lines).not.toContain("link-to-dir.ts");
    expect(lines.some((l) => l.includes(".git/") || l.includes(".svn/"))).toBe(false);
    expect(lines.at(-1)).toMatch(/^\(Showing 100 of \d+ matching files; \d+ more are not listed\./);
  });

  it("an absolute path outside the cwd: absolute paths", async () => {
    const searchDir = join(root, "pkg3");
    expect(await glob({ pattern: "**/*.ts", path: searchDir }, outside)).toBe(expected(searchDir, "**/*.ts", outside));
    expect((await glob({ pattern: "**/*.ts", path: searchDir }, outside)).split("\n")[0]).toBe(join(root, "pkg3", "dangling.ts"));
  });

  it("an abort during the crawl rejects with its reason, and the next call is whole", async () => {
    const controller = new AbortController();
    const stopAtFirstFolder = (): boolean => {
      controller.abort(new Error("stopped"));
      return false;
    };
    await expect(crawlGlob(planGlob("**/*", root), 100, controller.signal, stopAtFirstFolder)).rejects.toThrow("stopped");
    const again = await crawlGlob(planGlob("**/*", root), 100, new AbortController().signal);
    expect(again.matches).toHaveLength(100);
    expect(again.total).toBeGreaterThan(STAT_HELPERS_FROM);
  });

  it("a path that does not exist is an error that says what to do", async () => {
    const session = createSession({ cwd: root, tools: [createGlobTool()] });
    const [r] = await session.runTurn([toolUse("Glob", { pattern: "**/*.ts", path: join(root, "nope") }, "g")]);
    await session.close();
    expect(r!.is_error).toBe(true);
    expect(r!.content).toMatch(/Directory does not exist: .*nope\. Current working directory: .*Pass an existing directory as path, or omit path/);
  });
});
