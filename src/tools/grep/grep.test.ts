import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolUse } from "../../../test/helpers.js";
import { writeSearchFixture } from "../../../test/search-fixture.js";
import { createSession } from "../../session/session.js";
import { BUILTIN_NOTICE, createGrepTool, type GrepToolOptions } from "./grep.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "armature-grep-"));
  await writeSearchFixture(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ENGINES: ReadonlyArray<readonly [string, GrepToolOptions]> = [
  ["ripgrep", { ripgrep: "rg" }],
  ["builtin", { ripgrep: false }],
];

interface Outcome {
  text: string;
  isError: boolean;
}

async function grep(options: GrepToolOptions, input: Record<string, unknown>, cwd = dir): Promise<Outcome> {
  // The fixture dir is a working directory even when cwd is below it (reads outside the working dirs ask).
  const session = createSession({ cwd, tools: [createGrepTool(options)], additionalDirectories: [dir] });
  try {
    const [result] = await session.runTurn([toolUse("Grep", input, "g1")]);
    const text = (result!.content as string).replace(`\n\n${BUILTIN_NOTICE}`, "");
    return { text, isError: result!.is_error === true };
  } finally {
    await session.close();
  }
}

const ALL_FILES = ["long.txt", "crlf.txt", "sub/deep/odd:name-1.txt", "sub/deep/d.md", "sub/c.ts", "b.ts", "a.txt", ".hidden.txt"];
const ALL_LINES = [
  ".hidden.txt:1:needle hidden",
  "a.txt:2:needle one",
  "a.txt:6:needle two",
  "b.ts:2:const needle = 2;",
  "crlf.txt:1:needle crlf\r",
  "long.txt:1:[Omitted long matching line]",
  "long.txt:2:short needle",
  "sub/c.ts:2:needle lower",
  "sub/deep/d.md:1:-dash needle",
  "sub/deep/odd:name-1.txt:1:needle: odd",
];
const ALL_COUNTS = [".hidden.txt:1", "a.txt:2", "b.ts:1", "crlf.txt:1", "long.txt:2", "sub/c.ts:1", "sub/deep/d.md:1", "sub/deep/odd:name-1.txt:1"];
const COUNT_TOTAL = ALL_COUNTS.reduce((n, c) => n + Number(c.slice(c.lastIndexOf(":") + 1)), 0);

/** Golden results: the same text from ripgrep and from the built-in search. */
const GOLDEN: ReadonlyArray<{ name: string; input: Record<string, unknown>; expected: string }> = [
  // files_with_matches: newest first; .git/.svn/.jj, .gitignore'd, .ignore'd and binary files left out
  { name: "files mode (default)", input: { pattern: "needle" }, expected: `Found 8 files\n${ALL_FILES.join("\n")}` },
  { name: "files mode, one file", input: { pattern: "epsilon" }, expected: "Found 1 file\na.txt" },
  { name: "files mode, none", input: { pattern: "zzzz" }, expected: "No files found" },
  { name: "content mode", input: { pattern: "needle", output_mode: "content" }, expected: ALL_LINES.join("\n") },
  { name: "content mode, none", input: { pattern: "zzzz", output_mode: "content" }, expected: "No matches found" },
  {
    name: "count mode",
    input: { pattern: "needle", output_mode: "count" },
    expected: `${ALL_COUNTS.join("\n")}\n\nFound 10 total occurrences across 8 files.`,
  },
  { name: "count mode, one", input: { pattern: "epsilon", output_mode: "count" }, expected: "a.txt:1\n\nFound 1 total occurrence across 1 file." },
  { name: "count mode, none", input: { pattern: "zzzz", output_mode: "count" }, expected: "No matches found" },
  // content options
  {
    // One file searched: its lines come without the file name, as rg and the reference print them.
    name: "-C with separators",
    input: { pattern: "needle", path: "a.txt", output_mode: "content", "-C": 1 },
    expected: "1-alpha\n2:needle one\n3-beta\n--\n5-delta\n6:needle two\n7-epsilon",
  },
  {
    name: "-A",
    input: { pattern: "needle", path: "a.txt", output_mode: "content", "-A": 1 },
    expected: "2:needle one\n3-beta\n--\n6:needle two\n7-epsilon",
  },
  {
    name: "-B, groups that touch are not separated",
    input: { pattern: "needle", path: "a.txt", output_mode: "content", "-B": 3 },
    expected: "1-alpha\n2:needle one\n3-beta\n4-gamma\n5-delta\n6:needle two",
  },
  {
    name: "context wins over -A",
    input: { pattern: "two", path: "a.txt", output_mode: "content", context: 1, "-A": 5 },
    expected: "5-delta\n6:needle two\n7-epsilon",
  },
  {
    name: "context across files",
    input: { pattern: "const needle|needle lower", output_mode: "content", "-B": 1 },
    expected: "b.ts-1-const x = 1;\nb.ts:2:const needle = 2;\n--\nsub/c.ts-1-Needle upper\nsub/c.ts:2:needle lower",
  },
  {
    name: "-n false",
    input: { pattern: "needle", path: "a.txt", output_mode: "content", "-n": false, "-A": 1 },
    expected: "needle one\nbeta\n--\nneedle two\nepsilon",
  },
  {
    name: "-i",
    input: { pattern: "NEEDLE", path: "sub", output_mode: "content", "-i": true },
    expected: "sub/c.ts:1:Needle upper\nsub/c.ts:2:needle lower\nsub/deep/d.md:1:-dash needle\nsub/deep/odd:name-1.txt:1:needle: odd",
  },
  { name: "-o", input: { pattern: "o.e", output_mode: "content", "-o": true }, expected: ".gitignore:1:ore\na.txt:2:one\nsub/c.ts:2:owe" },
  { name: "pattern starting with -", input: { pattern: "-dash", output_mode: "content" }, expected: "sub/deep/d.md:1:-dash needle" },
  { name: "multiline", input: { pattern: "foo.bar", output_mode: "content", multiline: true }, expected: "sub/deep/d.md:2:foo\nsub/deep/d.md:3:bar" },
  { name: "multiline -o", input: { pattern: "o\\nb", output_mode: "content", multiline: true, "-o": true }, expected: "sub/deep/d.md:2:o\nsub/deep/d.md:3:b" },
  { name: "multiline count", input: { pattern: "foo\\nbar", output_mode: "count", multiline: true }, expected: "sub/deep/d.md:1\n\nFound 1 total occurrence across 1 file." },
  { name: "without multiline . stops at line ends", input: { pattern: "foo.bar", output_mode: "content" }, expected: "No matches found" },
  { name: "long lines replaced", input: { pattern: "x{100,}", output_mode: "content", "-o": true }, expected: "long.txt:1:[Omitted long matching line]" },
  // file selection
  { name: "type", input: { pattern: "needle", type: "ts" }, expected: "Found 2 files\nsub/c.ts\nb.ts" },
  // A selecting glob beats .gitignore in ripgrep: sub/skip.ts is listed.
  { name: "glob list split on spaces", input: { pattern: "needle", glob: "*.md *.ts" }, expected: "Found 4 files\nsub/deep/d.md\nsub/skip.ts\nsub/c.ts\nb.ts" },
  { name: "glob list split on commas", input: { pattern: "needle", glob: "*.md,*.ts" }, expected: "Found 4 files\nsub/deep/d.md\nsub/skip.ts\nsub/c.ts\nb.ts" },
  { name: "glob with braces", input: { pattern: "needle", glob: "*.{md, ts}" }, expected: "Found 4 files\nsub/deep/d.md\nsub/skip.ts\nsub/c.ts\nb.ts" },
  { name: "negated glob", input: { pattern: "needle", glob: "!*.txt" }, expected: "Found 3 files\nsub/deep/d.md\nsub/c.ts\nb.ts" },
  { name: "glob with a slash is relative to path", input: { pattern: "needle", path: "sub", glob: "deep/*.md" }, expected: "Found 1 file\nsub/deep/d.md" },
  { name: "a selecting glob beats .gitignore (as in ripgrep)", input: { pattern: "needle", glob: "ignored.txt" }, expected: "Found 1 file\nignored.txt" },
  { name: "explicit ignored file is searched", input: { pattern: "needle", path: "ignored.txt" }, expected: "Found 1 file\nignored.txt" },
  { name: "inside an ignored folder given as path", input: { pattern: "needle", path: "build" }, expected: "Found 1 file\nbuild/out.txt" },
  { name: "nested .gitignore", input: { pattern: "skipped" }, expected: "No files found" },
  { name: "VCS folders", input: { pattern: "needle in" }, expected: "No files found" },
  // A binary file is skipped in a folder, but searched when it is the path (ripgrep's rules).
  { name: "explicit binary file, files mode", input: { pattern: "binary", path: "bin.dat" }, expected: "Found 1 file\nbin.dat" },
  { name: "explicit binary file, count mode", input: { pattern: "binary", path: "bin.dat", output_mode: "count" }, expected: "bin.dat:1\n\nFound 1 total occurrence across 1 file." },
  {
    name: "explicit binary file, content mode",
    input: { pattern: "needle", path: "bin.dat", output_mode: "content" },
    expected: 'bin.dat: binary file matches (found "\\0" byte around offset 6)',
  },
  {
    name: "explicit binary file, multiline content mode",
    input: { pattern: "needle", path: "bin.dat", output_mode: "content", multiline: true },
    expected: 'bin.dat: binary file matches (found "\\0" byte around offset 6)',
  },
  { name: "explicit binary file, no match", input: { pattern: "zzzz", path: "bin.dat", output_mode: "content" }, expected: "No matches found" },
  { name: "CRLF kept as ripgrep prints it", input: { pattern: "crlf", output_mode: "content" }, expected: "crlf.txt:1:needle crlf\r" },
  // pagination
  { name: "files head_limit", input: { pattern: "needle", head_limit: 3 }, expected: `Found 3 files limit: 3\n${ALL_FILES.slice(0, 3).join("\n")}` },
  {
    name: "files head_limit + offset",
    input: { pattern: "needle", head_limit: 3, offset: 3 },
    expected: `Found 3 files limit: 3, offset: 3\n${ALL_FILES.slice(3, 6).join("\n")}`,
  },
  { name: "files last page", input: { pattern: "needle", head_limit: 3, offset: 6 }, expected: `Found 2 files offset: 6\n${ALL_FILES.slice(6).join("\n")}` },
  { name: "files head_limit = total", input: { pattern: "needle", head_limit: 8 }, expected: `Found 8 files\n${ALL_FILES.join("\n")}` },
  { name: "files head_limit = total - 1", input: { pattern: "needle", head_limit: 7 }, expected: `Found 7 files limit: 7\n${ALL_FILES.slice(0, 7).join("\n")}` },
  { name: "files head_limit 0 = all", input: { pattern: "needle", head_limit: 0 }, expected: `Found 8 files\n${ALL_FILES.join("\n")}` },
  { name: "files offset at the end", input: { pattern: "needle", offset: 8 }, expected: "No entries at this offset: the search found 8 files in all. Use an offset below 8." },
  { name: "offset with no match at all", input: { pattern: "zzzz", offset: 5 }, expected: "No files found" },
  { name: "content head_limit 1", input: { pattern: "needle", output_mode: "content", head_limit: 1 }, expected: `${ALL_LINES[0]}\n\n[Showing results with pagination = limit: 1]` },
  {
    name: "content last entry",
    input: { pattern: "needle", output_mode: "content", head_limit: 2, offset: 9 },
    expected: `${ALL_LINES[9]}\n\n[Showing results with pagination = offset: 9]`,
  },
  {
    name: "content exact fit",
    input: { pattern: "needle", output_mode: "content", head_limit: 2, offset: 8 },
    expected: `${ALL_LINES.slice(8).join("\n")}\n\n[Showing results with pagination = offset: 8]`,
  },
  { name: "content offset past the end", input: { pattern: "needle", output_mode: "content", offset: 10 }, expected: "No entries at this offset: the search found 10 lines in all. Use an offset below 10." },
  {
    name: "count head_limit",
    input: { pattern: "needle", output_mode: "count", head_limit: 2 },
    // As the reference: the summary counts every file, then names the page.
    expected: `${ALL_COUNTS.slice(0, 2).join("\n")}\n\nFound ${COUNT_TOTAL} total occurrences across ${ALL_COUNTS.length} files. with pagination = limit: 2`,
  },
  {
    name: "count offset",
    input: { pattern: "needle", output_mode: "count", head_limit: 1, offset: 7 },
    expected: `${ALL_COUNTS[7]}\n\nFound ${COUNT_TOTAL} total occurrences across ${ALL_COUNTS.length} files. with pagination = offset: 7`,
  },
];

/** The reference's first line for a search rg refuses, then rg's own words. */
const FAILED = "Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: ";

/** Errors: ripgrep's own words (the built-in search words them the same where it can). */
const ERRORS: ReadonlyArray<{ name: string; input: Record<string, unknown>; expected: string | RegExp }> = [
  { name: "unknown type", input: { pattern: "x", type: "nosuch" }, expected: `${FAILED}unrecognized file type: nosuch` },
  {
    name: "bad glob",
    input: { pattern: "x", glob: "{a" },
    expected: `${FAILED}error parsing glob '{a': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)`,
  },
  {
    name: "newline without multiline",
    input: { pattern: "a\\nb" },
    expected:
      `${FAILED}the literal '"\\n"' is not allowed in a regex\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.`,
  },
  { name: "invalid regex", input: { pattern: "(foo" }, expected: /^Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: regex parse error:\n {4}\(foo\n[\s\S]*(unclosed|unterminated) group$/i },
  {
    name: "missing path",
    input: { pattern: "x", path: "nope" },
    expected: /^<tool_use_error>Path does not exist: nope\. Current working directory: .*\. Pass an existing file or directory/,
  },
  { name: "NUL byte", input: { pattern: "a\0b" }, expected: "<tool_use_error>The pattern, path or glob contains a NUL byte. Remove it and try again.</tool_use_error>" },
  { name: "negative head_limit", input: { pattern: "x", head_limit: -1 }, expected: /^<tool_use_error>InputValidationError: Grep failed/ },
  { name: "fractional offset", input: { pattern: "x", offset: 1.5 }, expected: /^<tool_use_error>InputValidationError: Grep failed/ },
  { name: "unknown parameter", input: { pattern: "x", "-r": true }, expected: /An unexpected parameter `-r` was provided/ },
];

describe.each(ENGINES)("Grep through %s", (_engine, options) => {
  it.each(GOLDEN)("$name", async ({ input, expected }) => {
    const out = await grep(options, input);
    expect(out.isError).toBe(false);
    expect(out.text).toBe(expected);
  });

  it.each(ERRORS)("error: $name", async ({ input, expected }) => {
    const out = await grep(options, input);
    expect(out.isError).toBe(true);
    if (typeof expected === "string") expect(out.text).toBe(expected);
    else expect(out.text).toMatch(expected);
  });

  it("shows paths outside the cwd as absolute, inside it as relative", async () => {
    const out = await grep(options, { pattern: "needle (one|lower)", path: "..", output_mode: "content" }, join(dir, "sub"));
    expect(out.text).toBe(`${dir}/a.txt:2:needle one\nc.ts:2:needle lower`);
  });

  it("accepts an absolute path and ~", async () => {
    expect((await grep(options, { pattern: "epsilon", path: join(dir, "a.txt") })).text).toBe("Found 1 file\na.txt");
    const home = process.env.HOME;
    process.env.HOME = dir;
    try {
      expect((await grep(options, { pattern: "epsilon", path: "~" }, join(dir, "sub"))).text).toBe(`Found 1 file\n${dir}/a.txt`);
    } finally {
      process.env.HOME = home;
    }
  });
});

describe("Grep engines", () => {
  it("the built-in search says so once per session", async () => {
    const session = createSession({ cwd: dir, tools: [createGrepTool({ ripgrep: false })] });
    const [first] = await session.runTurn([toolUse("Grep", { pattern: "epsilon" }, "a")]);
    const [second] = await session.runTurn([toolUse("Grep", { pattern: "epsilon" }, "b")]);
    expect(first!.content).toBe(`Found 1 file\na.txt\n\n${BUILTIN_NOTICE}`);
    expect(second!.content).toBe("Found 1 file\na.txt");
    await session.close();
  });

  it("falls back when the configured ripgrep binary does not exist", async () => {
    const out = await grep({ ripgrep: join(dir, "no-such-rg") }, { pattern: "epsilon" });
    expect(out.text).toBe("Found 1 file\na.txt");
  });

  it("ARMATURE_RIPGREP=0 selects the built-in search", async () => {
    const saved = process.env.ARMATURE_RIPGREP;
    process.env.ARMATURE_RIPGREP = "0";
    try {
      const session = createSession({ cwd: dir, tools: [createGrepTool()] });
      const [r] = await session.runTurn([toolUse("Grep", { pattern: "epsilon" }, "a")]);
      expect(r!.content).toContain(BUILTIN_NOTICE);
      await session.close();
    } finally {
      if (saved === undefined) delete process.env.ARMATURE_RIPGREP;
      else process.env.ARMATURE_RIPGREP = saved;
    }
  });
});
