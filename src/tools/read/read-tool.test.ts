import { execFileSync } from "node:child_process";
import { mkdir, open, symlink, utimes, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/helpers.js";
import { call, failureText, fileSession, text } from "../../../test/file-tools/harness.js";
import { makePdf } from "../../../test/file-tools/fixtures.js";
import { sha256 } from "../../fs/file-state.js";
import { createReadTool, ReadTool } from "./read-tool.js";

describe("Read: text output", () => {
  it("numbers lines from 1 as <n>\\t<line>", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "alpha\nbeta\n\ngamma");
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: join(dir, "a.txt") }))).toBe("1\talpha\n2\tbeta\n3\t\n4\tgamma");
      await s.close();
    });
  });

  it("a file ending with a newline shows its final empty line, as the reference agent does", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "n.txt"), "one\ntwo\nthree\n");
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "n.txt" }))).toBe("1\tone\n2\ttwo\n3\tthree\n4\t");
      expect(text(await call(s, "Read", { file_path: "n.txt", offset: 3 }))).toBe("3\tthree\n4\t");
      expect(text(await call(s, "Read", { file_path: "n.txt", offset: 5 }))).toContain("The file has 4 lines.");
      await s.close();
    });
  });

  it("offset and limit give the window bare; the [Showing lines …] notice is an option", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "1\n2\n3\n4\n5");
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "a.txt", offset: 2, limit: 2 }))).toBe("2\t2\n3\t3");
      const withNotice = fileSession(dir, [createReadTool({ windowNotice: true })]);
      expect(text(await call(withNotice, "Read", { file_path: "a.txt", offset: 2, limit: 2 }))).toBe(
        "2\t2\n3\t3\n\n[Showing lines 2-3; the file has more lines. Call Read with offset=4 to continue.]",
      );
      // A window that reaches the end exactly has no notice.
      expect(text(await call(withNotice, "Read", { file_path: "a.txt", offset: 4, limit: 2 }))).toBe("4\t4\n5\t5");
      await s.close();
      await withNotice.close();
    });
  });

  it("returns a file of 3,000 lines whole, as the reference 2.1.332 does (no 2,000-line window)", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "long.txt"), Array.from({ length: 3000 }, (_, i) => `l${i + 1}`).join("\n"));
      const s = fileSession(dir, [ReadTool]);
      const out = text(await call(s, "Read", { file_path: "long.txt" }));
      expect(out.split("\n")).toHaveLength(3000);
      expect(out.endsWith("3000\tl3000")).toBe(true);
      await s.close();
    });
  });

  it("offset 0 numbers from 0, as the reference; limit 0 means no limit", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "a.txt"), "one\ntwo\nthree\n");
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "a.txt", offset: 0, limit: 2 }))).toBe("0\tone\n1\ttwo");
      expect(text(await call(s, "Read", { file_path: "a.txt", limit: 0 }))).toBe("1\tone\n2\ttwo\n3\tthree\n4\t");
      // The reference's lenient reading of numbers sent as strings.
      expect(text(await call(s, "Read", { file_path: "a.txt", offset: "2", limit: "1" }))).toBe("2\ttwo");
      await s.close();
    });
  });

  it("refuses a whole-file read over 256 KB naming allow_large; allow_large and a window read it", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "huge.txt"), `${"abcdefghij".repeat(10)}\n`.repeat(2700));
      const s = fileSession(dir, [ReadTool]);
      const refused = await call(s, "Read", { file_path: "huge.txt" });
      expect(refused.is_error).toBe(true);
      expect(text(refused)).toBe(
        "File content (266.3KB) exceeds maximum allowed size (256KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file.",
      );
      // Not refused (the turn's result budget may still save so much text to a file).
      const all = await call(s, "Read", { file_path: "huge.txt", allow_large: true });
      expect(all.is_error).toBeUndefined();
      expect(text(all)).not.toContain("exceeds maximum allowed size");
      expect(text(await call(s, "Read", { file_path: "huge.txt", offset: 10, limit: 1 }))).toBe(`10\t${"abcdefghij".repeat(10)}`);
      await s.close();
    });
  });

  it("empty file and offset past the end are notices, not errors", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "empty.txt"), "");
      await writeFile(join(dir, "three.txt"), "a\nb\nc\n");
      const s = fileSession(dir, [ReadTool]);
      const empty = await call(s, "Read", { file_path: "empty.txt" });
      expect(empty.is_error).toBeUndefined();
      expect(text(empty)).toBe("<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>");
      const past = await call(s, "Read", { file_path: "three.txt", offset: 10 });
      expect(past.is_error).toBeUndefined();
      expect(text(past)).toBe(
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 4 lines.</system-reminder>",
      );
      await s.close();
    });
  });

  it("returns long lines whole, as the reference 2.1.332 does", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "wide.txt"), `short\n${"x".repeat(5000)}\nend\n`);
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "wide.txt" }))).toBe(`1\tshort\n2\t${"x".repeat(5000)}\n3\tend\n4\t`);
      // A host may still cut them.
      const cut = fileSession(dir, [createReadTool({ maxLineChars: 2000 })]);
      expect(text(await call(cut, "Read", { file_path: "wide.txt" }))).toBe(
        `1\tshort\n2\t${"x".repeat(2000)}… [line truncated]\n3\tend\n4\t\n\n[1 line was longer than 2000 characters and cut.]`,
      );
      await s.close();
      await cut.close();
    });
  });

  it("a window over the token budget returns the first part and the offset to continue from", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "big.txt"), Array.from({ length: 100 }, (_, i) => `${i + 1}:${"y".repeat(95)}`).join("\n"));
      const s = fileSession(dir, [createReadTool({ maxOutputTokens: 500 })]);
      const r = await call(s, "Read", { file_path: "big.txt" });
      expect(r.is_error).toBeUndefined();
      const out = text(r);
      expect(out.split("\n").filter((l) => /^\d+\t/.test(l))).toHaveLength(19);
      expect(out.endsWith("\n\n[Partial view: lines 1-19, cut at about 500 tokens. Call Read with offset=20 to continue, or with a smaller limit.]")).toBe(true);
      await s.close();
    });
  });
});

