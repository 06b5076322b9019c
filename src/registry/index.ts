export { findToolByName, toolMatchesName } from "./find-tool.js";
export { assembleToolPool, getTools, selectBaseTools, isDeniedOutright } from "./pool.js";
export type { ToolRegistration, FeatureFlags } from "./pool.js";
export {
  toolJsonSchema,
  toolDefinitions,
  anthropicToolDefinitions,
  openAIToolDefinitions,
  isSchemaLoaded,
  DEFERRED_TOOL_PLACEHOLDER,
} from "./definitions.js";
export {
  decideDeferredTools,
  deferredToolsMessage,
  isDeferredTool,
  parseToolSearchMode,
  toolSearchModeFromEnv,
  ToolSearchModeError,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  DEFAULT_TOOL_SEARCH_PERCENT,
} from "./deferral.js";
export type { ToolSearchMode, DeferralOptions } from "./deferral.js";
export type { AnthropicToolDefinition, OpenAIToolDefinition, JsonSchema, JsonObjectSchema, Provider } from "./definitions.js";
