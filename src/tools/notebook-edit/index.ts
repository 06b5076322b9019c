export { createNotebookEditTool, NotebookEditTool, notebookEditInputSchema } from "./notebook-edit-tool.js";
export type { NotebookEditInput, NotebookEditOutput, NotebookEditToolOptions } from "./notebook-edit-tool.js";
export { applyNotebookEdit } from "./apply-notebook-edit.js";
export type { NotebookEditMode, NotebookEditRequest, NotebookEditOutcome } from "./apply-notebook-edit.js";
