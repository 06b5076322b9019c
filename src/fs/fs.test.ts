import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/helpers.js";
import { atomicWriteFile } from "./atomic-write.js";
import { decodeText, detectEncoding, detectLineEnding, encodeText, looksBinary, type TextFormat } from "./encoding.js";
import { lockKey, withFileLock } from "./file-lock.js";
import { judgeFreshness, MODIFIED_MESSAGE, NOT_READ_MESSAGE, sha256 } from "./file-state.js";
import { applyPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from "diff";
import { rng } from "../../test/fuzz/mutate.js";
import { coarseHunk, diffHunks, diffWrite, MAX_DIFF_CHARS } from "./patch.js";
import { expandPath, isBlockedDevicePath, screenshotNameAlternative } from "./path.js";
import { addRange } from "./read-coverage.js";
import { suggestSimilarFiles } from "./similar-files.js";

describe("paths", () => {
  it.each([
    ["~", "/work", homedir()],
    ["~/x/y", "/work", join(homedir(), "x/y")],
    ["rel/a.txt", "/work/p", "/work/p/rel/a.txt"],
    ["../b", "/work/p", "/work/b"],
    ["/abs//c/./d", "/work", "/abs/c/d"],
    ["~user/x", "/w", "/w/~user/x"],
  ])("expandPath(%j, %j)", (input, cwd, want) => {
    expect(expandPath(input, cwd)).toBe(want);
  });

  it("screenshot names: a space before AM/PM ↔ U+202F", () => {
    expect(screenshotNameAlternative("/d/Screenshot 2024-01-01 at 9.00.00 PM.png")).toBe("/d/Screenshot 2024-01-01 at 9.00.00\u202FPM.png");
    expect(screenshotNameAlternative("/d/Shot at 9.00.00\u202FAM.png")).toBe("/d/Shot at 9.00.00 AM.png");
    expect(screenshotNameAlternative("/d/plain.png")).toBeUndefined();
  });

  it.each([
    ["/dev/zero", true],
    ["/dev/random", true],
    ["/dev/urandom", true],
    ["/dev/stdin", true],
    ["/dev/tty", true],
    ["/dev/tty1", true],
    ["/dev/pts/3", true],
    ["/proc/self/fd/0", true],
    ["/proc/1234/fd/7", true],
    ["/dev/fd/3", true],
    ["/dev/null", false],
    ["/proc/self/status", false],
    ["/home/u/dev/zero", false],
  ])("isBlockedDevicePath(%s) = %s", (path, blocked) => {
    expect(isBlockedDevicePath(path)).toBe(blocked);
  });
});

describe("encodings", () => {
  const formats: Array<[string, TextFormat]> = [
    ["utf8", { encoding: "utf8", bom: false }],
    ["utf8 bom", { encoding: "utf8", bom: true }],
    ["utf16le bom", { encoding: "utf16le", bom: true }],
    ["utf16be bom", { encoding: "utf16be", bom: true }],
  ];
  it.each(formats)("%s round-trips and is detected", (_name, format) => {
    const text = "héllo\r\nwörld ✓ 日本\n";
    const bytes = encodeText(text, format);
    expect(detectEncoding(bytes)).toEqual(format);
    expect(decodeText(bytes)).toEqual({ text, format });
  });

  it("invalid UTF-8 is Latin-1; a cut multi-byte character at the end of a sample is not", () => {
    expect(detectEncoding(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toEqual({ encoding: "latin1", bom: false });
    const cut = Buffer.from("ab✓", "utf8").subarray(0, 4);
    expect(detectEncoding(cut, false)).toEqual({ encoding: "utf8", bom: false });
    expect(detectEncoding(cut, true)).toEqual({ encoding: "latin1", bom: false });
    expect(encodeText("café", { encoding: "latin1", bom: false })).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });

  it("line endings and binary sniffing", () => {
    expect(detectLineEnding("a\r\nb\r\nc\n")).toBe("\r\n");
    expect(detectLineEnding("a\nb\r\nc\n")).toBe("\n");
    expect(detectLineEnding("no newline")).toBe("\n");
    const utf8: TextFormat = { encoding: "utf8", bom: false };
    expect(looksBinary(Buffer.from("plain\ttext\x1b[0m\n"), utf8)).toBe(false);
    expect(looksBinary(Buffer.from([0x41, 0, 0x42]), utf8)).toBe(true);
    expect(looksBinary(Buffer.from([1, 2, 3, 4, 5, 65]), utf8)).toBe(true);
    expect(looksBinary(Buffer.from([0x41, 0]), { encoding: "utf16le", bom: true })).toBe(false);
  });
});

describe("freshness", () => {
  const entry = { contentHash: sha256(Buffer.from("a")), mtimeMs: 100, partial: false, recordedAt: 0 };
  it.each([
    ["never read", undefined, 100, "a", NOT_READ_MESSAGE],
    // A window is enough to edit (the reference's rule; old_string must still be found).
    ["partial, unchanged", { ...entry, partial: true }, 100, "a", null],
    ["partial, changed since", { ...entry, contentHash: "", partial: true }, 200, "a", MODIFIED_MESSAGE],
    ["same mtime", entry, 100, "b", null],
    ["mtime moved, same bytes", entry, 200, "a", null],
    ["mtime moved, other bytes", entry, 200, "b", MODIFIED_MESSAGE],
  ] as const)("%s", (_name, e, mtimeMs, content, message) => {
    const result = judgeFreshness(e, { mtimeMs, contentHash: () => sha256(Buffer.from(content)) });
    expect(result.ok ? null : result.message).toBe(message);
  });
});

describe("atomicWriteFile", () => {
  it("creates parents on request, keeps the mode of an existing file, leaves no temp file", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "x/y/z.txt");
      await atomicWriteFile(path, Buffer.from("1"), { createParents: true });
      expect(await readFile(path, "utf8")).toBe("1");
      await import("node:fs/promises").then((fs) => fs.chmod(path, 0o640));
      await atomicWriteFile(path, Buffer.from("2"));
      expect((await stat(path)).mode & 0o777).toBe(0o640);
      expect(await readdir(join(dir, "x/y"))).toEqual(["z.txt"]);
    });
  });

  it("a failure before the rename keeps the original and removes the temp file", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f");
      await writeFile(path, "old");
      let seenTemp = "";
      await expect(
        atomicWriteFile(path, Buffer.from("new"), {
          hooks: {
            beforeRename: async (temp) => {
              seenTemp = temp;
              expect(await readFile(temp, "utf8")).toBe("new");
              throw new Error("injected");
            },
          },
        }),
      ).rejects.toThrow("injected");
      expect(seenTemp.startsWith(join(dir, ".f."))).toBe(true);
      expect(await readFile(path, "utf8")).toBe("old");
      expect(await readdir(dir)).toEqual(["f"]);
    });
  });
});