describe("Read: encodings", () => {
  const cases: Array<[string, Buffer, string]> = [
    ["CRLF shown without CR", Buffer.from("one\r\ntwo\r\n"), "1\tone\n2\ttwo\n3\t"],
    ["UTF-8 with BOM", Buffer.from("\uFEFFhé\nlo\n", "utf8"), "1\thé\n2\tlo\n3\t"],
    ["UTF-16 LE with BOM", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\r\nwörld\n", "utf16le")]), "1\théllo\n2\twörld\n3\t"],
    ["UTF-16 BE with BOM", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("日本\n語\n", "utf16le").swap16()]), "1\t日本\n2\t語\n3\t"],
    // Not UTF-8: shown with U+FFFD and the reference's warning (the writers refuse such a file).
    [
      "not UTF-8 (Latin-1)",
      Buffer.from("caf\xe9 au lait\n", "latin1"),
      "1\tcaf\uFFFD au lait\n2\t\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit and Write will refuse it: change it with a shell command that keeps its encoding, or ask the user whether to convert it to UTF-8.]",
    ],
  ];
  it.each(cases)("%s", async (_name, bytes, expected) => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "f.txt"), bytes);
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "f.txt" }))).toBe(expected);
      await s.close();
    });
  });
});

describe("Read: refusals and errors", () => {
  it("a missing file names the cwd and similar files", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "config.ts"), "x");
      await writeFile(join(dir, "Config.json"), "x");
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: join(dir, "config.js") }))).toBe(
        failureText(`File does not exist. Note: your current working directory is ${dir}. Did you mean config.ts, Config.json?`),
      );
      expect(text(await call(s, "Read", { file_path: "nothing-like-it.md" }))).toBe(
        failureText(`File does not exist. Note: your current working directory is ${dir}.`),
      );
      await mkdir(join(dir, "src"));
      await writeFile(join(dir, "src", "main.py"), "x");
      // The same name in the cwd when the folder was wrong.
      await writeFile(join(dir, "notes.md"), "x");
      expect(text(await call(s, "Read", { file_path: "src/notes.md" }))).toContain("Did you mean notes.md?");
      await s.close();
    });
  });

  it("a directory is refused with the reference's (system) message", async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, "sub"));
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "sub" }))).toBe(
        failureText(`EISDIR: illegal operation on a directory, read '${join(dir, "sub")}'`),
      );
      await s.close();
    });
  });

  it("binary files are refused, by extension and by content", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "x.zip"), "PK\x03\x04");
      await writeFile(join(dir, "blob"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]));
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "x.zip" }))).toBe(
        failureText(`${join(dir, "x.zip")} is a binary file (.zip); Read shows text, images (png, jpg, gif, webp), PDFs and notebooks only. Use Bash (e.g. file, xxd | head) if you need to inspect it.`),
      );
      expect(text(await call(s, "Read", { file_path: "blob" }))).toContain("is a binary file (detected from its content)");
      await s.close();
    });
  });

  it.each(["/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/tty", "/proc/self/fd/0", "/dev/fd/0"])(
    "refuses %s by name",
    async (device) => {
      await withTempDir(async (dir) => {
        const s = fileSession(dir, [ReadTool]);
        expect(text(await call(s, "Read", { file_path: device }))).toBe(
          failureText(`Cannot read ${device}: it is a device or stream that never ends or blocks. Read regular files only.`),
        );
        await s.close();
      });
    },
  );

  it("refuses a FIFO, a socket, a character device and a link to one", async () => {
    await withTempDir(async (dir) => {
      execFileSync("mkfifo", [join(dir, "fifo")]);
      const server = createServer();
      await new Promise<void>((r) => server.listen(join(dir, "sock"), r));
      await symlink("/dev/null", join(dir, "null-link"));
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "fifo" }))).toBe(
        failureText(`Cannot read ${join(dir, "fifo")}: it is a FIFO, not a regular file; reading it could block or never end.`),
      );
      expect(text(await call(s, "Read", { file_path: "sock" }))).toContain("it is a socket, not a regular file");
      expect(text(await call(s, "Read", { file_path: "null-link" }))).toContain("it is a device, not a regular file");
      await new Promise((r) => server.close(r));
      await s.close();
    });
  });

  it("a NUL in the path is an input error", async () => {
    await withTempDir(async (dir) => {
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "a\0b" }))).toBe("<tool_use_error>file_path contains a NUL character.</tool_use_error>");
      await s.close();
    });
  });
});

