import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { writeSearchFixture } from "../../../test/search-fixture.js";
import { createSession } from "../../session/session.js";
import { createToolUseContext } from "../../tool/context.js";
import { planGlob } from "./crawl.js";
import { createGlobTool } from "./glob.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "armature-glob-"));
  await writeSearchFixture(dir);
  await symlink(join(dir, "sub"), join(dir, "link-to-sub"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function glob(input: Record<string, unknown>, cwd = dir): Promise<{ text: string; isError: boolean }> {
  // The fixture dir is a working directory even when cwd is below it (reads outside the working dirs ask).
  const session = createSession({ cwd, tools: [createGlobTool()], additionalDirectories: [dir] });
  try {
    const [r] = await session.runTurn([toolUse("Glob", input, "g")]);
    return { text: r!.content as string, isError: r!.is_error === true };
  } finally {
    await session.close();
  }
}

const GOLDEN: ReadonlyArray<{ name: string; input: Record<string, unknown>; expected: string }> = [
  // Oldest first; .gitignore not applied; VCS folders skipped; symlinked folders not followed.
  { name: "** across folders", input: { pattern: "**/*.ts" }, expected: "b.ts\nsub/c.ts\nsub/skip.ts" },
  // As the reference 2.1.332: a pattern without a slash matches at any depth.
  { name: "a pattern without a slash matches at any depth", input: { pattern: "*.ts" }, expected: "b.ts\nsub/c.ts\nsub/skip.ts" },
  { name: "* stays in one folder when the pattern has a slash", input: { pattern: "./*.ts" }, expected: "b.ts" },
  { name: "braces", input: { pattern: "**/*.{md,ts}" }, expected: "b.ts\nsub/c.ts\nsub/skip.ts\nsub/deep/d.md" },
  { name: "extglob", input: { pattern: "**/!(c).ts" }, expected: "b.ts\nsub/skip.ts" },
  { name: "hidden files and ignored files are included", input: { pattern: "./*" }, expected: ".gitignore\n.ignore\n.hidden.txt\na.txt\nb.ts\nignored.txt\nlocal.cache\nbin.dat\ncrlf.txt\nlong.txt" },
  { name: "VCS folders skipped", input: { pattern: "**/{config,entries,repo}" }, expected: "No files found" },
  { name: "static prefix", input: { pattern: "sub/**/*" }, expected: "sub/.gitignore\nsub/c.ts\nsub/skip.ts\nsub/deep/d.md\nsub/deep/odd:name-1.txt" },
  { name: "path", input: { pattern: "*.md", path: "sub/deep" }, expected: "sub/deep/d.md" },
  { name: "a literal file name", input: { pattern: "sub/c.ts" }, expected: "sub/c.ts" },
  { name: "none", input: { pattern: "**/*.zzz" }, expected: "No files found" },
  { name: "pattern into a missing folder", input: { pattern: "nope/**/*.ts" }, expected: "No files found" },
  { name: "\"undefined\" path means the cwd", input: { pattern: "./*.ts", path: "undefined" }, expected: "b.ts" },
];

describe("Glob", () => {
  it.each(GOLDEN)("$name", async ({ input, expected }) => {
    const out = await glob(input);
    expect(out.isError).toBe(false);
    expect(out.text).toBe(expected);
  });

  it.each([
    ["a file as path", { pattern: "*", path: "a.txt" }, /^<tool_use_error>Path is not a directory: a\.txt\. Glob searches inside a directory/],
    ["a missing path", { pattern: "*", path: "nope" }, /^<tool_use_error>Directory does not exist: nope\. Current working directory: /],
    ["NUL in the pattern", { pattern: "*.ts\0" }, /^<tool_use_error>The pattern or path contains a NUL byte/],
    ["NUL in the path", { pattern: "*.ts", path: "sub\0" }, /NUL byte/],
    ["an empty pattern", { pattern: "" }, /^<tool_use_error>The pattern is empty/],
    ["a missing pattern", { path: "sub" }, /^<tool_use_error>InputValidationError: Glob failed due to the following issue:\nThe required parameter `pattern` is missing/],
  ] as const)("error: %s", async (_name, input, expected) => {
    const out = await glob(input);
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(expected);
  });

  it("shows paths outside the cwd as absolute", async () => {
    expect((await glob({ pattern: "./*.ts", path: ".." }, join(dir, "sub"))).text).toBe(`${dir}/b.ts`);
    expect((await glob({ pattern: "../*.ts" }, join(dir, "sub"))).text).toBe(`${dir}/b.ts`);
    expect((await glob({ pattern: `${dir}/sub/*.ts` }, join(dir, "sub"))).text).toBe("c.ts\nskip.ts");
  });

  it("expands ~", async () => {
    const home = process.env.HOME;
    process.env.HOME = dir;
    try {
      expect((await glob({ pattern: "*.ts", path: "~/sub" })).text).toBe("sub/c.ts\nsub/skip.ts");
      expect((await glob({ pattern: "~/sub/*.ts" })).text).toBe("sub/c.ts\nsub/skip.ts");
    } finally {
      process.env.HOME = home;
    }
  });

  it("returns at most 100, the oldest, with a notice", async () => {
    await withTempDir(async (root) => {
      const base = Date.UTC(2024, 0, 1) / 1000;
      await mkdir(join(root, "many"));
      for (let i = 0; i < 105; i++) {
        const path = join(root, "many", `f${String(i).padStart(3, "0")}.txt`);
        await writeFile(path, "");
        await utimes(path, base + (104 - i), base + (104 - i)); // f104 is the oldest
      }
      const session = createSession({ cwd: root, tools: [createGlobTool()] });
      const { outcomes } = await session.runTurnDetailed([toolUse("Glob", { pattern: "**/*.txt" }, "a")]);
      const text = outcomes[0]!.block.content as string;
      const lines = text.split("\n");
      expect(lines).toHaveLength(101);
      expect(lines[0]).toBe("many/f104.txt");
      expect(lines[99]).toBe("many/f005.txt");
      expect(lines[100]).toBe("(Showing 100 of 105 matching files; 5 more are not listed. Narrow the pattern or path to see the rest.)");
      await session.close();
    });
  });

  it("the same mtime sorts by path", async () => {
    await withTempDir(async (root) => {
      for (const name of ["b.txt", "a.txt", "c.txt"]) {
        await writeFile(join(root, name), "");
        await utimes(join(root, name), 1_700_000_000, 1_700_000_000);
      }
      expect((await glob({ pattern: "*.txt" }, root)).text).toBe("a.txt\nb.txt\nc.txt");
    });
  });
});

describe("Glob tool contract", () => {
  const tool = createGlobTool();

  it("is read-only and concurrency-safe", () => {
    expect(tool.isReadOnly({ pattern: "*" })).toBe(true);
    expect(tool.isConcurrencySafe({ pattern: "*" })).toBe(true);
  });

  // Attack cases: the permission check must see where the crawl really goes.
  it.each([
    [{ pattern: "**/*.ts" }, "/work/proj"],
    [{ pattern: "**/*.ts", path: "src" }, "/work/proj/src"],
    [{ pattern: "src/**/*.ts" }, "/work/proj/src"],
    [{ pattern: "../../etc/*" }, "/etc"],
    [{ pattern: "/etc/**/*.conf" }, "/etc"],
    [{ pattern: "*", path: "/etc" }, "/etc"],
    [{ pattern: "src/../../secret/*" }, "/work/secret"],
    [{ pattern: "../{a,b}/*" }, "/work"],
    [{ pattern: "/etc/passwd" }, "/etc"],
    [{ pattern: "*.ts", path: "src/../../.." }, "/"],
  ] as const)("%j is checked at %s", (input, root) => {
    const context = createToolUseContext({ cwd: "/work/proj" });
    const observable = tool.backfillObservableInput!({ ...input }, context);
    expect(tool.permissionSubject(observable, context)).toEqual({ kind: "file", access: "read", paths: [root] });
  });

  it("backfills an absolute path", () => {
    const context = createToolUseContext({ cwd: "/work/proj" });
    expect(tool.backfillObservableInput!({ pattern: "*" }, context)).toEqual({ pattern: "*", path: "/work/proj" });
    expect(tool.backfillObservableInput!({ pattern: "*", path: "a/b" }, context)).toEqual({ pattern: "*", path: "/work/proj/a/b" });
  });

  it("~ in a pattern is checked at home", () => {
    const home = process.env.HOME;
    process.env.HOME = "/home/someone";
    try {
      expect(planGlob("~/.ssh/*", "/work/proj").root).toBe("/home/someone/.ssh");
    } finally {
      process.env.HOME = home;
    }
  });
});