describe("withFileLock", () => {
  it("serialises work on one path, not on different paths", async () => {
    const order: string[] = [];
    const slow = (tag: string, ms: number) => async () => {
      order.push(`${tag}+`);
      await new Promise((r) => setTimeout(r, ms));
      order.push(`${tag}-`);
    };
    await Promise.all([withFileLock("/p", slow("a", 20)), withFileLock("/p", slow("b", 1)), withFileLock("/q", slow("c", 1))]);
    expect(order.indexOf("a-")).toBeLessThan(order.indexOf("b+"));
    expect(order.indexOf("c+")).toBeLessThan(order.indexOf("a-"));
  });

  it("a link and its target share one lock key", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "t"), "");
      await import("node:fs/promises").then((fs) => fs.symlink(join(dir, "t"), join(dir, "l")));
      expect(await lockKey(join(dir, "l"))).toBe(await lockKey(join(dir, "t")));
      expect(await lockKey(join(dir, "missing"))).toBe(join(dir, "missing"));
    });
  });

  it("a failing holder releases the lock", async () => {
    await expect(withFileLock("/r", async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(await withFileLock("/r", async () => 1)).toBe(1);
  });
});

const asPatch = (hunks: StructuredPatchHunk[]): StructuredPatch => ({ oldFileName: "a", newFileName: "b", oldHeader: undefined, newHeader: undefined, hunks });

