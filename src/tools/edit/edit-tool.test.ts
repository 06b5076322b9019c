import { chmod, lstat, mkdir, open, readdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/helpers.js";
import { call, errorText, failureText, fileSession, text } from "../../../test/file-tools/harness.js";
import { createToolUseContext } from "../../tool/context.js";
import { ReadTool } from "../read/read-tool.js";
import { createEditTool, EditTool } from "./edit-tool.js";
import { MultiEditTool } from "./multi-edit-tool.js";

const tools = [ReadTool, EditTool, MultiEditTool];

async function setup(dir: string, name: string, content: string | Buffer, read = true) {
  const path = join(dir, name);
  await writeFile(path, content);
  const s = fileSession(dir, tools);
  if (read) await call(s, "Read", { file_path: path });
  return { s, path };
}

describe("Edit: golden results", () => {
  it("the reference's success line: state current after a whole-file Read, bare after a window", async () => {
    await withTempDir(async (dir) => {
      const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
      const { s, path } = await setup(dir, "f.txt", `${lines.join("\n")}\n`);
      const r = await call(s, "Edit", { file_path: path, old_string: "line 6", new_string: "LINE SIX" });
      expect(text(r)).toBe(`The file ${path} has been updated successfully. (file state is current in your context — no need to Read it back)`);
      expect(await readFile(path, "utf8")).toBe(`${lines.join("\n").replace("line 6", "LINE SIX")}\n`);
      // After a window the model has not seen the rest: no note. A window is enough to edit.
      await call(s, "Read", { file_path: path, offset: 2, limit: 1 });
      expect(text(await call(s, "Edit", { file_path: path, old_string: "line 9", new_string: "LINE NINE" }))).toBe(`The file ${path} has been updated successfully.`);
      await s.close();
    });
  });

  it("errors: not read, changed since read, not found, not unique, same strings (the reference's texts)", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.txt", "x = 1\nx = 1\ny = 2\n", false);
      expect(text(await call(s, "Edit", { file_path: path, old_string: "y = 2", new_string: "y = 3" }))).toBe(
        errorText("File has not been read yet. Read it first before writing to it."),
      );
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "Edit", { file_path: path, old_string: "z", new_string: "w" }))).toBe(errorText("String to replace not found in file.\nString: z"));
      expect(text(await call(s, "Edit", { file_path: path, old_string: "3\ty = 2", new_string: "3\ty = 3" }))).toBe(
        errorText("String to replace not found in file.\nString: 3\ty = 2"),
      );
      expect(text(await call(s, "Edit", { file_path: path, old_string: "x = 1", new_string: "x = 2" }))).toBe(
        errorText(
          "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: x = 1",
        ),
      );
      expect(text(await call(s, "Edit", { file_path: path, old_string: "y", new_string: "y" }))).toBe(
        "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>",
      );
      // Changed by someone else since the read.
      await writeFile(path, "x = 1\nx = 1\ny = 9\n");
      await utimes(path, new Date(), new Date(Date.now() + 5000));
      expect(text(await call(s, "Edit", { file_path: path, old_string: "y = 9", new_string: "y = 3" }))).toBe(
        errorText("File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."),
      );
      await s.close();
    });
  });

  it("a touch without a content change is not a change (mtime differs, hash equal)", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.txt", "keep\n");
      await utimes(path, new Date(), new Date(Date.now() + 10_000));
      expect(text(await call(s, "Edit", { file_path: path, old_string: "keep", new_string: "kept" }))).toContain("has been updated successfully");
      await s.close();
    });
  });

  it("replace_all replaces every occurrence and says so", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.ts", "let a = a + a;\n");
      expect(text(await call(s, "Edit", { file_path: path, old_string: "a", new_string: "b", replace_all: true }))).toBe(
        `The file ${path} has been updated. All occurrences were successfully replaced. (file state is current in your context — no need to Read it back)`,
      );
      expect(await readFile(path, "utf8")).toBe("let b = b + b;\n");
      await s.close();
    });
  });
});

