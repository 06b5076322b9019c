export { createEditTool, EditTool, editInputSchema } from "./edit-tool.js";
export type { EditInput, EditOutput, EditToolOptions } from "./edit-tool.js";
export { createMultiEditTool, MultiEditTool, multiEditInputSchema } from "./multi-edit-tool.js";
export type { MultiEditInput, MultiEditOutput, MultiEditToolOptions } from "./multi-edit-tool.js";
export { applyEdit, applyEdits } from "./apply-edits.js";
export type { EditSpec, AppliedEdit, EditOutcome } from "./apply-edits.js";
export { findActualString, normalizeQuotes, matchQuoteStyle } from "./find-actual-string.js";
export type { FoundString } from "./find-actual-string.js";
