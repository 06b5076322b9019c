export * from "./tool/index.js";
export * from "./registry/index.js";
export * from "./pipeline/index.js";
export * from "./orchestration/index.js";
export * from "./permissions/index.js";
export * from "./hooks/index.js";
export * from "./settings/index.js";
export * from "./budget/index.js";
export * from "./providers/index.js";
export * from "./session/index.js";
export * from "./mcp/index.js";
export { builtinTools, builtinToolRegistrations } from "./tools/index.js";
export type { BuiltinToolOptions } from "./tools/index.js";
export { ToolSearchTool, createToolSearchTool, toolSearchInputSchema, searchDeferredTools, type ToolSearchData, type ToolSearchInput } from "./registry/tool-search/index.js";
export {
  analyzeCommand,
  normalizeCommandText,
  MAX_READ_ONLY_COMMAND_LENGTH,
  MAX_READ_ONLY_SUBCOMMANDS,
  parserInitMs as bashParserInitMs,
  ensureBashGrammar,
  bashGrammarLoaded,
  isSafeEnvVariable,
  TRANSPARENT_WRAPPERS,
} from "./shell/index.js";
export { BashTool, createBashTool, bashInputSchema, sandboxConfigFromEnv, type BashToolOptions, type BashOutput, type SandboxConfig } from "./tools/bash/index.js";
export { TaskOutputTool, createTaskOutputTool, type TaskOutputData } from "./tools/task-output/index.js";
export { TaskStopTool, createTaskStopTool, type TaskStopData } from "./tools/task-stop/index.js";
export { taskRegistry, findTaskRegistry, TaskRegistry, type BackgroundTask, type TaskStatus } from "./tools/tasks/index.js";
export { createGlobTool, globTool, globInputSchema } from "./tools/glob/index.js";
export type { GlobInput, GlobOutput, GlobToolOptions } from "./tools/glob/index.js";
export { createGrepTool, grepTool, grepInputSchema } from "./tools/grep/index.js";
export type { GrepInput, GrepOutput, GrepToolOptions } from "./tools/grep/index.js";
export { createReadTool, ReadTool } from "./tools/read/index.js";
export type { ReadInput, ReadOutput, ReadToolOptions } from "./tools/read/index.js";
export { createWriteTool, WriteTool } from "./tools/write/index.js";
export type { WriteInput, WriteOutput, WriteToolOptions } from "./tools/write/index.js";
export { createEditTool, EditTool, createMultiEditTool, MultiEditTool } from "./tools/edit/index.js";
export type { EditInput, EditOutput, EditToolOptions, MultiEditInput, MultiEditOutput, MultiEditToolOptions } from "./tools/edit/index.js";
export { createNotebookEditTool, NotebookEditTool } from "./tools/notebook-edit/index.js";
export type { NotebookEditInput, NotebookEditOutput, NotebookEditToolOptions } from "./tools/notebook-edit/index.js";
export type { WriterOptions, AtomicWriteHooks } from "./fs/index.js";
export { TodoWriteTool, createTodoWriteTool, TodoStore, todoStore, type TodoItem, type TodoChange, type TodoStatus, type TodoWriteData } from "./tools/todo-write/index.js";
export { EnterPlanModeTool, ExitPlanModeTool, createEnterPlanModeTool, createExitPlanModeTool, type EnterPlanModeData, type ExitPlanModeData } from "./tools/plan-mode/index.js";
export { AskUserQuestionTool, createAskUserQuestionTool, type AskUserQuestionData, type AskUserQuestionInput } from "./tools/ask-user-question/index.js";
export { WebFetchTool, createWebFetchTool, nonPublicReason, type WebFetchData, type WebFetchOptions, type WebFetchSummarizer } from "./tools/web-fetch/index.js";
export { createWebSearchTool, anthropicWebSearch, type WebSearchBackend, type WebSearchData, type WebSearchHit, type WebSearchRequest, type WebSearchResponse, type AnthropicWebSearchOptions } from "./tools/web-search/index.js";
export * from "./agent/index.js";
export { AgentTool, createAgentTool, loadAgentDefinitions, parseAgentFile, BUILTIN_AGENTS, type AgentDefinition, type AgentToolOptions, type AgentToolData } from "./tools/agent/index.js";
export { createSkillTool, SKILL_TOOL_NAME, type SkillToolOptions, type SkillToolData, type SkillInput } from "./tools/skill/index.js";
export { loadSkills, parseSkillFile, skillListing, type Skill, type SkillSources } from "./skills/index.js";
