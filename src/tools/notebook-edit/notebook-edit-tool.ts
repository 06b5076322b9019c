import { ToolUseError } from "../../tool/tool-use-error.js";
import { extname } from "node:path";
import { z } from "zod";
import { buildTool } from "../../tool/build-tool.js";
import type { Tool } from "../../tool/types.js";
import { judgedTargetOf } from "../../fs/judged-target.js";
import { filePathMembers } from "../../fs/path-members.js";
import { withFileLockFor } from "../../fs/file-lock.js";
import { detectJsonIndent, notebookLanguage, parseNotebook } from "../../fs/notebook.js";
import { resolveToolPath } from "../../fs/path.js";
import { missingFileMessage } from "../../fs/similar-files.js";
import { loadForWrite, writeTextFile, type WriterOptions } from "../../fs/text-file.js";
import { applyNotebookEdit, type NotebookEditMode } from "./apply-notebook-edit.js";
import { NOTEBOOK_EDIT_DESCRIPTION, NOTEBOOK_EDIT_TOOL_NAME } from "./prompt.js";

export const notebookEditInputSchema = z.object({
  notebook_path: z.string().describe("Absolute path of the .ipynb notebook to change (a relative path is not accepted)"),
  cell_id: z
    .string()
    .optional()
    .describe("Id of the cell to change or delete. For an insert, the new cell goes right after this one; without an id it goes first in the notebook."),
  new_source: z.string().describe("The new source for the cell"),
  cell_type: z
    .enum(["code", "markdown"])
    .optional()
    .describe("code or markdown. Needed when inserting; when replacing, the cell keeps its kind unless you give one."),
  edit_mode: z.enum(["replace", "insert", "delete"]).optional().describe("replace (the default) swaps a cell's source, insert adds a cell, delete removes one."),
});

export type NotebookEditInput = z.infer<typeof notebookEditInputSchema>;

/** What PostToolUse hooks receive as tool_response. */
export interface NotebookEditOutput {
  new_source: string;
  cell_id: string;
  cell_type: "code" | "markdown" | "raw";
  language: string;
  edit_mode: NotebookEditMode;
  notebook_path: string;
  original_file: string;
  updated_file: string;
}

export type NotebookEditToolOptions = WriterOptions;

export function createNotebookEditTool(options: NotebookEditToolOptions = {}): Tool<typeof notebookEditInputSchema, NotebookEditOutput> {
  return buildTool<typeof notebookEditInputSchema, NotebookEditOutput>({
    name: NOTEBOOK_EDIT_TOOL_NAME,
    searchHint: "jupyter notebook cell edit",
    description: NOTEBOOK_EDIT_DESCRIPTION,
    inputSchema: notebookEditInputSchema,

    ...filePathMembers<NotebookEditInput, "notebook_path">("notebook_path", "write", (input) => {
      if (extname(input.notebook_path).toLowerCase() !== ".ipynb") {
        return { result: false, message: "File must be a Jupyter notebook (.ipynb file). For other files use Edit.", errorCode: "not-notebook" };
      }
      const mode = input.edit_mode ?? "replace";
      if (mode === "insert" && input.cell_type === undefined) {
        return { result: false, message: "cell_type is required when edit_mode is insert (code or markdown).", errorCode: "cell-type" };
      }
      if (mode !== "insert" && input.cell_id === undefined) {
        return { result: false, message: `cell_id is required when edit_mode is ${mode}.`, errorCode: "cell-id" };
      }
      return undefined;
    }),


    async call(input, context) {
      const path = resolveToolPath(input.notebook_path, context.workspace.cwd);
      const mode = input.edit_mode ?? "replace";
      return withFileLockFor(path, async () => {
        const existing = await loadForWrite(path, context, options);
        if (!existing.exists) throw new ToolUseError(await missingFileMessage(path, context.workspace.cwd));
        const nb = parseNotebook(existing.text);
        if (typeof nb === "string") throw new ToolUseError(`The notebook is not valid, so it was not changed: ${nb}`);
        const request: Parameters<typeof applyNotebookEdit>[1] = { mode, newSource: input.new_source };
        if (input.cell_id !== undefined) request.cellId = input.cell_id;
        if (input.cell_type !== undefined) request.cellType = input.cell_type;
        const outcome = applyNotebookEdit(nb, request);
        if (!outcome.ok) throw new ToolUseError(outcome.message);
        const trailing = /\r?\n$/.exec(existing.text)?.[0] ?? "";
        const updated = JSON.stringify(outcome.notebook, null, detectJsonIndent(existing.text)) + trailing;
        await writeTextFile(path, updated, existing.format, context, { ...options, expectMtimeMs: existing.mtimeMs, judgedTarget: judgedTargetOf(input) });
        return {
          data: {
            new_source: input.new_source,
            cell_id: outcome.cellId,
            cell_type: outcome.cellType,
            language: notebookLanguage(outcome.notebook),
            edit_mode: mode,
            notebook_path: path,
            original_file: existing.text,
            updated_file: updated,
          },
        };
      });
    },

    mapToolResultToToolResultBlockParam(data, toolUseId) {
      const text =
        data.edit_mode === "delete"
          ? `Deleted cell ${data.cell_id}`
          : `${data.edit_mode === "insert" ? "Inserted" : "Updated"} cell ${data.cell_id} with ${data.new_source}`;
      return { type: "tool_result", tool_use_id: toolUseId, content: text };
    },
  });
}

export const NotebookEditTool = createNotebookEditTool();