describe("Edit: the tolerant match", () => {
  it("curly quotes, one place: used, and the file's quote style kept; missing trailing spaces are not found", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.md", "intro\nsay(\u201Chi\u201D)\nend\n");
      const r = text(await call(s, "Edit", { file_path: path, old_string: 'say("hi")\n', new_string: 'say("bye")\n' }));
      expect(r).toBe(`The file ${path} has been updated successfully. (file state is current in your context — no need to Read it back)`);
      expect(await readFile(path, "utf8")).toBe("intro\nsay(\u201Cbye\u201D)\nend\n");
      // As the reference (probe g1#8): an old_string without the file's trailing spaces is not found.
      await writeFile(path, "alpha   \nbeta\n");
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "Edit", { file_path: path, old_string: "alpha\nbeta", new_string: "ALPHA\nbeta" }))).toBe(
        errorText("String to replace not found in file.\nString: alpha\nbeta"),
      );
      expect(await readFile(path, "utf8")).toBe("alpha   \nbeta\n");
      await s.close();
    });
  });

  it("not used when it finds more than one place", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.txt", "it\u2019s\nit\u2018s\n");
      expect(text(await call(s, "Edit", { file_path: path, old_string: "it's\n", new_string: "it is\n" }))).toBe(
        errorText(
          "String to replace not found exactly, and after straightening quotes it matches 2 places. Copy old_string exactly as Read shows it, with enough context to identify one place.\nString: it's\n",
        ),
      );
      await s.close();
    });
  });
});

describe("Edit: creating files", () => {
  it("an empty old_string on a missing file creates it and its folders; not on an existing file", async () => {
    await withTempDir(async (dir) => {
      const s = fileSession(dir, tools);
      const path = join(dir, "new/deep/file.txt");
      expect(text(await call(s, "Edit", { file_path: path, old_string: "", new_string: "hello\n" }))).toBe(
        `File created successfully at: ${path} (file state is current in your context — no need to Read it back)`,
      );
      expect(await readFile(path, "utf8")).toBe("hello\n");
      // The created file is known to the session: a follow-up edit needs no Read.
      expect(text(await call(s, "Edit", { file_path: path, old_string: "hello", new_string: "bye" }))).toContain("updated successfully");
      expect(text(await call(s, "Edit", { file_path: path, old_string: "", new_string: "x" }))).toBe(
        errorText("Cannot create new file - file already exists."),
      );
      expect(text(await call(s, "Edit", { file_path: join(dir, "nope.txt"), old_string: "a", new_string: "b" }))).toBe(
        errorText(`File does not exist. Note: your current working directory is ${dir}.`),
      );
      await s.close();
    });
  });
});