describe("Read: big files stream", () => {
  it("reads 100 lines at line 1,000,000 without loading the file", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "million.txt");
      const handle = await open(path, "w");
      const batch = 50_000;
      for (let start = 1; start <= 1_000_200; start += batch) {
        let chunk = "";
        for (let n = start; n < start + batch && n <= 1_000_200; n++) chunk += `line ${n}\n`;
        await handle.write(chunk);
      }
      await handle.close();
      const s = fileSession(dir, [ReadTool]);
      const out = text(await call(s, "Read", { file_path: path, offset: 1_000_000, limit: 100 }));
      const lines = out.split("\n");
      expect(lines[0]).toBe("1000000\tline 1000000");
      expect(lines[99]).toBe("1000099\tline 1000099");
      expect(lines).toHaveLength(100);
      expect(s.context.readFileState.get(path)?.partial).toBe(true);
      await s.close();
    });
  });

  it("a 3 GB sparse file: the first lines come back without reading the rest", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "sparse.log");
      await writeFile(path, Array.from({ length: 2000 }, (_, i) => `entry ${i + 1}`).join("\n") + "\n");
      const handle = await open(path, "r+");
      await handle.truncate(3 * 1024 ** 3);
      await handle.close();
      const s = fileSession(dir, [ReadTool]);
      const out = text(await call(s, "Read", { file_path: path, offset: 50, limit: 3 }));
      expect(out).toBe("50\tentry 50\n51\tentry 51\n52\tentry 52");
      await s.close();
    });
  });
});

describe("Read: paths", () => {
  it("relative paths resolve against the session cwd; the macOS screenshot space is tolerated", async () => {
    await withTempDir(async (dir) => {
      const real = join(dir, "Screenshot 2024-05-01 at 10.02.03\u202FAM.txt");
      await writeFile(real, "shot\n");
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "Screenshot 2024-05-01 at 10.02.03 AM.txt" }))).toBe("1\tshot\n2\t");
      await s.close();
    });
  });

  it("permissionSubject and backfill carry the absolute path", async () => {
    await withTempDir(async (dir) => {
      const s = fileSession(dir, [ReadTool]);
      const ctx = s.context;
      expect(ReadTool.permissionSubject({ file_path: "x/y.txt" }, ctx)).toEqual({ kind: "file", access: "read", paths: [join(dir, "x/y.txt")] });
      expect(ReadTool.backfillObservableInput!({ file_path: "./y.txt", offset: 3 }, ctx)).toEqual({ file_path: join(dir, "y.txt"), offset: 3 });
      expect(ReadTool.isReadOnly({ file_path: "a" })).toBe(true);
      expect(ReadTool.isConcurrencySafe({ file_path: "a" })).toBe(true);
      expect(ReadTool.maxResultSizeChars).toBe(Infinity);
      await s.close();
    });
  });
});

