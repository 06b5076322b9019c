export { runToolUse, defaultPipelineServices, ToolAbandonedError } from "./run-tool-use.js";
export type { PipelineServices, ToolCallOutcome } from "./run-tool-use.js";
export { prepareToolUse, prepareTurn, loadToolsFor, duplicateToolUse, overLimitToolUse, MAX_TOOL_USES_PER_TURN, parseToolInput, modelSchema, runtimeSchema, MalformedToolInput } from "./prepare.js";
export type { PreparedCall, ParsedInput } from "./prepare.js";
export { toolUseError, formatZodIssues, inputValidationMessage, classifyError, formatClassifiedError } from "./errors.js";
export type { ClassifiedError } from "./errors.js";
export { observableInput, permissionRequestFor } from "./permission-request.js";
