// The public API of `@armature-dev/armature`: what the README documents, and the types needed to
// name its arguments and results. Everything else is internal (modules import each other by
// relative path). One name per line, sorted within each block; `api/armature.api.md` records the
// result (`npm run api` rewrites it, test/api-report.test.ts fails when it is stale).

// Sessions: tool_use blocks in, tool_result blocks out.
export {
  closeSessionOnSignals,
  createSession,
  exitOnSignals,
  parseSessionSnapshot,
  SnapshotError,
} from "./session/index.js";
export type {
  DynamicToolSource,
  RunTurnOptions,
  Session,
  SessionOptions,
  SessionSnapshot,
  SessionStreamEvent,
  SessionStreamInput,
  SignalExitOptions,
  TerminationSignal,
  TurnResult,
} from "./session/index.js";
export type { SessionInfo } from "./session/session.js";
export type { ToolUseCheck } from "./pipeline/check-tool-use.js";
export type { Refusal, RefusalText } from "./pipeline/run-tool-use.js";

// Defining tools.
export {
  buildTool,
  PERMISSION_MODES,
  ToolUseError,
} from "./tool/index.js";
export type {
  AnyObjectSchema,
  ConversationMessage,
  ImageBlock,
  ImageMediaType,
  PermissionMode,
  PermissionRule,
  ProgressCallback,
  RuleBehavior,
  TextBlock,
  Tool,
  ToolDef,
  ToolInput,
  ToolPermissionResult,
  ToolProgress,
  ToolReferenceBlock,
  ToolResult,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
  ToolUseContext,
  ValidationResult,
} from "./tool/index.js";

// Tool definitions for the model.
export {
  deferredToolsMessage,
  toolDefinitions,
} from "./registry/index.js";
export type {
  AnthropicToolDefinition,
  JsonObjectSchema,
  JsonSchema,
  OpenAIToolDefinition,
  Provider,
  ToolSearchMode,
} from "./registry/index.js";

// The built-in tools.
export {
  builtinTools,
} from "./tools/index.js";
export type {
  BuiltinToolOptions,
} from "./tools/index.js";
export { createAgentTool, loadAgentDefinitions, BUILTIN_AGENTS, type AgentDefinition, type AgentToolOptions } from "./tools/agent/index.js";
export { createAskUserQuestionTool } from "./tools/ask-user-question/index.js";
export { createBashTool, type BashToolOptions } from "./tools/bash/index.js";
export { createEditTool, createMultiEditTool, type EditToolOptions, type MultiEditToolOptions } from "./tools/edit/index.js";
export { createEnterWorktreeTool, createExitWorktreeTool } from "./tools/worktree/index.js";
export { createGlobTool, type GlobToolOptions } from "./tools/glob/index.js";
export { createGrepTool, type GrepToolOptions } from "./tools/grep/index.js";
export { createNotebookEditTool, type NotebookEditToolOptions } from "./tools/notebook-edit/index.js";
export { createEnterPlanModeTool, createExitPlanModeTool } from "./tools/plan-mode/index.js";
export { createReadTool, type ReadToolOptions } from "./tools/read/index.js";
export { createSkillTool, type SkillToolOptions } from "./tools/skill/index.js";
export { createTaskOutputTool } from "./tools/task-output/index.js";
export { createTaskStopTool } from "./tools/task-stop/index.js";
export { createTodoWriteTool, todoStore, type TodoItem, type TodoStatus } from "./tools/todo-write/index.js";
export { createToolSearchTool } from "./registry/tool-search/index.js";
export { createWebFetchTool, type WebFetchOptions, type WebFetchSummarizer } from "./tools/web-fetch/index.js";
export {
  anthropicWebSearch,
  createWebSearchTool,
  type AnthropicWebSearchOptions,
  type WebSearchBackend,
  type WebSearchHit,
  type WebSearchRequest,
  type WebSearchResponse,
} from "./tools/web-search/index.js";
export { createWriteTool, type WriteToolOptions } from "./tools/write/index.js";

// Skills.
export {
  loadSkills,
  skillListing,
} from "./skills/index.js";
export type {
  Skill,
  SkillSources,
} from "./skills/index.js";

// The Bash analysis (its grammar loads on first use).
export {
  analyzeCommand,
  bashGrammarLoaded,
  ensureBashGrammar,
  parserInitMs as bashParserInitMs,
} from "./shell/index.js";
export type { ShellCommandFacts } from "./tool/index.js";

// Permissions.
export {
  parseRule,
} from "./permissions/index.js";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  AutoClassifier,
  ClassifierContext,
  ClassifierVerdict,
  DecisionBehavior,
  PermissionDecision,
  PermissionRequest,
  PermissionResolver,
  RememberScope,
} from "./permissions/index.js";

// Hooks.
export {
  createHookRunner,
  HookConfigError,
} from "./hooks/index.js";
export type {
  ConfiguredHookRunner,
  HookConfigSource,
  HookEventName,
  HookInput,
  HookOutcome,
  HookRunner,
  HookRunnerOptions,
} from "./hooks/index.js";

// Settings and workspace trust.
export {
  INERT_ENV,
  listTrustedProjects,
  loadSettings,
  projectTrustStatus,
  revokeProjectTrust,
  SettingsError,
  trustProject,
} from "./settings/index.js";
export type {
  LoadedSettings,
  LoadSettingsOptions,
  SettingsFile,
  TrustOptions,
  TrustRecord,
  TrustStatus,
} from "./settings/index.js";

// Model providers and the agent loop.
export {
  AnthropicProvider,
  createProvider,
  fromOpenAIToolCalls,
  OpenAIChatProvider,
  OpenAIResponsesProvider,
  toOpenAIToolMessages,
} from "./providers/index.js";
export type {
  AgentMessage,
  AssistantContentBlock,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  OpenAIAssistantMessage,
  OpenAICustomToolCall,
  OpenAIFunctionToolCall,
  OpenAIToolCall,
  OpenAIToolMessage,
  ProviderConfig,
  ProviderName,
  ProviderOptions,
  StopReason,
  UserContentBlock,
  Usage,
} from "./providers/index.js";
export {
  buildSystemPrompt,
  runAgent,
  runAgentToEnd,
} from "./agent/index.js";
export type {
  AgentEvent,
  AgentResult,
  AgentResultSubtype,
  PermissionDenial,
  RunAgentOptions,
  SystemPromptOptions,
} from "./agent/index.js";
export {
  ConversationBudget,
} from "./budget/index.js";
export type {
  CompactionReport,
  ConversationBudgetOptions,
} from "./budget/index.js";

// MCP: connecting servers, serving a session.
export {
  connectMcpServers,
  McpConfigError,
  parseMcpServers,
  serveMcpHttp,
  serveMcpStdio,
} from "./mcp/index.js";
export type {
  ConnectMcpOptions,
  HttpServeHandle,
  HttpServeOptions,
  McpEvent,
  McpManager,
  McpScope,
  McpServerConfig,
  McpServerEntry,
  McpServerStatus,
  ParsedMcpServers,
  ServeToolsOptions,
  SessionFactory,
  StdioServeOptions,
} from "./mcp/index.js";
