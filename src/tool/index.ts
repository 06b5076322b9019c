export * from "./types.js";
export { buildTool, defaultResultText, DEFAULT_MAX_RESULT_SIZE_CHARS } from "./build-tool.js";
export type { ToolDef } from "./build-tool.js";
export { ReadFileState } from "./read-file-state.js";
export { ToolUseError } from "./tool-use-error.js";
export type { ReadFileEntry } from "./read-file-state.js";
export { createToolUseContext, createSubagentContext, childAbortController, releaseAbortController, linkAbort } from "./context.js";
export type { CreateContextOptions, SubagentOverrides } from "./context.js";