describe("Edit: what is preserved", () => {
  const cases: Array<[string, Buffer, string, string, Buffer]> = [
    ["CRLF line endings", Buffer.from("a\r\nb\r\nc\r\n"), "a\nb", "x\ny\nz", Buffer.from("x\r\ny\r\nz\r\nc\r\n")],
    ["mixed endings: an LF region stays LF", Buffer.from("a\r\nb\r\nc\nd\r\n"), "c\n", "C\n", Buffer.from("a\r\nb\r\nC\nd\r\n")],
    ["UTF-8 BOM", Buffer.from("\uFEFFhé\n"), "hé", "ho", Buffer.from("\uFEFFho\n")],
    [
      "UTF-16 LE with BOM",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("één\r\n", "utf16le")]),
      "één",
      "twee",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("twee\r\n", "utf16le")]),
    ],
    [
      "UTF-16 BE with BOM",
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("ab\n", "utf16le").swap16()]),
      "ab",
      "cd",
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("cd\n", "utf16le").swap16()]),
    ],
    ["a dropped final newline is restored", Buffer.from("a\nb\n"), "b\n", "c", Buffer.from("a\nc\n")],
    ["no final newline stays without", Buffer.from("a\nb"), "b", "c\n", Buffer.from("a\nc")],
    ["replacement patterns are literal", Buffer.from("a-b\n"), "a", "$&$1$$", Buffer.from("$&$1$$-b\n")],
  ];
  it.each(cases)("%s", async (_name, before, oldString, newString, after) => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.txt", before);
      const r = await call(s, "Edit", { file_path: path, old_string: oldString, new_string: newString });
      expect(r.is_error, text(r)).toBeUndefined();
      expect(await readFile(path)).toEqual(after);
      await s.close();
    });
  });

  it("a file that is not UTF-8 is refused with the reference's text, and left as it was", async () => {
    await withTempDir(async (dir) => {
      const bytes = Buffer.from("caf\xe9 au lait\n", "latin1");
      const { s, path } = await setup(dir, "f.txt", bytes);
      expect(text(await call(s, "Edit", { file_path: path, old_string: "au", new_string: "AU" }))).toBe(
        errorText(
          "File is not valid UTF-8: it uses a legacy encoding such as Windows-1252, Shift-JIS or GBK, or it is binary. These tools write UTF-8 (or UTF-16LE behind its byte-order mark) and never convert a file's encoding on their own, so nothing was written. If the file is text, make the change with a shell command that reads and writes it in its own encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it first, then Write it.",
        ),
      );
      expect(await readFile(path)).toEqual(bytes);
      await s.close();
    });
  });

  it("keeps the file mode, and edits through a symlink land on the target", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "run.sh", "echo hi\n");
      await chmod(path, 0o751);
      await call(s, "Read", { file_path: path });
      await call(s, "Edit", { file_path: path, old_string: "hi", new_string: "ho" });
      expect((await stat(path)).mode & 0o777).toBe(0o751);
      await symlink(path, join(dir, "link.sh"));
      await call(s, "Read", { file_path: join(dir, "link.sh") });
      expect(text(await call(s, "Edit", { file_path: join(dir, "link.sh"), old_string: "echo ho", new_string: "echo hu" }))).toContain("updated");
      expect((await lstat(join(dir, "link.sh"))).isSymbolicLink()).toBe(true);
      expect(await readFile(path, "utf8")).toBe("echo hu\n");
      await s.close();
    });
  });
});

describe("Edit: atomicity, locking, limits, options", () => {
  it("a failure between the temp write and the rename leaves the original intact and no temp file", async () => {
    await withTempDir(async (dir) => {
      const failing = createEditTool({
        atomicWriteHooks: {
          beforeRename: () => {
            throw new Error("disk unplugged");
          },
        },
      });
      const path = join(dir, "f.txt");
      await writeFile(path, "original\n");
      const s = fileSession(dir, [ReadTool, failing]);
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "Edit", { file_path: path, old_string: "original", new_string: "changed" }))).toBe(failureText("disk unplugged"));
      expect(await readFile(path, "utf8")).toBe("original\n");
      expect(await readdir(dir)).toEqual(["f.txt"]);
      await s.close();
    });
  });

  it("concurrent edits of one file are serialised: both land", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      await writeFile(path, "one\ntwo\n");
      const context = createToolUseContext({ cwd: dir });
      await ReadTool.call({ file_path: path }, context, () => {});
      await Promise.all([
        EditTool.call({ file_path: path, old_string: "one", new_string: "1" }, context, () => {}),
        EditTool.call({ file_path: path, old_string: "two", new_string: "2" }, context, () => {}),
      ]);
      expect(await readFile(path, "utf8")).toBe("1\n2\n");
    });
  });

  it("files over 1 GiB are refused", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "huge.txt");
      const handle = await open(path, "w");
      await handle.truncate(1024 ** 3 + 1);
      await handle.close();
      const s = fileSession(dir, tools);
      expect(text(await call(s, "Edit", { file_path: path, old_string: "a", new_string: "b" }))).toBe(
        errorText("File is too large to edit (1.0 GiB; the limit is 1 GiB). Use Bash (sed, or a script) to change it."),
      );
      await s.close();
    });
  });

  it("requireReadBeforeEdit: false is an explicit host option", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      await writeFile(path, "a\n");
      const s = fileSession(dir, [createEditTool({ requireReadBeforeEdit: false })]);
      expect(text(await call(s, "Edit", { file_path: path, old_string: "a", new_string: "b" }))).toContain("updated successfully");
      await s.close();
    });
  });

  it("notebooks go to NotebookEdit; directories are refused", async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, "d"));
      const s = fileSession(dir, tools);
      expect(text(await call(s, "Edit", { file_path: "n.ipynb", old_string: "a", new_string: "b" }))).toBe(
        errorText("File is a Jupyter Notebook. Use NotebookEdit to change its cells."),
      );
      expect(text(await call(s, "Edit", { file_path: "d", old_string: "a", new_string: "b" }))).toBe(
        errorText(`${join(dir, "d")} is a directory, not a file. Give the path of a file inside it.`),
      );
      await s.close();
    });
  });
});