describe("Read: readFileState", () => {
  it("records a full read with the hash of the bytes, a window as partial (keeping the hash of an unchanged file)", async () => {
    await withTempDir(async (dir) => {
      const bytes = Buffer.from("a\nb\nc\n");
      await writeFile(join(dir, "f.txt"), bytes);
      await writeFile(join(dir, "g.txt"), bytes);
      const s = fileSession(dir, [ReadTool]);
      await call(s, "Read", { file_path: "f.txt" });
      const full = s.context.readFileState.get(join(dir, "f.txt"));
      expect(full).toMatchObject({ contentHash: sha256(bytes), partial: false });
      // The model now sees one line: partial (no "state is current" note after an edit), same hash.
      await call(s, "Read", { file_path: "f.txt", offset: 2, limit: 1 });
      expect(s.context.readFileState.get(join(dir, "f.txt"))).toMatchObject({ contentHash: sha256(bytes), partial: true });
      await call(s, "Read", { file_path: "g.txt", limit: 2 });
      expect(s.context.readFileState.get(join(dir, "g.txt"))?.partial).toBe(true);
      await s.close();
    });
  });
});

describe("Read: windows that add up to the whole file", () => {
  it("lines 1-2000 then 2001-end make a full read; a change in between starts over", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "long.txt");
      await writeFile(path, Array.from({ length: 3000 }, (_, i) => `l${i + 1}`).join("\n") + "\n");
      const s = fileSession(dir, [ReadTool]);
      await call(s, "Read", { file_path: path, limit: 2000 });
      expect(s.context.readFileState.get(path)).toMatchObject({ partial: true });
      await call(s, "Read", { file_path: path, offset: 2001 });
      expect(s.context.readFileState.get(path)).toMatchObject({ partial: false, contentHash: "" });

      const other = join(dir, "other.txt");
      await writeFile(other, "a\nb\nc\nd\n");
      await call(s, "Read", { file_path: other, offset: 3 });
      await writeFile(other, "a\nb\nc\nD\n");
      await utimes(other, new Date(), new Date(Date.now() + 5000));
      await call(s, "Read", { file_path: other, limit: 2 });
      expect(s.context.readFileState.get(other)?.partial).toBe(true);
      await call(s, "Read", { file_path: other, offset: 3, limit: 2 });
      expect(s.context.readFileState.get(other)?.partial).toBe(false);
      await s.close();
    });
  });
});

