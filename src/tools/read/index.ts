export { createReadTool, ReadTool, readInputSchema } from "./read-tool.js";
export type { ReadInput, ReadOutput, ReadToolOptions } from "./read-tool.js";
export { readLineWindow, TRUNCATED_LINE_MARKER } from "./line-window.js";
export type { LineWindow, LineWindowOptions } from "./line-window.js";
export type { TextReadData } from "./read-text.js";
export type { ImageReadData } from "./read-image.js";
export type { PdfReadData } from "./read-pdf.js";
export type { NotebookReadData, NotebookCellView } from "./read-notebook.js";