describe("similar files and patches", () => {
  it("suggests other extensions, other case and typos; nothing for unrelated names", async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, "src"));
      for (const name of ["index.ts", "README.md", "utils.ts", "zebra.txt"]) await writeFile(join(dir, "src", name), "");
      expect(await suggestSimilarFiles(join(dir, "src/index.js"), dir)).toEqual([join(dir, "src/index.ts")]);
      expect(await suggestSimilarFiles(join(dir, "src/readme.md"), dir)).toEqual([join(dir, "src/README.md")]);
      expect(await suggestSimilarFiles(join(dir, "src/utlis.ts"), dir)).toEqual([join(dir, "src/utils.ts")]);
      expect(await suggestSimilarFiles(join(dir, "src/completely-other.go"), dir)).toEqual([]);
      expect(await suggestSimilarFiles(join(dir, "missing-dir/x.ts"), dir)).toEqual([]);
    });
  });

  it("diffHunks equals a whole-file diff, with line numbers of the whole file", () => {
    const old = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const updated = old.replace("line 500\n", "LINE 500\nextra\n").replace("line 998\n", "");
    const hunks = diffHunks(old, updated);
    expect(hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [498, 7, 498, 8],
      [996, 5, 997, 4],
    ]);
    expect(hunks).toEqual(structuredPatch("a", "b", old, updated, undefined, undefined, { context: 3 }).hunks);
    expect(diffHunks("x\ny", "x\nz")).toEqual(structuredPatch("a", "b", "x\ny", "x\nz", undefined, undefined, { context: 3 }).hunks);
    expect(diffHunks("same", "same")).toEqual([]);
    expect(diffHunks("", "new\n")).toEqual([{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ["+new"] }]);
  });

  it("the coarse diff (the cut-off's answer) is a correct patch, with or without final newlines", () => {
    const random = rng(17);
    const pick = (n: number): string =>
      Array.from({ length: n }, () => ["a\n", "b\n", "c\n", "d", "\n", "ab\n"][Math.floor(random() * 6)]).join("");
    for (let i = 0; i < 500; i++) {
      const old = pick(Math.floor(random() * 12));
      const updated = pick(Math.floor(random() * 12));
      if (old === updated) continue;
      const hunk = coarseHunk(old, updated, 0);
      expect(applyPatch(old, asPatch([hunk])), JSON.stringify([old, updated, hunk])).toBe(updated);
    }
  });

  it("beyond the limit a rewrite gives sizes, not a diff; a diff that runs too long falls back to the coarse one", () => {
    const big = "x".repeat(MAX_DIFF_CHARS);
    expect(diffWrite(`${big}\n`, `${big.toUpperCase()}\n`)).toEqual({ hunks: [], omitted: { oldChars: MAX_DIFF_CHARS + 1, newChars: MAX_DIFF_CHARS + 1 } });
    // Many short lines, all different: Myers is quadratic here and stops at its timeout.
    const random = rng(5);
    const lines = (n: number): string => Array.from({ length: n }, () => `${Math.floor(random() * 1e9)}\n`).join("");
    const old = lines(60_000);
    const updated = lines(60_000);
    const diff = diffWrite(old, updated); // its speed is bench/edit.bench.js's business
    expect(diff.omitted).toBeUndefined();
    expect(applyPatch(old, asPatch(diff.hunks))).toBe(updated);
  });
});

describe("read coverage ranges", () => {
  it.each([
    [[], [5, 9], [[5, 9]]],
    [[[1, 3]], [4, 6], [[1, 6]]],
    [[[1, 3]], [6, 8], [[1, 3], [6, 8]]],
    [[[6, 8]], [1, 3], [[1, 3], [6, 8]]],
    [[[1, 3], [6, 8]], [2, 7], [[1, 8]]],
    [[[1, 3], [10, 12]], [5, 6], [[1, 3], [5, 6], [10, 12]]],
  ] as Array<[Array<[number, number]>, [number, number], Array<[number, number]>]>)("%j + %j", (ranges, [s, e], want) => {
    expect(addRange(ranges, s, e)).toEqual(want);
  });
});

describe("numberedSnippet", () => {
  it("cuts a line longer than 2000 characters, like Read", async () => {
    const { numberedSnippet } = await import("./snippet.js");
    const text = `short\n${"x".repeat(3_000_000)}\nend\n`;
    const out = numberedSnippet(text, [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [] }]);
    expect(out.length).toBeLessThan(2_100);
    expect(out).toContain(`2\t${"x".repeat(2000)}… [line truncated]`);
    expect(out).toContain("3\tend");
  });
});