describe("Read: images, PDFs, notebooks", () => {
  it("a small png comes back as is, a large one downscaled", async () => {
    await withTempDir(async (dir) => {
      const small = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#f00" } }).png().toBuffer();
      await writeFile(join(dir, "small.png"), small);
      await sharp({ create: { width: 4000, height: 1000, channels: 3, background: "#0f0" } }).jpeg().toFile(join(dir, "wide.jpg"));
      const s = fileSession(dir, [ReadTool]);
      const r = await call(s, "Read", { file_path: "small.png" });
      expect(r.content).toEqual([{ type: "image", source: { type: "base64", media_type: "image/png", data: small.toString("base64") } }]);
      const wide = await call(s, "Read", { file_path: "wide.jpg" });
      const block = (wide.content as Array<{ type: string; source: { media_type: string; data: string } }>)[0]!;
      expect(block.source.media_type).toBe("image/jpeg");
      const meta = await sharp(Buffer.from(block.source.data, "base64")).metadata();
      expect([meta.width, meta.height]).toEqual([2000, 500]);
      await s.close();
    });
  });

  it("a PDF: text per page; over 10 pages needs pages; at most 20 a call", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "two.pdf"), makePdf(["Hello first page", "Second (page) here"]));
      await writeFile(join(dir, "twelve.pdf"), makePdf(Array.from({ length: 12 }, (_, i) => `Page text ${i + 1}`)));
      const s = fileSession(dir, [ReadTool]);
      expect(text(await call(s, "Read", { file_path: "two.pdf" }))).toBe(
        `PDF ${join(dir, "two.pdf")}: 2 pages, showing pages 1-2.\n\n--- Page 1 ---\nHello first page\n\n--- Page 2 ---\nSecond (page) here`,
      );
      expect(text(await call(s, "Read", { file_path: "twelve.pdf" }))).toBe(
        failureText('This PDF has 12 pages, more than 10 can be read at once. Call Read again with pages, e.g. pages: "1-20" (at most 20 pages a call).'),
      );
      expect(text(await call(s, "Read", { file_path: "twelve.pdf", pages: "11-12" }))).toBe(
        `PDF ${join(dir, "twelve.pdf")}: 12 pages, showing pages 11-12.\n\n--- Page 11 ---\nPage text 11\n\n--- Page 12 ---\nPage text 12`,
      );
      expect(text(await call(s, "Read", { file_path: "twelve.pdf", pages: "1-25" }))).toBe(
        '<tool_use_error>Invalid pages value "1-25": at most 20 pages can be read in one call. Split it into ranges such as "1-20".</tool_use_error>',
      );
      expect(text(await call(s, "Read", { file_path: "twelve.pdf", pages: "13" }))).toBe(failureText("This PDF has 12 pages; page 13 does not exist."));
      expect(text(await call(s, "Read", { file_path: "twelve.pdf", pages: "x" }))).toBe(
        '<tool_use_error>Invalid pages value "x". Use a page number ("3") or a range ("1-5").</tool_use_error>',
      );
      await s.close();
    });
  });

  it("PDF text over the output budget keeps whole pages and names the pages to ask for next", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "dense.pdf"), makePdf(Array.from({ length: 5 }, (_, i) => `P${i + 1} ${"w".repeat(30)}`)));
      const s = fileSession(dir, [createReadTool({ maxOutputTokens: 30 })]);
      expect(text(await call(s, "Read", { file_path: "dense.pdf" }))).toBe(
        `PDF ${join(dir, "dense.pdf")}: 5 pages, showing pages 1-2.\n\n--- Page 1 ---\nP1 ${"w".repeat(30)}\n\n--- Page 2 ---\nP2 ${"w".repeat(30)}\n\n` +
          '[Partial view: the text of pages 1-2 fills the output budget. Call Read with pages: "3-5" to continue.]',
      );
      await s.close();
    });
  });

  it("a notebook: cells with outputs, image outputs as image blocks; recorded as a full read", async () => {
    await withTempDir(async (dir) => {
      const png = (await sharp({ create: { width: 2, height: 2, channels: 3, background: "#00f" } }).png().toBuffer()).toString("base64");
      const nb = {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { language_info: { name: "python" } },
        cells: [
          { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
          {
            cell_type: "code",
            id: "calc",
            metadata: {},
            execution_count: 1,
            source: "print(1 + 1)\nplot()",
            outputs: [
              { output_type: "stream", name: "stdout", text: ["2\n"] },
              { output_type: "display_data", data: { "image/png": png, "text/plain": ["<Figure>"] }, metadata: {} },
              { output_type: "error", ename: "ValueError", evalue: "bad", traceback: ["\x1b[31mTraceback\x1b[0m", "line 1"] },
            ],
          },
        ],
      };
      await writeFile(join(dir, "n.ipynb"), JSON.stringify(nb));
      const s = fileSession(dir, [ReadTool]);
      const r = await call(s, "Read", { file_path: "n.ipynb" });
      expect(r.content).toEqual([
        // Cells and outputs a blank line apart, as the reference shows them.
        { type: "text", text: '<cell id="intro"><cell_type>markdown</cell_type># Title\nSome text</cell id="intro">\n\n<cell id="calc">print(1 + 1)\nplot()</cell id="calc">\n\n2' },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
        { type: "text", text: "ValueError: bad\nTraceback\nline 1" },
      ]);
      expect(s.context.readFileState.get(join(dir, "n.ipynb"))?.partial).toBe(false);
      await writeFile(join(dir, "bad.ipynb"), "{not json");
      expect(text(await call(s, "Read", { file_path: "bad.ipynb" }))).toContain("is not a valid notebook: The notebook is not valid JSON");
      await s.close();
    });
  });
});