describe("Edit: structured data for PostToolUse hooks", () => {
  it("filePath, oldString, newString, originalFile, structuredPatch, replaceAll", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      const original = Array.from({ length: 20 }, (_, i) => `r${i + 1}`).join("\n") + "\n";
      await writeFile(path, original);
      const context = createToolUseContext({ cwd: dir });
      await ReadTool.call({ file_path: "f.txt" }, context, () => {});
      const { data } = await EditTool.call({ file_path: "f.txt", old_string: "r10\n", new_string: "ten\nTEN\n" }, context, () => {});
      expect(data).toMatchObject({ filePath: path, oldString: "r10\n", newString: "ten\nTEN\n", originalFile: original, replaceAll: false, userModified: false });
      expect(data.structuredPatch).toEqual([
        { oldStart: 7, oldLines: 7, newStart: 7, newLines: 8, lines: [" r7", " r8", " r9", "-r10", "+ten", "+TEN", " r11", " r12", " r13"] },
      ]);
      expect(context.readFileState.get(path)?.partial).toBe(false);
    });
  });

  it("permissionSubject is a write of the absolute path", async () => {
    await withTempDir(async (dir) => {
      const context = createToolUseContext({ cwd: dir });
      expect(EditTool.permissionSubject({ file_path: "a/b.txt", old_string: "", new_string: "x" }, context)).toEqual({
        kind: "file",
        access: "write",
        paths: [join(dir, "a/b.txt")],
      });
      expect(EditTool.isReadOnly({ file_path: "x", old_string: "a", new_string: "b" })).toBe(false);
      expect(EditTool.isConcurrencySafe({ file_path: "x", old_string: "a", new_string: "b" })).toBe(false);
    });
  });
});

describe("MultiEdit", () => {
  it("applies edits in order, each on the result of the one before", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.txt", "alpha beta\n");
      const r = await call(s, "MultiEdit", {
        file_path: path,
        edits: [
          { old_string: "alpha", new_string: "gamma" },
          { old_string: "gamma beta", new_string: "delta" },
        ],
      });
      expect(text(r)).toBe(`The file ${path} has been updated successfully. (file state is current in your context — no need to Read it back)`);
      expect(await readFile(path, "utf8")).toBe("delta\n");
      await s.close();
    });
  });

  it("all or nothing: a failing edit leaves the file unchanged", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, "f.txt", "one two\n");
      expect(
        text(await call(s, "MultiEdit", { file_path: path, edits: [{ old_string: "one", new_string: "1" }, { old_string: "three", new_string: "3" }] })),
      ).toBe(
        errorText(
          "Edit 2 of 2 failed, so no edit was applied: String to replace not found in file.\nString: three",
        ),
      );
      expect(await readFile(path, "utf8")).toBe("one two\n");
      expect(text(await call(s, "MultiEdit", { file_path: path, edits: [{ old_string: "one", new_string: "1" }, { old_string: "two", new_string: "two" }] }))).toBe(
        "<tool_use_error>Edit 2 of 2: No changes to make: old_string and new_string are exactly the same.</tool_use_error>",
      );
      await s.close();
    });
  });

  it("creates a file when the first old_string is empty", async () => {
    await withTempDir(async (dir) => {
      const s = fileSession(dir, tools);
      const path = join(dir, "made.txt");
      const r = await call(s, "MultiEdit", { file_path: path, edits: [{ old_string: "", new_string: "a b\n" }, { old_string: "b", new_string: "c" }] });
      expect(text(r)).toBe(`File created successfully at: ${path} (file state is current in your context — no need to Read it back)`);
      expect(await readFile(path, "utf8")).toBe("a c\n");
      await s.close();
    });
  });
});
