import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../../test/helpers.js";
import { call, errorText, failureText, fileSession, text } from "../../../test/file-tools/harness.js";
import { createToolUseContext } from "../../tool/context.js";
import { ReadTool } from "../read/read-tool.js";
import { createNotebookEditTool, NotebookEditTool } from "./notebook-edit-tool.js";

function notebook() {
  return {
    cells: [
      { cell_type: "markdown", id: "md1", metadata: {}, source: ["# Title\n", "text"] },
      {
        cell_type: "code",
        execution_count: 3,
        id: "code1",
        metadata: { tags: ["keep"] },
        outputs: [{ name: "stdout", output_type: "stream", text: ["old output\n"] }],
        source: ["x = 1\n", "print(x)"],
      },
    ],
    metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" }, language_info: { name: "python" } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

async function setup(dir: string, read = true) {
  const path = join(dir, "n.ipynb");
  await writeFile(path, `${JSON.stringify(notebook(), null, 1)}\n`);
  const s = fileSession(dir, [ReadTool, NotebookEditTool]);
  if (read) await call(s, "Read", { file_path: path });
  return { s, path, load: async () => JSON.parse(await readFile(path, "utf8")) as ReturnType<typeof notebook> };
}

describe("NotebookEdit", () => {
  it("replace: new source, stale outputs and execution count cleared, metadata kept, formatting kept", async () => {
    await withTempDir(async (dir) => {
      const { s, path, load } = await setup(dir);
      expect(text(await call(s, "NotebookEdit", { notebook_path: path, cell_id: "code1", new_source: "x = 2\nprint(x)" }))).toBe(
        "Updated cell code1 with x = 2\nprint(x)",
      );
      const nb = await load();
      expect(nb.cells[1]).toEqual({ cell_type: "code", execution_count: null, id: "code1", metadata: { tags: ["keep"] }, outputs: [], source: ["x = 2\n", "print(x)"] });
      expect(nb.metadata).toEqual(notebook().metadata);
      expect([nb.nbformat, nb.nbformat_minor]).toEqual([4, 5]);
      const raw = await readFile(path, "utf8");
      expect(raw.startsWith('{\n "cells": [')).toBe(true);
      expect(raw.endsWith("}\n")).toBe(true);
      await s.close();
    });
  });

  it("insert after a cell, or first; a new code cell has an id, no outputs, no count", async () => {
    await withTempDir(async (dir) => {
      const { s, path, load } = await setup(dir);
      const r = text(await call(s, "NotebookEdit", { notebook_path: path, cell_id: "md1", new_source: "y = 3", cell_type: "code", edit_mode: "insert" }));
      const nb = await load();
      const inserted = nb.cells[1] as { id: string };
      expect(r).toBe(`Inserted cell ${inserted.id} with y = 3`);
      expect(inserted).toEqual({ cell_type: "code", execution_count: null, id: inserted.id, metadata: {}, outputs: [], source: ["y = 3"] });
      expect(inserted.id).toMatch(/^[0-9a-f]{8}$/);
      await call(s, "NotebookEdit", { notebook_path: path, new_source: "## Top", cell_type: "markdown", edit_mode: "insert" });
      const after = await load();
      expect(after.cells.map((c) => c.cell_type)).toEqual(["markdown", "markdown", "code", "code"]);
      expect(after.cells[0]).not.toHaveProperty("outputs");
      await s.close();
    });
  });

  it("delete; cells named cell-N when they have no id", async () => {
    await withTempDir(async (dir) => {
      const { s, path, load } = await setup(dir);
      expect(text(await call(s, "NotebookEdit", { notebook_path: path, cell_id: "cell-0", new_source: "", edit_mode: "delete" }))).toBe("Deleted cell md1");
      expect((await load()).cells.map((c) => c.id)).toEqual(["code1"]);
      await s.close();
    });
  });

  it("errors: not read, unknown cell, insert without cell_type, not a notebook, invalid JSON", async () => {
    await withTempDir(async (dir) => {
      const { s, path } = await setup(dir, false);
      expect(text(await call(s, "NotebookEdit", { notebook_path: path, cell_id: "md1", new_source: "x" }))).toBe(
        errorText("File has not been read yet. Read it first before writing to it."),
      );
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "NotebookEdit", { notebook_path: path, cell_id: "nope", new_source: "x" }))).toBe(
        errorText('Cell with ID "nope" not found in the notebook. Its cells are: md1, code1.'),
      );
      expect(text(await call(s, "NotebookEdit", { notebook_path: path, new_source: "x", edit_mode: "insert" }))).toBe(
        "<tool_use_error>cell_type is required when edit_mode is insert (code or markdown).</tool_use_error>",
      );
      expect(text(await call(s, "NotebookEdit", { notebook_path: join(dir, "a.py"), cell_id: "x", new_source: "x" }))).toBe(
        "<tool_use_error>File must be a Jupyter notebook (.ipynb file). For other files use Edit.</tool_use_error>",
      );
      const bad = join(dir, "bad.ipynb");
      await writeFile(bad, '{"cells": "no"}');
      const ctx = createToolUseContext({ cwd: dir });
      const loose = createNotebookEditTool({ requireReadBeforeEdit: false });
      await expect(loose.call({ notebook_path: bad, cell_id: "cell-0", new_source: "x" }, ctx, () => {})).rejects.toThrow(
        "The notebook is not valid, so it was not changed: The notebook has no `cells` array.",
      );
      await s.close();
    });
  });

  it("atomic: a failure before the rename leaves the notebook intact", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "n.ipynb");
      const original = JSON.stringify(notebook(), null, 1);
      await writeFile(path, original);
      const failing = createNotebookEditTool({ atomicWriteHooks: { beforeRename: () => { throw new Error("crash"); } } });
      const s = fileSession(dir, [ReadTool, failing]);
      await call(s, "Read", { file_path: path });
      expect(text(await call(s, "NotebookEdit", { notebook_path: path, cell_id: "code1", new_source: "z" }))).toBe(failureText("crash"));
      expect(await readFile(path, "utf8")).toBe(original);
      expect(await readdir(dir)).toEqual(["n.ipynb"]);
      await s.close();
    });
  });

  it("hook data and permission subject", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "n.ipynb");
      await writeFile(path, JSON.stringify(notebook()));
      const ctx = createToolUseContext({ cwd: dir });
      await ReadTool.call({ file_path: path }, ctx, () => {});
      const { data } = await NotebookEditTool.call({ notebook_path: "n.ipynb", cell_id: "md1", new_source: "# New" }, ctx, () => {});
      expect(data).toMatchObject({ new_source: "# New", cell_id: "md1", cell_type: "markdown", language: "python", edit_mode: "replace", notebook_path: path });
      expect(NotebookEditTool.permissionSubject({ notebook_path: "n.ipynb", new_source: "" }, ctx)).toEqual({ kind: "file", access: "write", paths: [path] });
      expect(NotebookEditTool.backfillObservableInput!({ notebook_path: "n.ipynb", new_source: "" }, ctx)).toEqual({ notebook_path: path, new_source: "" });
    });
  });
});
