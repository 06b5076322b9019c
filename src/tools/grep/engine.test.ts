import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUse, withTempDir } from "../../../test/helpers.js";
import { createSession } from "../../session/session.js";
import { createToolUseContext } from "../../tool/context.js";
import { buildRipgrepArgs, splitGlobs } from "./args.js";
import { createBuiltinEngine } from "./builtin/engine.js";
import { createGrepTool } from "./grep.js";
import { createRipgrepEngine, findExecutable, RipgrepOutputParser } from "./ripgrep.js";
import type { GrepEngine, GrepEntry, GrepQuery } from "./types.js";

const RG = findExecutable("rg");

function query(root: string, extra: Partial<GrepQuery> = {}): GrepQuery {
  return {
    pattern: "x",
    root,
    rootIsFile: false,
    mode: "content",
    caseInsensitive: false,
    onlyMatching: false,
    multiline: false,
    before: 0,
    after: 0,
    globs: [],
    signal: new AbortController().signal,
    ...extra,
  };
}

describe("splitGlobs", () => {
  it.each([
    [undefined, []],
    ["*.ts", ["*.ts"]],
    ["*.ts *.tsx", ["*.ts", "*.tsx"]],
    ["  *.ts\t*.md  ", ["*.ts", "*.md"]],
    ["*.ts,*.md", ["*.ts", "*.md"]],
    ["*.{ts,tsx}", ["*.{ts,tsx}"]],
    ["*.{ts, tsx} !dist/**", ["*.{ts,tsx}", "!dist/**"]],
    ["src/{a,b}/**/*.js", ["src/{a,b}/**/*.js"]],
    ["", []],
  ] as const)("%j", (input, expected) => {
    expect(splitGlobs(input)).toEqual(expected);
  });
});

describe("buildRipgrepArgs", () => {
  it("passes a pattern starting with - through -e, and the path last", () => {
    const args = buildRipgrepArgs(query("/p", { pattern: "-foo" }));
    expect(args.slice(-3)).toEqual(["-e", "-foo", "/p"]);
  });

  it("passes a plain pattern as the positional argument", () => {
    expect(buildRipgrepArgs(query("/p", { pattern: "foo" })).slice(-2)).toEqual(["foo", "/p"]);
  });

  it("has the fixed flags, and VCS exclusions after the user's globs", () => {
    const args = buildRipgrepArgs(query("/p", { globs: ["*.ts", ".git/**"], mode: "files_with_matches" }));
    for (const flag of ["--hidden", "--no-follow", "--null", "--files-with-matches"]) expect(args).toContain(flag);
    expect(args.join(" ")).toContain("--max-columns 500");
    const globs = args.flatMap((a, i) => (args[i - 1] === "--glob" ? [a] : []));
    expect(globs).toEqual(["*.ts", ".git/**", "!.git", "!.svn", "!.hg", "!.bzr", "!.jj", "!.sl"]);
  });

  it("maps the options", () => {
    const args = buildRipgrepArgs(query("/p", { caseInsensitive: true, multiline: true, onlyMatching: true, before: 2, after: 3, type: "ts" })).join(" ");
    for (const part of ["--ignore-case", "--multiline --multiline-dotall", "--only-matching", "--before-context 2", "--after-context 3", "--type ts", "--line-number", "--sort path"]) {
      expect(args).toContain(part);
    }
    expect(buildRipgrepArgs(query("/p", { mode: "count", before: 2, onlyMatching: true })).join(" ")).not.toMatch(/context|only-matching/);
  });
});

describe("RipgrepOutputParser", () => {
  it("parses records split anywhere, paths with : and newlines", () => {
    const text = "/a/x:y.ts\x002:hit: here\n/a/x:y.ts\x003-ctx\n--\n/a/new\nline\x001:z\n";
    const parser = new RipgrepOutputParser("content");
    const entries: GrepEntry[] = [];
    for (let i = 0; i < text.length; i += 3) entries.push(...parser.push(text.slice(i, i + 3)));
    entries.push(...parser.push("", true));
    expect(entries).toEqual([
      { kind: "line", path: "/a/x:y.ts", line: 2, match: true, text: "hit: here" },
      { kind: "line", path: "/a/x:y.ts", line: 3, match: false, text: "ctx" },
      { kind: "separator" },
      { kind: "line", path: "/a/new\nline", line: 1, match: true, text: "z" },
    ]);
  });

  it("parses files and counts", () => {
    expect(new RipgrepOutputParser("files").push("/a\x00/b c\x00", true)).toEqual([{ kind: "file", path: "/a" }, { kind: "file", path: "/b c" }]);
    expect(new RipgrepOutputParser("count").push("/a:1\x0012\n", true)).toEqual([{ kind: "count", path: "/a:1", count: 12 }]);
  });
});

const engines: Array<[string, () => GrepEngine]> = [["builtin", createBuiltinEngine]];
if (RG) engines.push(["ripgrep", () => createRipgrepEngine(RG)]);

