import { readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/helpers.js";
import { call, errorText, failureText, fileSession, text } from "../../../test/file-tools/harness.js";
import { createToolUseContext } from "../../tool/context.js";
import { ReadTool } from "../read/read-tool.js";
import { createWriteTool, WriteTool } from "./write-tool.js";

describe("Write", () => {
  it("creates a file and its folders; says created", async () => {
    await withTempDir(async (dir) => {
      const s = fileSession(dir, [ReadTool, WriteTool]);
      const path = join(dir, "a/b/c.txt");
      expect(text(await call(s, "Write", { file_path: "a/b/c.txt", content: "hi\n" }))).toBe(`File created successfully at: ${path} (file state is current in your context — no need to Read it back)`);
      expect(await readFile(path, "utf8")).toBe("hi\n");
      await s.close();
    });
  });

  it("overwriting needs a full Read and no change since; then says updated", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      await writeFile(path, "old\n");
      const s = fileSession(dir, [ReadTool, WriteTool]);
      expect(text(await call(s, "Write", { file_path: path, content: "new\n" }))).toBe(
        errorText("File has not been read yet. Read it first before writing to it."),
      );
      await call(s, "Read", { file_path: path });
      await writeFile(path, "someone else\n");
      await utimes(path, new Date(), new Date(Date.now() + 5000));
      expect(text(await call(s, "Write", { file_path: path, content: "new\n" }))).toBe(
        errorText("File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."),
      );
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "Write", { file_path: path, content: "new\n" }))).toBe(`The file ${path} has been updated successfully. (file state is current in your context — no need to Read it back)`);
      expect(await readFile(path, "utf8")).toBe("new\n");
      // Our own write counts as a read: writing again needs no Read.
      expect(text(await call(s, "Write", { file_path: path, content: "newer\n" }))).toBe(`The file ${path} has been updated successfully. (file state is current in your context — no need to Read it back)`);
      await s.close();
    });
  });

  it("keeps an existing file's BOM and encoding", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "u16.txt");
      await writeFile(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("old\r\n", "utf16le")]));
      const s = fileSession(dir, [ReadTool, WriteTool]);
      await call(s, "Read", { file_path: path });
      await call(s, "Write", { file_path: path, content: "nieuw ✓\r\n" });
      expect(await readFile(path)).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("nieuw ✓\r\n", "utf16le")]));
      await s.close();
    });
  });

  it("structured data: type, originalFile and a patch", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      await writeFile(path, "a\nb\n");
      const context = createToolUseContext({ cwd: dir });
      await ReadTool.call({ file_path: path }, context, () => {});
      const { data } = await WriteTool.call({ file_path: path, content: "a\nc\n" }, context, () => {});
      expect(data).toEqual({
        type: "update",
        filePath: path,
        content: "a\nc\n",
        originalFile: "a\nb\n",
        structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" a", "-b", "+c"] }],
      });
      const created = await WriteTool.call({ file_path: "g.txt", content: "x" }, context, () => {});
      expect(created.data).toMatchObject({ type: "create", originalFile: null });
      expect(WriteTool.permissionSubject({ file_path: "g.txt", content: "" }, context)).toEqual({ kind: "file", access: "write", paths: [join(dir, "g.txt")] });
    });
  });

  it("a failure before the rename leaves the original intact", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      await writeFile(path, "keep me\n");
      const failing = createWriteTool({ atomicWriteHooks: { beforeRename: () => Promise.reject(new Error("power cut")) } });
      const s = fileSession(dir, [ReadTool, failing]);
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "Write", { file_path: path, content: "lost\n" }))).toBe(failureText("power cut"));
      expect(await readFile(path, "utf8")).toBe("keep me\n");
      expect(await readdir(dir)).toEqual(["f.txt"]);
      await s.close();
    });
  });

  it("a write by another process while the call runs is not overwritten", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "f.txt");
      await writeFile(path, "v1\n");
      const racing = createWriteTool({
        atomicWriteHooks: {
          beforeRename: async () => {
            await writeFile(path, "theirs\n");
            await utimes(path, new Date(), new Date(Date.now() + 7000));
          },
        },
      });
      const s = fileSession(dir, [ReadTool, racing]);
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "Write", { file_path: path, content: "mine\n" }))).toBe(
        errorText("File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."),
      );
      expect(await readFile(path, "utf8")).toBe("theirs\n");
      const fresh = join(dir, "new.txt");
      const creating = createWriteTool({ atomicWriteHooks: { beforeRename: () => writeFile(fresh, "theirs") } });
      const s2 = fileSession(dir, [creating]);
      expect(text(await call(s2, "Write", { file_path: fresh, content: "mine" }))).toBe(
        errorText("The file was created by someone else while this call ran. Read it, then write again."),
      );
      expect(await readFile(fresh, "utf8")).toBe("theirs");
      await s.close();
      await s2.close();
    });
  });
});