describe.each(engines)("%s engine", (_name, make) => {
  it("stops as soon as the sink has enough", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "big.txt"), "x match\n".repeat(200_000));
      const seen: GrepEntry[] = [];
      await make().search(query(dir), (e) => {
        seen.push(e);
        return seen.length < 5;
      });
      expect(seen).toHaveLength(5);
      expect(seen[4]).toEqual({ kind: "line", path: join(dir, "big.txt"), line: 5, match: true, text: "x match" });
    });
  });

  it("an aborted search rejects", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "x\n");
      const controller = new AbortController();
      controller.abort(new Error("stop"));
      await expect(make().search(query(dir, { signal: controller.signal }), () => true)).rejects.toThrow("stop");
    });
  });
});

describe.skipIf(!RG)("ripgrep process", () => {
  it("the abort signal kills rg (it is blocked reading a FIFO here)", async () => {
    await withTempDir(async (dir) => {
      const fifo = join(dir, "blocked-fifo");
      execFileSync("mkfifo", [fifo]);
      const controller = new AbortController();
      const running = createRipgrepEngine(RG!).search(query(fifo, { rootIsFile: true, signal: controller.signal }), () => true);
      // Wait until rg is really running (it is blocked opening the FIFO), then abort.
      while (rgProcessesOn(fifo).length === 0) await new Promise((r) => setTimeout(r, 10));
      controller.abort(new Error("user interrupt"));
      await expect(running).rejects.toThrow("user interrupt");
      expect(rgProcessesOn(fifo)).toEqual([]);
    });
  });
});

/** Pids of processes whose command line mentions `path`. */
function rgProcessesOn(path: string): string[] {
  const pids: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(path)) pids.push(pid);
    } catch {
      // gone
    }
  }
  return pids;
}

describe("Grep tool contract", () => {
  const tool = createGrepTool();

  it("is read-only, concurrency-safe and persists past 20,000 characters", () => {
    const input = { pattern: "x" };
    expect(tool.isReadOnly(input)).toBe(true);
    expect(tool.isConcurrencySafe(input)).toBe(true);
    expect(tool.maxResultSizeChars).toBe(20_000);
  });

  it.each([
    [undefined, "/work/proj"],
    ["src", "/work/proj/src"],
    ["../other", "/work/other"],
    ["/etc", "/etc"],
    ["src/../../../etc", "/etc"],
    ["undefined", "/work/proj"],
  ])("path %j is checked as %s", (path, expected) => {
    const context = createToolUseContext({ cwd: "/work/proj" });
    const input = path === undefined ? { pattern: "x" } : { pattern: "x", path };
    const observable = tool.backfillObservableInput!(input, context);
    expect(observable.path).toBe(expected);
    expect(tool.permissionSubject(observable, context)).toEqual({ kind: "file", access: "read", paths: [expected] });
  });

  it("refuses FIFOs and devices as path", async () => {
    await withTempDir(async (dir) => {
      execFileSync("mkfifo", [join(dir, "f")]);
      const session = createSession({ cwd: dir, tools: [tool] });
      const results = await session.runTurn([toolUse("Grep", { pattern: "x", path: "f" }, "a"), toolUse("Grep", { pattern: "x", path: "/dev/zero" }, "b")]);
      for (const r of results) {
        expect(r.is_error).toBe(true);
        expect(r.content).toMatch(/Path is not a regular file or directory: .*FIFOs/);
      }
      await session.close();
    });
  });

  it("head_limit 0 is bounded in memory and says where to continue", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "big.txt"), `${"y".repeat(200)}\n`.repeat(60_000));
      const session = createSession({ cwd: dir, tools: [tool] });
      const { outcomes } = await session.runTurnDetailed([toolUse("Grep", { pattern: "y", output_mode: "content", head_limit: 0 }, "a")]);
      const data = outcomes[0]!;
      // Past 20,000 characters the pipeline persists the result; the cap itself shows in the data.
      expect(data.isError).toBe(false);
      const block = data.block.content as string;
      expect(block).toContain("<persisted-output>");
      await session.close();
      const direct = await tool.call({ pattern: "y", output_mode: "content", head_limit: 0 }, createToolUseContext({ cwd: dir }), () => {});
      expect(direct.data.outputCapped).toBe(true);
      expect(direct.data.numLines).toBeGreaterThan(40_000);
      expect(direct.data.numLines).toBeLessThan(60_000);
      expect(tool.mapToolResultToToolResultBlockParam(direct.data, "x").content).toMatch(new RegExp(`\\[Output stopped at the 10 MB cap after ${direct.data.numLines} lines: narrow the search, or continue with offset: ${direct.data.numLines}\\]$`));
    });
  });

  it("a small head_limit on many matches returns that many lines", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "big.txt"), "hit\n".repeat(100_000));
      const session = createSession({ cwd: dir, tools: [tool] });
      const [r] = await session.runTurn([toolUse("Grep", { pattern: "hit", output_mode: "content", head_limit: 3 }, "a")]);
      expect(r!.content).toMatch(/^big\.txt:1:hit\nbig\.txt:2:hit\nbig\.txt:3:hit\n\n\[Showing results with pagination = limit: 3\]/);
      await session.close();
    });
  });
});
